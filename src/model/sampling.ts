import type { Rng } from '../util/rng.ts';

export interface SamplingParams {
  temperature: number;
  /** 0 disables top-k. */
  topK: number;
  /** 1 disables nucleus sampling. */
  topP: number;
  /** Keep only tokens of probability >= minP × the top token's (transformers' MinPLogitsWarper); 0 or absent = off. */
  minP?: number;
  /**
   * Divides the positive logits (multiplies the negative ones) of every token already in the row,
   * prompt and completion so far, before the temperature (transformers' RepetitionPenaltyLogitsProcessor);
   * 1 or absent = off.
   */
  repetitionPenalty?: number;
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
export function drawToken(
  logits: ArrayLike<number>,
  offset: number,
  vocab: number,
  sp: SamplingParams,
  rng: Rng,
  scratch: Float64Array,
  seen?: ReadonlySet<number>,
): TokenDraw {
  if (scratch.length < 2 * vocab)
    throw new Error(`drawToken: scratch holds ${scratch.length} values, needs ${2 * vocab}`);
  if ((sp.minP ?? 0) > 0 || (sp.repetitionPenalty ?? 1) !== 1)
    return drawProcessed(logits, offset, vocab, sp, rng, seen ?? new Set());
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

/**
 * The probabilities a draw uses under transformers' logits processors, in generate()'s order: the
 * repetition penalty on the raw logits of the tokens in `seen`, then temperature, top-k, top-p and
 * min-p, each on what the one before kept (0 for a removed token). sampling.test.ts checks them against
 * transformers' own processors.
 */
export function processedProbs(
  logits: ArrayLike<number>,
  offset: number,
  vocab: number,
  sp: SamplingParams,
  seen: ReadonlySet<number>,
): Float64Array {
  const inv = 1 / sp.temperature;
  const penalty = sp.repetitionPenalty ?? 1;
  const x = new Float64Array(vocab);
  for (let v = 0; v < vocab; v++) {
    const l = logits[offset + v]!;
    x[v] = (seen.has(v) ? (l < 0 ? l * penalty : l / penalty) : l) * inv;
  }
  const q = softmax(x);
  const order = Array.from({ length: vocab }, (_, v) => v).sort((a, b) => q[b]! - q[a]! || a - b);
  let keep = sp.topK > 0 ? Math.min(sp.topK, vocab) : vocab;
  if (sp.topP < 1) {
    // the nucleus of what top-k kept, renormalised, as TopPLogitsWarper sees it after TopKLogitsWarper
    let kept = 0;
    for (let i = 0; i < keep; i++) kept += q[order[i]!]!;
    let cum = 0;
    for (let i = 0; i < keep; i++) {
      cum += q[order[i]!]! / kept;
      if (cum >= sp.topP) {
        keep = i + 1;
        break;
      }
    }
  }
  const minP = sp.minP ?? 0;
  if (minP > 0) {
    const floor = minP * q[order[0]!]!;
    let i = 1;
    while (i < keep && q[order[i]!]! >= floor) i++;
    keep = i;
  }
  let mass = 0;
  for (let i = 0; i < keep; i++) mass += q[order[i]!]!;
  const out = new Float64Array(vocab);
  for (let i = 0; i < keep; i++) out[order[i]!] = q[order[i]!]! / mass;
  return out;
}

function softmax(x: Float64Array): Float64Array {
  let mx = -Infinity;
  for (const v of x) mx = Math.max(mx, v);
  let sum = 0;
  const out = new Float64Array(x.length);
  for (let v = 0; v < x.length; v++) sum += out[v] = Math.exp(x[v]! - mx);
  for (let v = 0; v < x.length; v++) out[v] = out[v]! / sum;
  return out;
}

/**
 * A draw from processedProbs. As TRL logs it, the reported log-prob and entropy stay those of the
 * tempered distribution without the penalty or truncation (the scoring graph's, so the loss's ratios
 * are unchanged).
 */
function drawProcessed(
  logits: ArrayLike<number>,
  offset: number,
  vocab: number,
  sp: SamplingParams,
  rng: Rng,
  seen: ReadonlySet<number>,
): TokenDraw {
  const p = processedProbs(logits, offset, vocab, sp, seen);
  const x = new Float64Array(vocab);
  for (let v = 0; v < vocab; v++) x[v] = logits[offset + v]! / sp.temperature;
  const tempered = softmax(x);
  let entropy = 0;
  for (const t of tempered) if (t > 0) entropy -= t * Math.log(t);
  const order = Array.from({ length: vocab }, (_, v) => v)
    .filter((v) => p[v]! > 0)
    .sort((a, b) => p[b]! - p[a]! || a - b);
  let u = rng.next();
  let token = order[order.length - 1]!;
  for (const v of order) {
    u -= p[v]!;
    if (u < 0) {
      token = v;
      break;
    }
  }
  return { token, logp: Math.log(tempered[token]!), entropy };
}
