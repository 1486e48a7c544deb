// A LoRA policy's frozen base baked into its sessions (resident.ts): the sessions take no base-weight feeds and
// give what the fed sessions give; new base weights (setWeights) recompile them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { createNodeWasmBackend } from '../engine/backend-node-wasm.ts';
import type { Backend } from '../engine/backend.ts';
import { validateConfig } from '../rl/config.ts';
import { loadBase, TrainingRun } from '../rl/run.ts';
import type { ModelConfig } from './config.ts';
import { PEFT_TARGETS } from './lora.ts';
import { Policy, Rng, type Weights } from './policy.ts';
import { initParams, paramSpecs } from './transformer.ts';

const model: ModelConfig = {
  vocabSize: 40,
  contextLength: 24,
  dModel: 16,
  nLayers: 2,
  nHeads: 4,
  dFF: 32,
  arch: 'llama',
  nKvHeads: 2,
  ropeTheta: 100,
  normEps: 1e-5,
  tiedEmbeddings: true,
  lora: { r: 2, alpha: 4, targets: [...PEFT_TARGETS] },
};
const layout = { promptLen: 6, completionLen: 10 };
const prompts = [
  [3, 4, 5],
  [3, 4, 5],
  [7, 8, 9, 10],
  [7, 8, 9, 10],
];
const sp = { temperature: 1, topK: 0, topP: 1 };

/** Seeded weights with non-zero adapters (PEFT's lora_B starts at zero, which would hide them). */
function weights(seed: number): Weights {
  const w = initParams(model, seed);
  const rng = new Rng(seed + 100);
  for (const [n, a] of w) if (n.endsWith('lora_B')) for (let i = 0; i < a.length; i++) a[i] = rng.next() - 0.5;
  return w;
}

const baseNames = (c: ModelConfig) =>
  paramSpecs(c)
    .filter((s) => s.frozen)
    .map((s) => s.name);
const BASE = baseNames(model).length;

/** The inputs of a kept session's graph that are base weights. */
async function baseFeeds(p: Policy, prefix: string): Promise<string[]> {
  const key = p.compiledSessions.find((k) => k.startsWith(prefix))!;
  const s = await p.session(key, () => {
    throw new Error(`${key} is not kept`);
  });
  const base = new Set(baseNames(p.config));
  return s.graph.inputs.map((i) => i.name).filter((n) => base.has(n));
}

const backends: [string, () => Backend][] = [
  ['onnxruntime-node', () => createNodeBackend(1)],
  ["onnxruntime-web's WASM EP (in Node)", () => createNodeWasmBackend(1)],
];

describe.each(backends)('a LoRA policy with its base resident, on %s', (_name, makeBackend) => {
  it(
    'samples with no base-weight feeds the tokens and log-probs of the fed sessions; new base weights ' + 'recompile',
    async () => {
      const backend = makeBackend();
      const fed = await Policy.create(backend, model, layout, weights(1));
      fed.residentKinds = new Set();
      const resident = await Policy.create(backend, model, layout, weights(1));
      resident.residentKinds = new Set(['prefill', 'decode', 'rl']);
      try {
        const a = await fed.sample(prompts, sp, 10, new Rng(2));
        const b = await resident.sample(prompts, sp, 10, new Rng(2));
        expect(b.map((c) => c.tokens)).toEqual(a.map((c) => c.tokens));
        const diff = Math.max(...a.flatMap((c, r) => c.logp.map((x, i) => Math.abs(x - b[r]!.logp[i]!))));
        expect(diff).toBeLessThan(1e-5);
        expect(await baseFeeds(fed, 'decode:')).toHaveLength(BASE);
        expect(await baseFeeds(resident, 'decode:')).toEqual([]);
        expect(await baseFeeds(resident, 'prefill:')).toEqual([]);

        // The same arrays again keep the baked sessions; other base weights recompile them.
        const kept = [...resident.compiledSessions].sort();
        const w = await resident.getWeights();
        resident.setWeights(w);
        expect(resident.compiledSessions).toEqual([]);
        const again = await resident.sample(prompts, sp, 10, new Rng(2));
        expect(again.map((c) => c.tokens)).toEqual(a.map((c) => c.tokens));
        const w2 = weights(3);
        resident.setWeights(w2);
        fed.setWeights(weights(3));
        const c = await fed.sample(prompts, sp, 10, new Rng(2));
        const d = await resident.sample(prompts, sp, 10, new Rng(2));
        expect(d.map((x) => x.tokens)).toEqual(c.map((x) => x.tokens));
        expect(d.map((x) => x.tokens)).not.toEqual(a.map((x) => x.tokens));
        resident.setWeights(w2);
        expect([...resident.compiledSessions].sort()).toEqual(kept);

        // Interleaved rows (each its own prompt pass) need other sessions: a baked kind keeps one, a fed kind two.
        const mixed = [prompts[0]!, prompts[2]!, prompts[1]!, prompts[3]!];
        await resident.sample(mixed, sp, 4, new Rng(2));
        await fed.sample(mixed, sp, 4, new Rng(2));
        const decoders = (p: Policy) => p.compiledSessions.filter((k) => k.startsWith('decode:'));
        expect(decoders(resident)).toEqual(['decode:4>4x6+10:false']);
        expect(decoders(fed)).toHaveLength(2);
      } finally {
        await fed.dispose();
        await resident.dispose();
      }
    },
  );
});

describe('the default resident kinds', () => {
  it("bake the base into sampling's decode step on the WASM EP, and none on onnxruntime-node", async () => {
    const wasm = await Policy.create(createNodeWasmBackend(1), model, layout, weights(1));
    const node = await Policy.create(createNodeBackend(1), model, layout, weights(1));
    try {
      await wasm.sample(prompts, sp, 4, new Rng(2));
      await node.sample(prompts, sp, 4, new Rng(2));
      expect(await baseFeeds(wasm, 'decode:')).toEqual([]);
      expect(await baseFeeds(wasm, 'prefill:')).toHaveLength(BASE);
      expect(await baseFeeds(node, 'decode:')).toHaveLength(BASE);
    } finally {
      await wasm.dispose();
      await node.dispose();
    }
  });

  it('train GRPO with LoRA as the fed sessions do (the update baked too)', async () => {
    const dir = 'public/checkpoints/arithmetic-tiny';
    const base = loadBase(
      JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')),
      new Uint8Array(readFileSync(`${dir}/model.safetensors`)),
    );
    const config = validateConfig({
      task: 'arithmetic',
      difficulty: base.manifest.tasks[0]!.difficulty,
      seed: 4,
      prompts_per_step: 2,
      num_generations: 4,
      eval_every: 0,
      lora_r: 4,
      lora_alpha: 8,
      learning_rate: 3e-3,
      warmup_steps: 0,
    });
    const backend = createNodeBackend(1);
    const runs = [await TrainingRun.create(backend, base, config), await TrainingRun.create(backend, base, config)];
    runs[0]!.policy.residentKinds = new Set();
    runs[1]!.policy.residentKinds = new Set(['prefill', 'decode', 'rl']);
    const rl = (r: TrainingRun) => r.policy.compiledSessions.find((k) => k.startsWith('rl:'));
    for (let s = 0; s < 2; s++) for (const r of runs) await r.advance(0);
    expect(rl(runs[1]!)).toBeDefined();
    expect(await baseFeeds(runs[1]!.policy, 'rl:')).toEqual([]);
    const [a, b] = [await runs[0]!.policy.getWeights(), await runs[1]!.policy.getWeights()];
    let d = 0;
    for (const [n, x] of a) for (let i = 0; i < x.length; i++) d = Math.max(d, Math.abs(x[i]! - b.get(n)![i]!));
    expect(d).toBeLessThan(1e-5);
  });
});
