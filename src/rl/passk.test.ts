import { describe, expect, it } from 'vitest';
import { meanPassAtK, passAt1StandardError } from './passk.ts';

describe('standard error of held-out pass@1', () => {
  it('is the standard error of the mean of the per-prompt pass rates c_i / n', () => {
    const correct = [0, 2, 4, 8, 8, 1];
    const n = 8;
    const x = correct.map((c) => c / n);
    const m = x.reduce((a, b) => a + b, 0) / x.length;
    expect(meanPassAtK(correct, n, [1])['1']).toBeCloseTo(m, 12);
    const se = Math.sqrt(x.reduce((a, v) => a + (v - m) ** 2, 0) / (x.length - 1) / x.length);
    expect(passAt1StandardError(correct, n)).toBeCloseTo(se, 12);
  });
  it(
    'meets the binomial bounds at p = 0.5: 0.5 / sqrt(P) when prompts are all-or-nothing, about 0.5 / ' +
      'sqrt(nP) when they are alike',
    () => {
      const P = 64;
      const n = 8;
      const allOrNothing = Array.from({ length: P }, (_, i) => (i % 2 ? n : 0));
      expect(passAt1StandardError(allOrNothing, n)).toBeCloseTo(0.5 / Math.sqrt(P - 1), 9);
      // Every prompt at exactly n/2 correct: the spread between prompts is 0 (the estimate from the data cannot see
      // binomial noise it did not draw).
      expect(passAt1StandardError(new Array(P).fill(n / 2), n)).toBe(0);
      expect(Number.isNaN(passAt1StandardError([3], n))).toBe(true);
    },
  );
});
