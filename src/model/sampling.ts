import type { Rng } from '../util/rng.ts';

export interface SamplingParams {
  temperature: number;
  /** 0 disables top-k. */
  topK: number;
  /** 1 disables nucleus sampling. */
  topP: number;
}

export interface TokenDraw {
  token: number;
  /** log-prob of the token under the temperature-scaled, untruncated distribution (as TRL logs it). */
  logp: number;
  /** entropy of that distribution. */
  entropy: number;
}

/**
 * Draws one token from a row of logits in float64. Truncation (top-k, top-p) only restricts which
 * tokens can be drawn; the log-prob reported is the full tempered distribution's, so it matches the
 * scoring graph and the ratios in the loss.
 */
export function drawToken(logits: ArrayLike<number>, offset: number, vocab: number, sp: SamplingParams, rng: Rng, scratch: Float64Array): TokenDraw {
  const inv = 1 / sp.temperature;
  let mx = -Infinity;
  for (let v = 0; v < vocab; v++) mx = Math.max(mx, logits[offset + v]! * inv);
  let sum = 0;
  for (let v = 0; v < vocab; v++) sum += Math.exp(logits[offset + v]! * inv - mx);
  const lse = mx + Math.log(sum);
  let entropy = 0;
  for (let v = 0; v < vocab; v++) {
    const lp = logits[offset + v]! * inv - lse;
    scratch[v] = lp;
    entropy -= Math.exp(lp) * lp;
  }
  let allowed: number[] | null = null;
  if ((sp.topK > 0 && sp.topK < vocab) || sp.topP < 1) {
    const order = Array.from({ length: vocab }, (_, v) => v).sort((a, b) => scratch[b]! - scratch[a]! || a - b);
    let keep = sp.topK > 0 ? Math.min(sp.topK, vocab) : vocab;
    if (sp.topP < 1) {
      let cum = 0;
      for (let i = 0; i < keep; i++) {
        cum += Math.exp(scratch[order[i]!]!);
        if (cum >= sp.topP) {
          keep = i + 1;
          break;
        }
      }
    }
    allowed = order.slice(0, keep);
  }
  const candidates = allowed ?? Array.from({ length: vocab }, (_, v) => v);
  let mass = 0;
  for (const v of candidates) mass += Math.exp(scratch[v]!);
  let u = rng.next() * mass;
  let token = candidates[candidates.length - 1]!;
  for (const v of candidates) {
    u -= Math.exp(scratch[v]!);
    if (u < 0) {
      token = v;
      break;
    }
  }
  return { token, logp: scratch[token]!, entropy };
}
