import { describe, expect, it } from 'vitest';
import { maxReward, overlongPenalty, shapeReward, targetLengthTerm } from './reward.ts';
import type { Verdict } from './types.ts';

const v = (correctness: number, format: number, partial?: number): Verdict => ({
  correct: correctness === 1,
  components: { correctness, format, ...(partial === undefined ? {} : { partial }) },
  reason: '',
});

describe('shapeReward', () => {
  it('follows TinyZero by default: 1.0 right, 0.1 well-formed wrong, 0 without an answer', () => {
    const r = (x: Verdict) => shapeReward(x, { completionLength: 20, maxLength: 128 }).total;
    expect(r(v(1, 1))).toBeCloseTo(1, 12);
    expect(r(v(0, 1))).toBeCloseTo(0.1, 12);
    expect(r(v(0, 0))).toBe(0);
    expect(r(v(1, 0))).toBeCloseTo(0.9, 12);
    expect(r(v(0, 1, 0.5))).toBeCloseTo(0.1, 12);
    expect(maxReward()).toBeCloseTo(1, 12);
  });
  it('weights partial credit and reports weighted components that sum to the total', () => {
    const s = shapeReward(v(0, 1, 0.5), {
      completionLength: 20,
      maxLength: 128,
      weights: { correctness: 0.6, format: 0.1, partial: 0.3 },
    });
    expect(s.components).toEqual({ correctness: 0, format: 0.1, partial: 0.15, overlong: 0, length: 0 });
    expect(s.total).toBeCloseTo(0.25, 12);
    expect(s.raw).toEqual({ correctness: 0, format: 1, partial: 0.5 });
  });
  it('applies the DAPO soft overlong window', () => {
    const cfg = { enabled: true, cacheLength: 20, penalty: 1 };
    expect(overlongPenalty(80, 100, cfg)).toBe(0);
    expect(overlongPenalty(90, 100, cfg)).toBeCloseTo(-0.5, 12);
    expect(overlongPenalty(95, 100, cfg)).toBeCloseTo(-0.75, 12);
    expect(overlongPenalty(100, 100, cfg)).toBe(-1);
    expect(overlongPenalty(130, 100, cfg)).toBe(-1);
    expect(overlongPenalty(99, 100, { ...cfg, enabled: false })).toBe(0);
    expect(overlongPenalty(90, 100, { ...cfg, penalty: 0.5 })).toBeCloseTo(-0.25, 12);
    const s = shapeReward(v(1, 1), { completionLength: 90, maxLength: 100, overlong: cfg });
    expect(s.total).toBeCloseTo(0.5, 12);
  });
  it('pulls toward a target length when asked', () => {
    expect(targetLengthTerm(50, { target: 50, weight: 0.2 })).toBeCloseTo(0, 12);
    expect(targetLengthTerm(75, { target: 50, weight: 0.2 })).toBeCloseTo(-0.1, 12);
    expect(targetLengthTerm(500, { target: 50, weight: 0.2 })).toBeCloseTo(-0.2, 12);
    expect(targetLengthTerm(10, undefined)).toBe(0);
    expect(
      shapeReward(v(1, 1), { completionLength: 25, maxLength: 100, targetLength: { target: 50, weight: 0.2 } }).total,
    ).toBeCloseTo(0.9, 12);
  });
});
