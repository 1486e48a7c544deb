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
 * scoring graph and the ratios in the loss. `scratch` holds at least 2 × vocab values (log-probs,
 * then probabilities): one exp per token, and nothing is allocated unless truncation is on.
 */
export function drawToken(logits: ArrayLike<number>, offset: number, vocab: number, sp: SamplingParams, rng: Rng, scratch: Float64Array): TokenDraw {
  if (scratch.length < 2 * vocab) throw new Error(`drawToken: scratch holds ${scratch.length} values, needs ${2 * vocab}`);
  const inv = 1 / sp.temperature;
  let mx = -Infinity;
  for (let v = 0; v < vocab; v++) mx = Math.max(mx, logits[offset + v]! * inv);
  let sum = 0;
  for (let v = 0; v < vocab; v++) {
    const e = Math.exp(logits[offset + v]! * inv - mx);
    scratch[vocab + v] = e;
    sum += e;
  }
  const lse = mx + Math.log(sum);
  let entropy = 0;
  for (let v = 0; v < vocab; v++) {
    const lp = logits[offset + v]! * inv - lse;
    const p = scratch[vocab + v]! / sum;
    scratch[v] = lp;
    scratch[vocab + v] = p;
    entropy -= p * lp;
  }
  if ((sp.topK > 0 && sp.topK < vocab) || sp.topP < 1) return drawTruncated(vocab, sp, rng, scratch, entropy);
  let mass = 0;
  for (let v = 0; v < vocab; v++) mass += scratch[vocab + v]!;
  let u = rng.next() * mass;
  let token = vocab - 1;
  for (let v = 0; v < vocab; v++) {
    u -= scratch[vocab + v]!;
    if (u < 0) {
      token = v;
      break;
    }
  }
  return { token, logp: scratch[token]!, entropy };
}

/** The draw restricted to the top-k tokens and/or the nucleus of mass top-p (scratch as in drawToken). */
function drawTruncated(vocab: number, sp: SamplingParams, rng: Rng, scratch: Float64Array, entropy: number): TokenDraw {
  const order = Array.from({ length: vocab }, (_, v) => v).sort((a, b) => scratch[b]! - scratch[a]! || a - b);
  let keep = sp.topK > 0 ? Math.min(sp.topK, vocab) : vocab;
  if (sp.topP < 1) {
    let cum = 0;
    for (let i = 0; i < keep; i++) {
      cum += scratch[vocab + order[i]!]!;
      if (cum >= sp.topP) {
        keep = i + 1;
        break;
      }
    }
  }
  const candidates = order.slice(0, keep);
  let mass = 0;
  for (const v of candidates) mass += scratch[vocab + v]!;
  let u = rng.next() * mass;
  let token = candidates[candidates.length - 1]!;
  for (const v of candidates) {
    u -= scratch[vocab + v]!;
    if (u < 0) {
      token = v;
      break;
    }
  }
  return { token, logp: scratch[token]!, entropy };
}
