import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import type { DeviceTensor } from '../engine/backend.ts';
import { Graph } from '../engine/graph.ts';
import { modelPresets } from '../model/config.ts';
import { sequenceInputs, tokenStats, trainState } from '../model/graphs.ts';
import { pack, predictingColumn, splitShared, totalLen, type Layout } from '../model/layout.ts';
import { Policy } from '../model/policy.ts';
import { initParams } from '../model/transformer.ts';
import { Rng } from '../util/rng.ts';
import { buildRlGraph, objectiveInputs, policyObjective } from './objective.ts';

const cfg = modelPresets.nano;
const layout: Layout = { promptLen: 12, completionLen: 16 };
const adam = { beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 };

/** The RL update as it was before prompts were shared: every row runs the whole grid. */
function buildFullGridRlGraph(rows: number, len: number): Graph {
  const g = new Graph();
  const st = trainState(g, cfg);
  const s = sequenceInputs(g, rows, len);
  const { logp, entropy } = tokenStats(g, cfg, st.p, s, true);
  const o = policyObjective(g, objectiveInputs(g, rows, len, logp, entropy!));
  g.output(logp, 'logp');
  g.output(entropy!, 'entropy');
  st.finish(o.loss, adam);
  return g;
}

async function update(prompts: number[][], completions: number[][], shared: { slots: number } | null) {
  const be = createNodeBackend(1);
  const policy = await Policy.create(be, cfg, layout, initParams(cfg, 11));
  const rows = prompts.length;
  const len = totalLen(layout);
  const rng = new Rng(5);
  const grid = (fill: (r: number, i: number) => number) => {
    const a = new Float32Array(rows * len);
    completions.forEach((c, r) => c.forEach((_, i) => (a[r * len + predictingColumn(layout, i)] = fill(r, i))));
    return be.tensor('float32', a, [rows, len]);
  };
  const old = completions.map((c) => c.map(() => -1 - rng.next()));
  const adv = completions.map(() => rng.next() - 0.5);
  const packed = pack(layout, prompts, completions);
  const split = splitShared(packed, layout.promptLen, prompts, shared?.slots ?? 0);
  const feeds: Record<string, DeviceTensor> = {
    ...(shared ? policy.sharedFeeds(split, 1 / 0.9) : policy.packedFeeds(packed, 1 / 0.9)),
    old_logp: grid((r, i) => old[r]![i]!),
    ref_logp: grid((r, i) => old[r]![i]! - 0.1),
    advantages: grid((r) => adv[r]!),
    weights: grid((r) => 1 / (completions[r]!.length * rows)),
    mask: grid(() => 1),
    seq_len: be.tensor('float32', completions.map((c) => c.length), [rows, 1]),
    clip_low: be.tensor('float32', [0.8], []),
    clip_high: be.tensor('float32', [1.2], []),
    delta: be.tensor('float32', [1e9], []),
    beta: be.tensor('float32', [0.04], []),
    entropy_coef: be.tensor('float32', [0.01], []),
    sequence_level: be.tensor('bool', [0], []),
    use_k3: be.tensor('bool', [1], []),
  };
  const build = () => (shared ? buildRlGraph(cfg, rows, split.distinct, layout.promptLen, len, adam) : buildFullGridRlGraph(rows, len));
  const res = await policy.train('rl', build, feeds, 1e-3);
  const at = (name: string) => completions.map((c, r) => c.map((_, i) => res.values[name]![r * len + predictingColumn(layout, i)]!));
  const weights = await policy.getWeights();
  await policy.dispose();
  return { loss: res.loss, gradNorm: res.gradNorm, logp: at('logp'), entropy: at('entropy'), weights, distinct: split.distinct };
}

describe('an update that passes each distinct prompt once', () => {
  it('equals the whole-grid update: loss, grad norm, per-token log-probs and entropies, new weights', async () => {
    const rng = new Rng(3);
    const tokens = (n: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * 20));
    const distinctPrompts = [3, 12, 7].map(tokens);
    // 3 prompts × 3 rows, interleaved; completions of every length from 1 to the full 16 columns.
    const prompts = [0, 1, 2, 0, 1, 2, 2, 1, 0].map((i) => distinctPrompts[i]!);
    const completions = [1, 16, 5, 9, 2, 12, 7, 16, 3].map(tokens);
    const full = await update(prompts, completions, null);
    for (const slots of [0, 5]) {
      const shared = await update(prompts, completions, { slots });
      expect(shared.distinct).toBe(Math.max(3, slots));
      expect(Math.abs(shared.loss - full.loss)).toBeLessThan(1e-6);
      expect(Math.abs(shared.gradNorm - full.gradNorm)).toBeLessThan(1e-5 * full.gradNorm);
      shared.logp.forEach((row, r) => row.forEach((v, i) => expect(Math.abs(v - full.logp[r]![i]!)).toBeLessThan(1e-5)));
      shared.entropy.forEach((row, r) => row.forEach((v, i) => expect(Math.abs(v - full.entropy[r]![i]!)).toBeLessThan(1e-5)));
      let worst = 0;
      for (const [name, w] of full.weights) {
        const v = shared.weights.get(name)!;
        for (let i = 0; i < w.length; i++) worst = Math.max(worst, Math.abs(v[i]! - w[i]!));
      }
      expect(worst).toBeLessThan(1e-6);
    }
  });

  it('splitShared names a bad split', () => {
    const b = pack(layout, [[5, 6]], [[7]]);
    expect(() => splitShared(b, layout.promptLen, [[5, 6], [5, 6]])).toThrow(/2 prompts for 1 rows/);
    expect(() => splitShared(b, totalLen(layout), [[5, 6]])).toThrow(/cannot split/);
  });
});
