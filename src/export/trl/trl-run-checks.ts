// The checks of src/export/trl/trl-run.test.ts on one TRL run of the exported project: the steps, TRL's
// logged rewards against our verifier, the saved model (checkRun), and the run record train_grpo.py
// wrote against what TRL logged and what our tokenizer, verifier and engine say of the same tokens
// (checkRecord).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { Policy } from '../../model/policy.ts';
import { decode, encode, EOS, tokenText } from '../../model/tokenizer.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';
import { decodeRunRecord, type RunRecord } from '../../record/run-record.ts';
import { validateConfig } from '../../rl/config.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { loadsInTransformers, readRun, root, STEPS, TASK } from './trl-run-harness.ts';

/** The exported TRL project the runs train: its folder, the task's difficulty and TRL's reward weights. */
export interface ExportedProject {
  project: string;
  difficulty: Difficulty;
  rewardWeights: number[];
}

/** The checks both runs share: steps, TRL's logged rewards against our verifier, the saved model. */
export async function checkRun(
  py: string,
  out: string,
  processes: number,
  { project, difficulty, rewardWeights }: ExportedProject,
): Promise<void> {
  const { logged, state } = await readRun(py, out);
  expect(state.global_step).toBe(STEPS);
  // per device: 8 completions per optimizer step split over the processes
  expect(state.train_batch_size).toBe(8 / processes);
  const steps = state.log_history.filter((h) => 'reward' in h);
  expect(steps.map((h) => h.step)).toEqual([1, 2]);
  // Every step's completions, gathered from all processes.
  for (let s = 1; s <= STEPS; s++) expect(logged.filter((l) => l.step === s)).toHaveLength(8);

  const fam = getTaskFamily(TASK);
  const rows = readFileSync(join(project, 'prompts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt: string; data: string; seed: number });
  const byPrompt = new Map(rows.map((r) => [r.prompt, r]));
  expect(byPrompt.size).toBe(rows.length); // prompts identify their instance
  const mismatches: string[] = [];
  for (const l of logged) {
    const row = byPrompt.get(l.prompt);
    expect(row, `TRL logged a prompt that is not in prompts.jsonl: ${JSON.stringify(l.prompt)}`).toBeDefined();
    const inst = fam.generate(row!.seed, difficulty);
    expect(JSON.stringify(inst.data)).toBe(row!.data);
    const v = fam.verify(inst, l.completion).components;
    // TRL holds rewards in a float32 tensor (rewards_per_func), so it logs them rounded to float32.
    const ours = [v.correctness, v.format, v.partial ?? 0].map(Math.fround);
    const trl = [l.correctness_reward, l.format_reward, l.partial_reward];
    if (ours.some((x, i) => x !== trl[i]))
      mismatches.push(`${JSON.stringify(l.completion)}: TRL logged ${trl}, our verifier ${ours}`);
  }
  expect(mismatches).toEqual([]);
  // The completions are not all alike: the comparison covers more than one verdict.
  expect(
    new Set(logged.map((l) => `${l.correctness_reward},${l.format_reward},${l.partial_reward}`)).size,
  ).toBeGreaterThan(1);
  // TRL's logged mean reward per step is the reward-weighted sum of our components, averaged.
  for (const h of steps) {
    const mine = logged
      .filter((l) => l.step === h.step)
      .map(
        (l) =>
          rewardWeights[0]! * l.correctness_reward +
          rewardWeights[1]! * l.format_reward +
          rewardWeights[2]! * l.partial_reward,
      );
    expect(h.reward).toBeCloseTo(mine.reduce((a, b) => a + b, 0) / mine.length, 5);
  }
  const loaded = await loadsInTransformers(py, out);
  expect(loaded).toEqual({ vocab_size: 102, generated: 8, rlvr_checkpoint: `${TASK}-tiny` });
}

/**
 * The run record train_grpo.py wrote (output_dir/run.rlvr.gz), decoded by our reader, against what TRL
 * logged in the same run and what our tokenizer, verifier and engine say of the same tokens.
 */
export async function checkRecord(
  py: string,
  out: string,
  { project, difficulty, rewardWeights }: ExportedProject,
): Promise<RunRecord> {
  const file = join(out, 'run.rlvr.gz');
  expect(existsSync(file), `train_grpo.py wrote no run record at ${file}`).toBe(true);
  const decoded = await decodeRunRecord(new Uint8Array(readFileSync(file)));
  if (!decoded.ok) throw new Error(decoded.error);
  const { record, notes } = decoded;
  expect(notes).toEqual([]); // every metric key it holds is one of ours
  expect(record.provenance).toMatchObject({ writer: 'trl train_grpo.py', base: { name: `${TASK}-tiny` } });
  expect(record.provenance.command).toMatch(/^train_grpo\.py --model .* --steps 2 /);
  const baseManifest = JSON.parse(readFileSync(join(root, `public/checkpoints/${TASK}-tiny/manifest.json`), 'utf8'));
  expect(record.provenance.base.manifest).toEqual(baseManifest);
  // The config: the run config the project was exported from.
  const exported = validateConfig(JSON.parse(readFileSync(join(project, 'run_config.json'), 'utf8')));
  expect(record.config).toEqual(exported);
  expect(record.config).toMatchObject({ task: TASK, prompts_per_step: 2, num_generations: 4, learning_rate: 0.001 });

  const { logged, state } = await readRun(py, out);
  expect(record.steps.map((s) => s.step)).toEqual([1, 2]);
  expect(record.rollouts.map((r) => [r.step, r.records.length])).toEqual([
    [1, 8],
    [2, 8],
  ]);
  const fam = getTaskFamily(TASK);
  const rows = readFileSync(join(project, 'prompts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt: string; seed: number });
  const seedOf = new Map(rows.map((r) => [r.prompt, r.seed]));
  const w = rewardWeights.map(Math.fround); // TRL's reward_weights tensor is float32
  for (const { step, records } of record.rollouts) {
    const trl = logged.filter((l) => l.step === step);
    expect(records).toHaveLength(trl.length);
    records.forEach((r, i) => {
      const at = `step ${step}, completion ${i}`;
      const l = trl[i]!;
      // TRL's completions table is in the gathered order the record keeps (groups of num_generations).
      expect([r.group, r.index], at).toEqual([Math.floor(i / 4), i % 4]);
      expect(r.prompt, at).toBe(l.prompt);
      expect(r.completion, at).toBe(l.completion);
      expect(r.advantage, at).toBe(l.advantage);
      expect(r.components, at).toEqual({
        correctness: Math.fround(w[0]! * l.correctness_reward),
        format: Math.fround(w[1]! * l.format_reward),
        partial: Math.fround(w[2]! * l.partial_reward),
      });
      expect(r.reward, at).toBeCloseTo(
        w[0]! * l.correctness_reward + w[1]! * l.format_reward + w[2]! * l.partial_reward,
        6,
      );
      // Token ids in our tokenizer: they decode to the completion, EOS last (no completion was cut off at 64 tokens
      // here).
      expect(decode(r.tokens), at).toBe(r.completion);
      expect(r.tokenText, at).toEqual(r.tokens.map(tokenText));
      expect(r.tokens.at(-1), at).toBe(EOS);
      expect(r.truncated, at).toBe(false);
      // The sampling log-probs: one per token, finite, at most 0.
      expect(r.oldLogp, at).toHaveLength(r.tokens.length);
      for (const x of r.oldLogp) {
        expect(Number.isFinite(x), at).toBe(true);
        expect(x, at).toBeLessThanOrEqual(0);
      }
      expect(r.correct, at).toBe(fam.verify(fam.generate(seedOf.get(r.prompt)!, difficulty), r.completion).correct);
    });
    expect(records.every((r) => records[r.group * 4]!.prompt === r.prompt)).toBe(true);
    expect(records.some((r) => r.oldLogp.some((x) => x < -0.01))).toBe(true); // not all zeros
  }
  // Step 1 was sampled from the base checkpoint: our engine gives its tokens the log-probs TRL's model did.
  const ckpt = readCheckpoint(join(root, `public/checkpoints/${TASK}-tiny/manifest.json`));
  const policy = await Policy.create(createNodeBackend(1), ckpt.manifest.model, ckpt.manifest.layout, ckpt.weights);
  try {
    const first = record.rollouts[0]!.records;
    const ours = (
      await policy.score(
        first.map((r) => encode(r.prompt)),
        first.map((r) => r.tokens),
        record.config.temperature,
      )
    ).logp;
    let worst = 0;
    first.forEach((r, i) => r.oldLogp.forEach((x, j) => (worst = Math.max(worst, Math.abs(x - ours[i]![j]!)))));
    expect(worst).toBeLessThan(1e-4); // 4e-6 measured
  } finally {
    await policy.dispose();
  }
  // The metrics TRL logged that mean what ours mean, under our keys.
  const logs = state.log_history.filter((h) => 'reward' in h);
  for (const s of record.steps) {
    const h = logs.find((x) => x.step === s.step)!;
    const m = s.metrics;
    for (const k of [
      'reward',
      'completions/mean_length',
      'completions/max_length',
      'completions/min_length',
      'completions/clipped_ratio',
      'entropy',
      'clip_ratio/region_mean',
      'grad_norm',
      'loss',
      'frac_reward_zero_std',
    ])
      expect(m[k], `step ${s.step} ${k}`).toBe(h[k]);
    expect(m['reward_std']).toBeCloseTo(h['reward_std']! * Math.sqrt(7 / 8), 12); // TRL's is the n − 1 one
    expect(m['rewards/correctness/mean']).toBeCloseTo(rewardWeights[0]! * h['rewards/correctness_reward/mean']!, 6);
    const recs = record.rollouts.find((r) => r.step === s.step)!.records;
    expect(m['accuracy']).toBe(recs.filter((r) => r.correct).length / recs.length);
    expect(m['reward']).toBeCloseTo(recs.reduce((a, r) => a + r.reward, 0) / recs.length, 6);
    expect(m).not.toHaveProperty('learning_rate'); // TRL logs the next step's rate: not ours
    expect(s.advantage_histogram!.counts.reduce((a, b) => a + b, 0)).toBe(8);
  }
  return record;
}
