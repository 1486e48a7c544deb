import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { createNodeWasmBackend } from '../engine/backend-node-wasm.ts';
import type { Backend } from '../engine/backend.ts';
import { Rng } from '../util/rng.ts';
import { modelPresets } from './config.ts';
import { Policy } from './policy.ts';
import { pretrain } from './pretrain.ts';
import { encode } from './tokenizer.ts';
import { initParams } from './transformer.ts';

const layout = { promptLen: 24, completionLen: 40 };

const backends: [string, () => Backend][] = [
  ['onnxruntime-node', () => createNodeBackend()],
  ["onnxruntime-web's WASM EP (in Node)", () => createNodeWasmBackend(1)],
];

describe.each(backends)('policy on %s', (_name, makeBackend) => {
  it('KV-cache sampler log-probs equal the scoring graph within 1e-4', async () => {
    const backend = makeBackend();
    const cfg = modelPresets.nano;
    const policy = await Policy.create(backend, cfg, layout, initParams(cfg, 5));
    await pretrain(policy, { mix: [{ task: 'arithmetic', difficulty: { digits: 2 } }], steps: 5, batchSize: 8, lr: 3e-3, warmupSteps: 1, seed: 1 });
    const prompts = ['12+34=', '7*8=', 'sat 3: 1 2|-1 3', 'asc: 5 3 9 1'].map(encode);
    const rows = [...prompts, ...prompts];
    const sp = { temperature: 0.8, topK: 0, topP: 1 };
    const comps = await policy.sample(rows, sp, 30, new Rng(3));
    expect(comps.some((c) => c.tokens.length > 5)).toBe(true);
    const scores = await policy.score(rows, comps.map((c) => c.tokens), 0.8);
    let maxDiff = 0;
    comps.forEach((c, r) => c.logp.forEach((lp, i) => (maxDiff = Math.max(maxDiff, Math.abs(lp - scores.logp[r]![i]!)))));
    comps.forEach((c, r) => c.entropy.forEach((h, i) => (maxDiff = Math.max(maxDiff, Math.abs(h - scores.entropy[r]![i]!)))));
    expect(maxDiff).toBeLessThan(1e-4);
    // Same seed, same samples.
    const again = await policy.sample(rows, sp, 30, new Rng(3));
    expect(again.map((c) => c.tokens)).toEqual(comps.map((c) => c.tokens));
    await policy.dispose();
  });
});
