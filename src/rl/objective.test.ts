import { describe, expect, it } from 'vitest';
import { gradients } from '../engine/autodiff.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { compile } from '../engine/compile.ts';
import { Graph } from '../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { aggregationWeights, computeAdvantages } from './advantages.ts';
import type { LossType, ScaleRewards } from './config.ts';
import { gradCheck, type CheckInput } from '../engine/gradcheck.ts';
import type { Tensor } from '../engine/graph.ts';
import { objectiveInputs, objectiveScalars, policyObjective, type ObjectiveForm } from './objective.ts';
import { defaultConfig } from './config.ts';

// A hand-written batch: 2 groups x 2 completions, up to 3 tokens each (row 3 has 2 tokens).
const ROWS = 4;
const LEN = 3;
const mask = [
  [1, 1, 1],
  [1, 1, 0],
  [1, 1, 1],
  [1, 0, 0],
];
const rewards = [
  [1, 0.1],
  [0, 1],
];
const correct = [
  [true, false],
  [false, true],
];
const oldLogp = [
  [-0.5, -1.2, -0.3],
  [-2.0, -0.7, 0],
  [-1.0, -0.4, -0.9],
  [-0.2, 0, 0],
];
// Current log-probs chosen so some ratios leave [0.8, 1.28] on both sides.
const logp = [
  [-0.2, -1.25, -0.3],
  [-2.5, -0.6, 0],
  [-1.0, -0.1, -1.3],
  [-0.05, 0, 0],
];
const refLogp = [
  [-0.6, -1.0, -0.2],
  [-1.8, -0.9, 0],
  [-1.1, -0.5, -0.7],
  [-0.3, 0, 0],
];
const EPS = 0.2;
const EPS_HIGH = 0.28;
const BETA = 0.05;
const MAXLEN = 5;

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

describe('advantages', () => {
  it('group, batch and none scaling, RLOO and signed (PSR/NSR) estimators', () => {
    const r = [
      [1, 0, 0, 1],
      [0.1, 0.1, 0.1, 0.1],
    ];
    const c = [
      [true, false, false, true],
      [false, false, false, false],
    ];
    const base = { advantage_estimator: 'grpo' as const, positive_weight: 1, negative_weight: 1 };
    const sdGroup = Math.sqrt(1 / 3);
    const g = computeAdvantages(r, c, { ...base, scale_rewards: 'group' });
    expect(g[0]![0]).toBeCloseTo(0.5 / (sdGroup + 1e-4), 10);
    expect(g[1]).toEqual([0, 0, 0, 0]); // zero-variance group: no signal
    const none = computeAdvantages(r, c, { ...base, scale_rewards: 'none' });
    expect(none[0]).toEqual([0.5, -0.5, -0.5, 0.5]);
    const rloo = computeAdvantages(r, c, { ...base, advantage_estimator: 'rloo', scale_rewards: 'none' });
    expect(rloo[0]![0]).toBeCloseTo(1 - 1 / 3, 12);
    const psr = computeAdvantages(r, c, {
      advantage_estimator: 'signed',
      scale_rewards: 'none',
      positive_weight: 1,
      negative_weight: 0,
    });
    expect(psr[0]).toEqual([1, 0, 0, 1]);
    const wr = computeAdvantages(r, c, {
      advantage_estimator: 'signed',
      scale_rewards: 'none',
      positive_weight: 0.1,
      negative_weight: 1,
    });
    expect(wr[0]).toEqual([0.1, -1, -1, 0.1]);
  });

  it("REINFORCE++ and its baseline variant: veRL's token-level returns whitened over the masked tokens", () => {
    // veRL, written per token: every completion token carries the outcome return (gamma 1), then
    // masked_whiten over all tokens of the batch with the unbiased variance, + 1e-8.
    const r = [
      [1, 0, 0.5],
      [0, 0, 0],
    ];
    const lens = [
      [3, 1, 5],
      [2, 4, 0],
    ];
    const c = r.map((g) => g.map(() => false));
    const whiten = (vals: number[][]) => {
      const tok: number[] = [];
      vals.forEach((g, gi) => g.forEach((v, i) => tok.push(...new Array(lens[gi]![i]!).fill(v))));
      const m = tok.reduce((a, b) => a + b, 0) / tok.length;
      const v = (tok.reduce((a, b) => a + (b - m) ** 2, 0) / tok.length) * (tok.length / (tok.length - 1));
      return vals.map((g, gi) => g.map((x, i) => (lens[gi]![i]! ? (x - m) / Math.sqrt(v + 1e-8) : 0)));
    };
    const base = { scale_rewards: 'group' as const, positive_weight: 1, negative_weight: 1 };
    const pp = computeAdvantages(r, c, { ...base, advantage_estimator: 'reinforce_plus_plus' }, lens);
    whiten(r)
      .flat()
      .forEach((v, i) => expect(pp.flat()[i]).toBeCloseTo(v, 12));
    // the all-zero group is not zeroed: REINFORCE++ compares against the whole batch
    expect(pp[1]![0]).toBeLessThan(0);
    const bl = computeAdvantages(r, c, { ...base, advantage_estimator: 'reinforce_plus_plus_baseline' }, lens);
    const centred = r.map((g) => g.map((x) => x - g.reduce((a, b) => a + b, 0) / g.length));
    whiten(centred)
      .flat()
      .forEach((v, i) => expect(bl.flat()[i]).toBeCloseTo(v, 12));
    // whitening shifts by the token-weighted batch mean, so even the all-equal group moves off 0, as in veRL
    expect(bl[1]![0]).not.toBe(0);
    expect(() => computeAdvantages(r, c, { ...base, advantage_estimator: 'reinforce_plus_plus' })).toThrow(
      /needs each completion's token count/,
    );
  });
});

describe('objective forms beyond the clip (float64)', () => {
  const adv = [0.9, -0.6, 0.4, -1.2];
  // clip_cov / kl_cov: the tokens covSelection picked (two, on rows of both signs)
  const picked = mask.map((m, r) => m.map((_, t) => ((r === 0 && t === 1) || (r === 3 && t === 0) ? 1 : 0)));
  const lossTypes: Record<Exclude<ObjectiveForm, 'clip'>, LossType> = {
    cispo: 'cispo',
    sapo: 'sapo',
    vespo: 'vespo',
    gmpo: 'gmpo',
    clip_cov: 'clip_cov',
    kl_cov: 'kl_cov',
  };
  const inputsFor = (lt: LossType, beta: number): CheckInput[] => {
    const c = { ...defaultConfig, loss_type: lt, epsilon: 0.2, epsilon_high: 0.28, ppo_kl_coef: 0.7 };
    const total = mask.flat().reduce((a, b) => a + b, 0);
    const grid = (name: string, a: number[][]): CheckInput => ({
      name,
      shape: [ROWS, LEN],
      values: a.flat(),
      fixed: name !== 'logp',
    });
    const scalar = (name: string, v: number, dtype?: 'bool'): CheckInput => ({
      name,
      shape: [],
      values: [v],
      fixed: true,
      ...(dtype ? { dtype } : {}),
    });
    return [
      grid('logp', logp),
      grid(
        'entropy',
        mask.map((m) => m.map(() => 0.5)),
      ),
      grid('old_logp', oldLogp),
      grid('ref_logp', refLogp),
      grid(
        'advantages',
        mask.map((m, r) => m.map(() => adv[r]!)),
      ),
      grid('weights', aggregationWeights(mask, lt, MAXLEN, total)),
      grid('mask', mask),
      { name: 'seq_len', shape: [ROWS, 1], values: mask.map((m) => m.reduce((a, b) => a + b, 0)), fixed: true },
      scalar('beta', beta),
      scalar('entropy_coef', 0),
      scalar('sequence_level', 0, 'bool'),
      scalar('use_k3', 1, 'bool'),
      scalar('use_bias_correction_kl', 0, 'bool'),
      ...Object.entries(objectiveScalars(c)).map(([k, v]) => scalar(k, v)),
      ...(lt === 'clip_cov' || lt === 'kl_cov' ? [grid('cov_select', picked)] : []),
    ];
  };
  const build = (form: ObjectiveForm, out: 'loss' | 'tokenLoss') => (g: Graph, xs: Tensor[]) => {
    const ins = inputsFor(lossTypes[form as Exclude<ObjectiveForm, 'clip'>], 0);
    const t = (name: string) => xs[ins.findIndex((i) => i.name === name)]!;
    const names = Object.keys(
      objectiveScalars({ ...defaultConfig, loss_type: lossTypes[form as Exclude<ObjectiveForm, 'clip'>] }),
    );
    const o = policyObjective(g, {
      form,
      logp: t('logp'),
      entropy: t('entropy'),
      oldLogp: t('old_logp'),
      refLogp: t('ref_logp'),
      advantages: t('advantages'),
      weights: t('weights'),
      mask: t('mask'),
      seqLen: t('seq_len'),
      beta: t('beta'),
      entropyCoef: t('entropy_coef'),
      sequenceLevel: t('sequence_level'),
      useK3: t('use_k3'),
      biasCorrectionKl: t('use_bias_correction_kl'),
      knobs: Object.fromEntries(names.map((n) => [n, t(n)])),
      ...(form === 'clip_cov' || form === 'kl_cov' ? { covSelect: t('cov_select') } : {}),
    });
    return o[out];
  };
  const run = (lt: LossType, form: ObjectiveForm, beta = 0) => {
    const ins = inputsFor(lt, beta);
    const g = new Graph();
    const xs = ins.map((i) => g.input(i.name, i.dtype ?? 'float32', i.shape));
    g.output(build(form, 'loss')(g, xs), 'loss');
    const feeds: Record<string, NDArray> = {};
    for (const i of ins) feeds[i.name] = nd(i.shape, i.values);
    return evaluate(g, feeds)[0]!.data[0]!;
  };

  it('gmpo: the loss is veRL geo_mean written out by hand', () => {
    // veRL compute_policy_loss_geo_mean: l = clamp(logp - old, ±20); l' = sgn(A)·min(sgn(A)·l, sgn(A)·clamp(l, -eps, eps_high));
    // ratio = exp(Σ l'·mask / Σ mask); loss = mean over sequences of -A·ratio
    let hand = 0;
    for (let r = 0; r < ROWS; r++) {
      const A = adv[r]!;
      const sgn = Math.sign(A);
      let sum = 0;
      let n = 0;
      for (let t = 0; t < LEN; t++) {
        if (!mask[r]![t]) continue;
        const l = Math.min(Math.max(logp[r]![t]! - oldLogp[r]![t]!, -20), 20);
        sum += sgn * Math.min(sgn * l, sgn * Math.min(Math.max(l, -0.2), 0.28));
        n++;
      }
      hand += (-A * Math.exp(sum / n)) / ROWS;
    }
    const loss = run('gmpo', 'gmpo');
    expect(loss).toBeCloseTo(hand, 12);
    // the batch clips some token log-ratios on the side their advantage pushes
    const clipped = logp.some((row, r) =>
      row.some(
        (v, t) =>
          mask[r]![t] &&
          adv[r]! * (v - oldLogp[r]![t]!) > 0 &&
          (v - oldLogp[r]![t]! > 0.28 || v - oldLogp[r]![t]! < -0.2),
      ),
    );
    expect(clipped).toBe(true);
  });

  // cispo and vespo multiply by a detached weight: finite differences of their value are not their
  // gradient by design; the TRL parity test (src/export/trl/loss-parity.test.ts) checks theirs.
  it("clip_cov and kl_cov: veRL's clip_cov / kl_cov losses written out by hand", () => {
    const total = mask.flat().reduce((a, b) => a + b, 0);
    let clipCov = 0;
    let klCov = 0;
    for (let r = 0; r < ROWS; r++)
      for (let t = 0; t < LEN; t++) {
        if (!mask[r]![t]) continue;
        const A = adv[r]!;
        const lr = logp[r]![t]! - oldLogp[r]![t]!;
        const ratio = Math.exp(lr);
        // veRL clip_cov: max(-A·ratio, -A·clip(ratio)) · corr, corr = 0 on the picked tokens; token-mean
        clipCov += (Math.max(-A * ratio, -A * Math.min(Math.max(ratio, 0.8), 1.28)) * (1 - picked[r]![t]!)) / total;
        // veRL kl_cov: -A·ratio, and on the picked tokens -A·ratio + ppo_kl_coef·|logp - old|; token-mean
        klCov += (-A * ratio + picked[r]![t]! * 0.7 * Math.abs(lr)) / total;
      }
    expect(run('clip_cov', 'clip_cov')).toBeCloseTo(clipCov, 12);
    expect(run('kl_cov', 'kl_cov')).toBeCloseTo(klCov, 12);
  });

  for (const form of ['sapo', 'gmpo', 'clip_cov', 'kl_cov'] as const) {
    it(`${form}: d loss / d logp by autodiff matches central differences (with the KL term)`, () => {
      const res = gradCheck(inputsFor(lossTypes[form], 0.05), build(form, 'loss'));
      expect(res.maxRelError, res.worst).toBeLessThan(1e-6);
    });
  }
});
