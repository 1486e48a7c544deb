import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config.ts';
import { covSelection, tokenCovariance, type CovRow } from './cov-select.ts';
import { Rng } from '../util/rng.ts';

// 3 completions, 4 token slots; the last completion has 2 counted tokens.
const rows: CovRow[] = [
  { advantage: 1.5, logp: [-0.1, -2.0, -0.3, -0.2], mask: [1, 1, 1, 1] },
  { advantage: -0.5, logp: [-1.0, -0.05, -3.0, -0.4], mask: [1, 1, 1, 1] },
  { advantage: -1.0, logp: [-0.2, -2.5, 9, 9], mask: [1, 1, 0, 0] },
];

/** veRL's covariance, written per counted token: (A - mean A)(logp - mean logp) over the counted tokens. */
function handCov(): { r: number; t: number; cov: number }[] {
  const tok: { r: number; t: number; a: number; l: number }[] = [];
  rows.forEach((row, r) => row.mask.forEach((m, t) => m && tok.push({ r, t, a: row.advantage, l: row.logp[t]! })));
  const ma = tok.reduce((s, x) => s + x.a, 0) / tok.length;
  const ml = tok.reduce((s, x) => s + x.l, 0) / tok.length;
  return tok.map((x) => ({ r: x.r, t: x.t, cov: (x.a - ma) * (x.l - ml) }));
}

describe('Clip-Cov / KL-Cov token selection (veRL rule)', () => {
  it('covariance over the counted tokens only', () => {
    const cov = tokenCovariance(rows);
    for (const x of handCov()) expect(cov[x.r]![x.t]).toBeCloseTo(x.cov, 12);
    expect(cov[2]![2]).toBe(0); // masked: neither counted nor given a covariance
  });

  it('kl_cov: the max(1, ⌊ratio · n⌋) tokens of largest covariance', () => {
    const sorted = handCov().sort((a, b) => b.cov - a.cov);
    for (const [ratio, k] of [
      [0.0002, 1],
      [0.3, 3],
    ] as const) {
      const sel = covSelection({ ...defaultConfig, loss_type: 'kl_cov', kl_cov_ratio: ratio }, rows, new Rng(1));
      const picked = sel.flatMap((row, r) => row.flatMap((v, t) => (v ? [`${r},${t}`] : [])));
      expect(picked.sort()).toEqual(
        sorted
          .slice(0, k)
          .map((x) => `${x.r},${x.t}`)
          .sort(),
      );
    }
  });

  it('clip_cov: max(1, ⌊ratio · n⌋) tokens drawn among those with lb < cov < ub, reproducibly', () => {
    const c = {
      ...defaultConfig,
      loss_type: 'clip_cov' as const,
      clip_cov_ratio: 0.25,
      clip_cov_lb: 0.2,
      clip_cov_ub: 1.5,
    };
    const inBand = new Set(
      handCov()
        .filter((x) => x.cov > 0.2 && x.cov < 1.5)
        .map((x) => `${x.r},${x.t}`),
    );
    expect(inBand.size).toBeGreaterThan(2); // the draw has a choice to make
    const sel = covSelection(c, rows, new Rng(5));
    const picked = sel.flatMap((row, r) => row.flatMap((v, t) => (v ? [`${r},${t}`] : [])));
    expect(picked).toHaveLength(2); // ⌊0.25 · 10⌋
    for (const p of picked) expect(inBand.has(p), p).toBe(true);
    expect(covSelection(c, rows, new Rng(5))).toEqual(sel);
    // nothing in the band: nothing dropped
    expect(
      covSelection({ ...c, clip_cov_lb: 100, clip_cov_ub: 200 }, rows, new Rng(5))
        .flat()
        .every((v) => v === 0),
    ).toBe(true);
  });

  it('other loss types pick nothing', () => {
    expect(
      covSelection({ ...defaultConfig, loss_type: 'dapo' }, rows, new Rng(1))
        .flat()
        .every((v) => v === 0),
    ).toBe(true);
  });
});
