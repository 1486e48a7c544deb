/**
 * Clip-Cov and KL-Cov (The Entropy Mechanism of RL for Reasoning LMs, Cui et al., 2025; veRL's
 * loss_mode clip_cov / kl_cov): the few tokens whose log-prob and advantage covary most drive
 * entropy collapse, so the update treats them apart. This picks them, per minibatch, by veRL's rule:
 *   cov_t = (A_t − mean A) · (logp_t − mean logp)   means over the minibatch's counted tokens
 *   clip_cov: from the tokens with clip_cov_lb < cov_t < clip_cov_ub, max(1, ⌊clip_cov_ratio · n⌋)
 *             at random; their loss and gradient are dropped (veRL's corr = 0)
 *   kl_cov:   the max(1, ⌊kl_cov_ratio · n⌋) tokens of largest cov_t; they get ppo_kl_coef · |logp − old|
 *             added to their (unclipped) loss
 * veRL selects with the current log-probs at each minibatch; here the selection is made once per
 * step from the sampling-time log-probs (the same numbers on the first pass over a batch) and held
 * through the step's μ passes. veRL also leaves out of clip_cov's draw tokens already clipped by the
 * ratio: at the sampling-time log-probs the ratio is 1 and none is.
 */
import type { RunConfig } from './config.ts';
import type { Rng } from '../util/rng.ts';
import { objectiveForm } from './objective-form.ts';

export interface CovRow {
  advantage: number;
  logp: number[];
  mask: number[];
}

/** The covariance of each counted token, 0 elsewhere. */
export function tokenCovariance(rows: CovRow[]): number[][] {
  let n = 0;
  let sumA = 0;
  let sumL = 0;
  for (const r of rows)
    r.mask.forEach((m, t) => {
      if (!m) return;
      n++;
      sumA += r.advantage;
      sumL += r.logp[t]!;
    });
  const meanA = n ? sumA / n : 0;
  const meanL = n ? sumL / n : 0;
  return rows.map((r) => r.mask.map((m, t) => (m ? (r.advantage - meanA) * (r.logp[t]! - meanL) : 0)));
}

/** 1 on the tokens the loss_type's form treats apart, 0 elsewhere (all 0 for other forms). */
export function covSelection(
  c: Pick<RunConfig, 'loss_type' | 'clip_cov_ratio' | 'clip_cov_lb' | 'clip_cov_ub' | 'kl_cov_ratio'>,
  rows: CovRow[],
  rng: Rng,
): number[][] {
  const out = rows.map((r) => r.mask.map(() => 0));
  const form = objectiveForm(c.loss_type);
  if (form !== 'clip_cov' && form !== 'kl_cov') return out;
  const cov = tokenCovariance(rows);
  const counted: { r: number; t: number; cov: number }[] = [];
  rows.forEach((row, r) => row.mask.forEach((m, t) => m && counted.push({ r, t, cov: cov[r]![t]! })));
  if (!counted.length) return out;
  let chosen: { r: number; t: number }[];
  if (form === 'clip_cov') {
    const k = Math.max(1, Math.floor(c.clip_cov_ratio * counted.length));
    const inBand = counted.filter((x) => x.cov > c.clip_cov_lb && x.cov < c.clip_cov_ub);
    chosen = rng.shuffle(inBand).slice(0, k);
  } else {
    const k = Math.max(1, Math.floor(c.kl_cov_ratio * counted.length));
    // largest first; ties by position, so the choice is reproducible
    chosen = [...counted].sort((a, b) => b.cov - a.cov || a.r - b.r || a.t - b.t).slice(0, k);
  }
  for (const x of chosen) out[x.r]![x.t] = 1;
  return out;
}
