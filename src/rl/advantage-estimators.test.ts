import { describe, expect, it } from 'vitest';
import { computeAdvantages } from './advantages.ts';

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
