import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.ts';
import { drawToken } from './sampling.ts';

const logits = [2, 1, 0.5, -1, 0];
const vocab = logits.length;

/** Float64 reference: the tempered distribution's probabilities. */
function probs(t: number): number[] {
  const z = logits.map((x) => x / t);
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function frequencies(t: number, topK: number, topP: number, n: number): number[] {
  const rng = new Rng(7);
  const scratch = new Float64Array(2 * vocab);
  const counts = new Array<number>(vocab).fill(0);
  for (let i = 0; i < n; i++)
    counts[drawToken(logits, 0, vocab, { temperature: t, topK, topP }, rng, scratch).token]!++;
  return counts.map((c) => c / n);
}

describe('drawToken', () => {
  it('reports the full tempered log-prob and entropy, computed by hand in float64', () => {
    const p = probs(0.7);
    const d = drawToken(
      [9, ...logits],
      1,
      vocab,
      { temperature: 0.7, topK: 0, topP: 1 },
      new Rng(1),
      new Float64Array(2 * vocab),
    );
    expect(d.logp).toBeCloseTo(Math.log(p[d.token]!), 12);
    expect(d.entropy).toBeCloseTo(-p.reduce((a, q) => a + q * Math.log(q), 0), 12);
  });

  it('draws tokens with the softmax probabilities', () => {
    const f = frequencies(1, 0, 1, 40_000);
    probs(1).forEach((q, v) => expect(Math.abs(f[v]! - q)).toBeLessThan(0.01));
  });

  it('top-k and top-p only restrict which tokens can be drawn; the log-prob stays the full distribution’s', () => {
    const k2 = frequencies(1, 2, 1, 20_000);
    expect(k2[2]! + k2[3]! + k2[4]!).toBe(0);
    const p = probs(1);
    expect(k2[0]!).toBeCloseTo(p[0]! / (p[0]! + p[1]!), 1);
    // The most likely token holds 0.56 of the mass and the top two 0.77: top-p 0.6 keeps them, top-p 0.4 only the
    // first.
    expect(
      frequencies(1, 0, 0.6, 5_000)
        .slice(2)
        .every((x) => x === 0),
    ).toBe(true);
    expect(frequencies(1, 0, 0.4, 1_000)[0]).toBe(1);
    const d = drawToken(
      logits,
      0,
      vocab,
      { temperature: 1, topK: 1, topP: 1 },
      new Rng(3),
      new Float64Array(2 * vocab),
    );
    expect(d.token).toBe(0);
    expect(d.logp).toBeCloseTo(Math.log(p[0]!), 12);
  });

  it('says so when the scratch buffer is too small', () => {
    expect(() =>
      drawToken(logits, 0, vocab, { temperature: 1, topK: 0, topP: 1 }, new Rng(1), new Float64Array(vocab)),
    ).toThrow(/scratch holds 5 values, needs 10/);
  });
});

describe('drawToken with min_p and repetition_penalty', () => {
  const draws = (sp: { minP?: number; repetitionPenalty?: number }, seen: Set<number>, n = 4000) => {
    const rng = new Rng(3);
    const scratch = new Float64Array(2 * vocab);
    const counts = new Array<number>(vocab).fill(0);
    for (let i = 0; i < n; i++)
      counts[drawToken(logits, 0, vocab, { temperature: 1, topK: 0, topP: 1, ...sp }, rng, scratch, seen).token]!++;
    return counts;
  };

  it('min_p keeps only tokens at least min_p × the top probability; the log-prob stays the full distribution’s', () => {
    const p = probs(1);
    const counts = draws({ minP: 0.3 }, new Set());
    p.forEach((q, v) => (q < 0.3 * p[0]! ? expect(counts[v]).toBe(0) : expect(counts[v]).toBeGreaterThan(0)));
    const d = drawToken(
      logits,
      0,
      vocab,
      { temperature: 1, topK: 0, topP: 1, minP: 0.3 },
      new Rng(1),
      new Float64Array(2 * vocab),
    );
    expect(d.logp).toBeCloseTo(Math.log(p[d.token]!), 12);
  });

  it('a large repetition_penalty steers away from the seen tokens; the log-prob is the unpenalised one', () => {
    // logit 2 → 2e-6 (about e^0 / (e^0 + e^1 + e^0.5 + e^0) = 0.19 instead of 0.52), logit -1 → -1e6 (never)
    const counts = draws({ repetitionPenalty: 1e6 }, new Set([0, 3]));
    expect(counts[3]).toBe(0);
    expect(Math.abs(counts[0]! / 4000 - 1 / (2 + Math.E + Math.exp(0.5)))).toBeLessThan(0.03);
    const d = drawToken(
      logits,
      0,
      vocab,
      { temperature: 1, topK: 0, topP: 1, repetitionPenalty: 1e6 },
      new Rng(1),
      new Float64Array(2 * vocab),
      new Set([0]),
    );
    expect(d.logp).toBeCloseTo(Math.log(probs(1)[d.token]!), 12);
  });
});
