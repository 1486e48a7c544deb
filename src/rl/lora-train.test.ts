// GRPO with LoRA on the trainer: a few steps change only the adapters (the base bit for bit as it was,
// no moments for it), and each update raises the batch's Σ A · mean log-prob (rewarded completions likelier).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { encode } from '../model/tokenizer.ts';
import { trainableSpecs } from '../model/transformer.ts';
import { validateConfig } from './config.ts';
import { loadBase, TrainingRun, withLora } from './run.ts';

describe('GRPO with LoRA (lora_r > 0)', () => {
  it("trains only the adapters, and each update raises GRPO's objective on its batch (rewarded completions " +
    'likelier, the others less)', async () => {
    const backend = createNodeBackend(1);
    // The shipped arithmetic checkpoint (pass@1 about 0.2), so groups earn mixed rewards.
    const dir = 'public/checkpoints/arithmetic-tiny';
    const base = loadBase(
      JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')),
      new Uint8Array(readFileSync(`${dir}/model.safetensors`)),
    );
    const task = { task: 'arithmetic', difficulty: base.manifest.tasks[0]!.difficulty, temperature: 0.7 };
    const config = validateConfig({
      ...task,
      seed: 4,
      prompts_per_step: 4,
      num_generations: 8,
      eval_every: 0,
      lora_r: 4,
      lora_alpha: 8,
      learning_rate: 3e-3,
      warmup_steps: 0,
    });
    const run = await TrainingRun.create(backend, base, config);
    const c = run.policy.config;
    expect(c.lora).toEqual({
      r: 4,
      alpha: 8,
      targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    });
    const before = await run.policy.getWeights();
    expect(before.get('h0.attn.wq.lora_B')!.every((x) => x === 0)).toBe(true);

    let rose = 0;
    let updates = 0;
    for (let s = 0; s < 6; s++) {
      const { result } = await run.advance(0);
      if (result.skipped) continue;
      // GRPO's objective on this batch, Σ A · (mean log-prob of the completion's tokens) (loss_type grpo):
      // after the update, against the sampling-time log-probs.
      const moved = result.rollouts.filter((r) => r.advantage !== 0 && r.hint === '' && r.tokens.length > 0);
      if (!moved.length) continue;
      const scores = await run.policy.score(
        moved.map((r) => encode(r.prompt)),
        moved.map((r) => r.tokens),
        config.temperature,
      );
      const mean = (l: number[]) => l.reduce((x, y) => x + y, 0) / l.length;
      const now = moved.reduce((a, r, i) => a + r.advantage * mean(scores.logp[i]!), 0);
      const then = moved.reduce((a, r) => a + r.advantage * mean(r.oldLogp), 0);
      updates++;
      if (now > then) rose++;
    }
    expect(updates).toBeGreaterThan(1);
    expect(rose).toBe(updates);

    const after = await run.policy.getWeights();
    const trainable = new Set(trainableSpecs(c).map((s) => s.name));
    for (const [name, w] of after) {
      const same = w.every((x, i) => x === before.get(name)![i]);
      if (trainable.has(name)) {
        if (name.endsWith('.lora_B')) expect(same, `${name} should have moved`).toBe(false);
      } else expect(same, `${name} is a frozen base weight`).toBe(true);
    }
    const opt = await run.policy.getOptimizerState();
    for (const [name, m] of opt.m) if (!trainable.has(name)) expect(m.every((x) => x === 0)).toBe(true);

    // A snapshot restores with the adapters; a config with other adapters is refused.
    const snap = await run.snapshot();
    const again = await TrainingRun.restore(backend, snap);
    expect([...(await again.policy.getWeights()).get('h1.mlp.w2.lora_B')!]).toEqual([
      ...after.get('h1.mlp.w2.lora_B')!,
    ]);
    expect(() => withLora(run.base, { ...config, lora_r: 8 })).toThrow(/carries LoRA adapters/);
    await again.dispose();
    await run.dispose();
  }, 300_000);
});
