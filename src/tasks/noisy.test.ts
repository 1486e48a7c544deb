import { describe, expect, it } from 'vitest';
import { arithmetic } from './families/arithmetic.ts';
import { applyNoise, NoisyVerifier } from './noisy.ts';

describe('noisy verifier', () => {
  const inst = arithmetic.generate(1);
  const right = inst.reference;
  const wrongC = '<think>x</think><answer>1</answer>';

  it('flips correct->wrong at about pFn and wrong->correct at about pFp over 10k draws', () => {
    const nv = new NoisyVerifier(arithmetic, { pFn: 0.2, pFp: 0.05, seed: 7 });
    let fn = 0;
    let fp = 0;
    const N = 10_000;
    for (let i = 0; i < N; i++) {
      const a = nv.verify(inst, right);
      if (a.flipped === 'fn') {
        fn++;
        expect(a.correct).toBe(false);
        expect(a.components.correctness).toBe(0);
        expect(a.trueVerdict.correct).toBe(true);
      } else expect(a.flipped).toBeNull();
      const b = nv.verify(inst, wrongC);
      if (b.flipped === 'fp') {
        fp++;
        expect(b.correct).toBe(true);
        expect(b.components.correctness).toBe(1);
        expect(b.trueVerdict.correct).toBe(false);
      } else expect(b.flipped).toBeNull();
    }
    // 4 standard deviations of a binomial proportion.
    expect(Math.abs(fn / N - 0.2)).toBeLessThan(4 * Math.sqrt((0.2 * 0.8) / N));
    expect(Math.abs(fp / N - 0.05)).toBeLessThan(4 * Math.sqrt((0.05 * 0.95) / N));
  });

  it('never flips with p = 0, always with p = 1', () => {
    const none = new NoisyVerifier(arithmetic, { pFn: 0, pFp: 0, seed: 1 });
    const all = new NoisyVerifier(arithmetic, { pFn: 1, pFp: 1, seed: 1 });
    for (let i = 0; i < 100; i++) {
      expect(none.verify(inst, right).flipped).toBeNull();
      expect(all.verify(inst, right).flipped).toBe('fn');
      expect(all.verify(inst, wrongC).flipped).toBe('fp');
    }
  });

  it('is reproducible: same seed and key give the same flips, streams resume from state', () => {
    const a = new NoisyVerifier(arithmetic, { pFn: 0.5, pFp: 0.5, seed: 3 });
    const b = new NoisyVerifier(arithmetic, { pFn: 0.5, pFp: 0.5, seed: 3 });
    const keyed = Array.from({ length: 200 }, (_, i) => a.verify(inst, right, undefined, `step1:${i}`).flipped);
    expect(Array.from({ length: 200 }, (_, i) => b.verify(inst, right, undefined, `step1:${i}`).flipped)).toEqual(
      keyed,
    );
    const c = new NoisyVerifier(arithmetic, { pFn: 0.5, pFp: 0.5, seed: 3 });
    for (let i = 0; i < 10; i++) c.verify(inst, right);
    const resumed = new NoisyVerifier(arithmetic, c.config, c.getState());
    expect(Array.from({ length: 50 }, () => resumed.verify(inst, right).flipped)).toEqual(
      Array.from({ length: 50 }, () => c.verify(inst, right).flipped),
    );
  });

  it('rejects bad probabilities and says why in the reason', () => {
    expect(() => new NoisyVerifier(arithmetic, { pFn: 1.5, pFp: 0, seed: 1 })).toThrow(/pFn/);
    expect(() => new NoisyVerifier(arithmetic, { pFn: 0, pFp: Number.NaN, seed: 1 })).toThrow(/pFp/);
    const v = applyNoise(
      { correct: true, components: { correctness: 1, format: 1 }, reason: 'correct' },
      { pFn: 1, pFp: 0 },
      0.5,
    );
    expect(v.reason).toMatch(/false negative.*correct/);
    expect(v.components.format).toBe(1);
  });
});
