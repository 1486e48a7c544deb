import { describe, expect, it } from 'vitest';
import { gradients } from '../engine/autodiff.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { compile } from '../engine/compile.ts';
import { Graph } from '../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { aggregationWeights, computeAdvantages } from './advantages.ts';
import type { LossType, ScaleRewards } from './config.ts';
import { objectiveInputs, policyObjective } from './objective.ts';
import {
  BETA,
  correct,
  EPS,
  EPS_HIGH,
  LEN,
  logp,
  mask,
  MAXLEN,
  oldLogp,
  refLogp,
  rewards,
  ROWS,
} from './objective-fixture.ts';

// The hand-written batch (objective-fixture.ts): 2 groups x 2 completions, up to 3 tokens each.

/** Everything below is the objective written out by hand in float64, independent of the graph code. */
function handAdvantages(scale: ScaleRewards): number[] {
  const flat: number[] = [];
  const all = rewards.flat();
  const sd = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
  };
  for (const g of rewards) {
    const m = (g[0]! + g[1]!) / 2;
    for (const r of g) {
      const a = r - m;
      flat.push(scale === 'group' ? a / (sd(g) + 1e-4) : scale === 'batch' ? a / (sd(all) + 1e-4) : a);
    }
  }
  return flat;
}

function handWeights(lt: LossType): number[][] {
  const total = mask.flat().reduce((a, b) => a + b, 0);
  return mask.map((m) => {
    const len = m.reduce((a, b) => a + b, 0);
    return m.map((v) =>
      v ? (lt === 'grpo' ? 1 / (len * ROWS) : lt === 'dr_grpo' ? 1 / (ROWS * MAXLEN) : 1 / total) : 0,
    );
  });
}

function handLossAndGrad(
  lt: LossType,
  level: 'token' | 'sequence',
  scale: ScaleRewards,
): { loss: number; grad: number[][] } {
  const A = handAdvantages(scale);
  const w = handWeights(lt);
  let loss = 0;
  const grad = mask.map((m) => m.map(() => 0));
  for (let r = 0; r < ROWS; r++) {
    const len = mask[r]!.reduce((a, b) => a + b, 0);
    const seqLr = mask[r]!.reduce((s, v, t) => s + v * (logp[r]![t]! - oldLogp[r]![t]!), 0) / len;
    let dLossDs = 0; // sequence level: gradient through the shared ratio
    for (let t = 0; t < LEN; t++) {
      if (!mask[r]![t]) continue;
      const ratio = level === 'token' ? Math.exp(logp[r]![t]! - oldLogp[r]![t]!) : Math.exp(seqLr);
      const a = A[r]!;
      const unclipped = ratio * a;
      const clipped = Math.min(Math.max(ratio, 1 - EPS), 1 + EPS_HIGH) * a;
      const obj = Math.min(unclipped, clipped);
      const d = refLogp[r]![t]! - logp[r]![t]!;
      const kl = Math.exp(d) - d - 1;
      loss += w[r]![t]! * (-obj + BETA * kl);
      // d obj / d ratio: a on the unclipped branch or inside the clip range, else 0.
      const inside = ratio >= 1 - EPS && ratio <= 1 + EPS_HIGH;
      const dObjDRatio = unclipped <= clipped || inside ? a : 0;
      if (level === 'token') grad[r]![t]! += w[r]![t]! * -dObjDRatio * ratio;
      else dLossDs += w[r]![t]! * -dObjDRatio * ratio;
      grad[r]![t]! += w[r]![t]! * BETA * (1 - Math.exp(d));
    }
    if (level === 'sequence') for (let t = 0; t < LEN; t++) if (mask[r]![t]) grad[r]![t]! += dLossDs / len;
  }
  return { loss, grad };
}

function buildObjective(lt: LossType, level: 'token' | 'sequence', scale: ScaleRewards) {
  const g = new Graph();
  const lp = g.input('logp', 'float32', [ROWS, LEN]);
  const ent = g.input('entropy', 'float32', [ROWS, LEN]);
  const inputs = objectiveInputs(g, ROWS, LEN, lp, ent);
  const o = policyObjective(g, inputs);
  const [dlogp] = gradients(g, o.loss, [lp]);
  g.output(o.loss, 'loss');
  g.output(dlogp!, 'dlogp');
  const adv = computeAdvantages(rewards, correct, {
    advantage_estimator: 'grpo',
    scale_rewards: scale,
    positive_weight: 1,
    negative_weight: 1,
  }).flat();
  const weights = aggregationWeights(
    mask,
    lt,
    MAXLEN,
    mask.flat().reduce((a, b) => a + b, 0),
  );
  const feeds: Record<string, { shape: number[]; data: number[]; dtype?: 'bool' }> = {
    logp: { shape: [ROWS, LEN], data: logp.flat() },
    entropy: { shape: [ROWS, LEN], data: new Array(ROWS * LEN).fill(0.5) },
    old_logp: { shape: [ROWS, LEN], data: oldLogp.flat() },
    ref_logp: { shape: [ROWS, LEN], data: refLogp.flat() },
    advantages: { shape: [ROWS, LEN], data: mask.flatMap((m, r) => m.map(() => adv[r]!)) },
    weights: { shape: [ROWS, LEN], data: weights.flat() },
    mask: { shape: [ROWS, LEN], data: mask.flat() },
    seq_len: { shape: [ROWS, 1], data: mask.map((m) => m.reduce((a, b) => a + b, 0)) },
    clip_low: { shape: [], data: [1 - EPS] },
    clip_high: { shape: [], data: [1 + EPS_HIGH] },
    delta: { shape: [], data: [1e30] },
    beta: { shape: [], data: [BETA] },
    entropy_coef: { shape: [], data: [0] },
    sequence_level: { shape: [], data: [level === 'sequence' ? 1 : 0], dtype: 'bool' },
    use_k3: { shape: [], data: [1], dtype: 'bool' },
    use_bias_correction_kl: { shape: [], data: [0], dtype: 'bool' },
  };
  return { g, feeds };
}

const combos: [LossType, 'token' | 'sequence', ScaleRewards][] = [];
for (const lt of ['grpo', 'bnpo', 'dr_grpo', 'dapo'] as LossType[])
  for (const lvl of ['token', 'sequence'] as const)
    for (const sc of ['group', 'batch', 'none'] as ScaleRewards[]) combos.push([lt, lvl, sc]);

describe('GRPO-family objective vs a float64 hand computation', () => {
  const backend = createNodeBackend();
  it('the hand batch exercises both clip sides', () => {
    const ratios = logp.flatMap((r, i) => r.map((v, t) => (mask[i]![t] ? Math.exp(v - oldLogp[i]![t]!) : 1)));
    expect(ratios.some((r) => r < 1 - EPS)).toBe(true);
    expect(ratios.some((r) => r > 1 + EPS_HIGH)).toBe(true);
  });

  for (const [lt, lvl, sc] of combos) {
    it(`loss_type=${lt} importance_sampling_level=${lvl} scale_rewards=${sc}`, async () => {
      const hand = handLossAndGrad(lt, lvl, sc);
      const { g, feeds } = buildObjective(lt, lvl, sc);
      const ref: Record<string, NDArray> = {};
      for (const [k, v] of Object.entries(feeds)) ref[k] = nd(v.shape, v.data);
      const [loss, dlogp] = evaluate(g, ref);
      expect(Math.abs(loss!.data[0]! - hand.loss)).toBeLessThan(1e-6);
      hand.grad.flat().forEach((v, i) => expect(Math.abs(dlogp!.data[i]! - v)).toBeLessThan(1e-6));
      // The same graph in onnxruntime-node (float32).
      const s = await backend.createSession(compile(g));
      const t: Record<string, ReturnType<typeof backend.tensor>> = {};
      for (const [k, v] of Object.entries(feeds)) t[k] = backend.tensor(v.dtype ?? 'float32', v.data, v.shape);
      const out = await s.run(t);
      expect(Math.abs(((await backend.read(out['loss']!))[0] as number) - hand.loss)).toBeLessThan(1e-5);
      const d = (await backend.read(out['dlogp']!)) as Float32Array;
      hand.grad.flat().forEach((v, i) => expect(Math.abs(d[i]! - v)).toBeLessThan(1e-5));
    });
  }
});
