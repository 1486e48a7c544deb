import { describe, expect, it } from 'vitest';
import { gradCheck, type CheckInput } from '../engine/gradcheck.ts';
import { Graph, type Tensor } from '../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { aggregationWeights } from './advantages.ts';
import { defaultConfig, type LossType } from './config.ts';
import { objectiveScalars, policyObjective, type ObjectiveForm } from './objective.ts';
import { LEN, logp, mask, MAXLEN, oldLogp, refLogp, ROWS } from './objective-fixture.ts';

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
    // veRL compute_policy_loss_geo_mean: l = clamp(logp - old, ±20); l' = sgn(A)·min(sgn(A)·l, sgn(A)·clamp(l, -eps,
    // eps_high));
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
