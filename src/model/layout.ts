import { EOS, PAD } from './tokenizer.ts';
import { MASKED } from './transformer.ts';

/**
 * How sequences sit in the fixed-size [rows, promptLen + completionLen] grid shared by the sampler,
 * the scorer and the trainers: prompts are left-padded so every row starts its completion at the same
 * column (the decode loop stays in lockstep), completions are right-padded. Position ids skip the left
 * padding, so a prompt sees the same positions whatever its length.
 */
export interface Layout {
  promptLen: number;
  completionLen: number;
}

export const totalLen = (l: Layout) => l.promptLen + l.completionLen;

export interface PackedBatch {
  rows: number;
  len: number;
  tokens: BigInt64Array; // [rows, len]
  positions: BigInt64Array;
  keyBias: Float32Array; // 0 for real tokens, MASKED for padding
  targets: BigInt64Array; // [rows, len, 1]: the next token
  /** 1 where the target is a completion token (a token the policy produced, EOS included). */
  completionMask: Float32Array;
}

export function leftPad(l: Layout, prompt: number[]): number {
  if (prompt.length > l.promptLen) throw new Error(`prompt of ${prompt.length} tokens exceeds the layout's prompt length ${l.promptLen}`);
  return l.promptLen - prompt.length;
}

/** Completion columns of a fitted grid come in multiples of this, so a run compiles only a few shapes. */
export const COMPLETION_BUCKET = 8;

/**
 * The grid a batch needs: the layout's prompt columns and only as many completion columns as its
 * longest completion, rounded up to COMPLETION_BUCKET. Every forward and backward cost grows with the
 * grid's length (attention with its square), and completions usually stop well before the cap, so
 * scoring and training on the fitted grid skips columns that are padding in every row. Exact: no
 * token of any row is dropped.
 */
export function fitCompletions(l: Layout, completions: number[][]): Layout {
  const longest = completions.reduce((m, c) => Math.max(m, Math.min(c.length, l.completionLen)), 1);
  return { promptLen: l.promptLen, completionLen: bucketed(l, longest) };
}

const bucketed = (l: Layout, columns: number) => Math.min(l.completionLen, Math.ceil(columns / COMPLETION_BUCKET) * COMPLETION_BUCKET);

/** A compiled grid is reused for a batch that needs a shorter one while it is at most this much longer (whole rows). */
export const GRID_REUSE_SLACK = 1.25;

/**
 * The grid to run a batch on, given which grids already have a compiled session: the fitted grid
 * (fitCompletions) if compiled, else the shortest compiled grid at most GRID_REUSE_SLACK times as long,
 * else the fitted grid (to be compiled). A new grid costs far more than a few padding columns: its
 * session is compiled and its first runs allocate fresh memory for every intermediate tensor (seconds
 * for a 512-row update), so a run whose longest completion wanders across buckets would otherwise
 * keep rebuilding grids that the session cache (Policy.session) has just evicted.
 */
export function chooseGrid(l: Layout, completions: number[][], compiled: (grid: Layout) => boolean): Layout {
  const fitted = fitCompletions(l, completions);
  const longest = totalLen(fitted) * GRID_REUSE_SLACK;
  for (let c = fitted.completionLen; l.promptLen + c <= longest; c = bucketed(l, c + COMPLETION_BUCKET)) {
    const grid = { promptLen: l.promptLen, completionLen: c };
    if (compiled(grid)) return grid;
    if (c === l.completionLen) break;
  }
  return fitted;
}

/** Packs prompts and completions (completion tokens may end with EOS; they are truncated to completionLen). */
export function pack(l: Layout, prompts: number[][], completions: number[][]): PackedBatch {
  const rows = prompts.length;
  const len = totalLen(l);
  const tokens = new BigInt64Array(rows * len);
  const positions = new BigInt64Array(rows * len);
  const keyBias = new Float32Array(rows * len).fill(MASKED);
  const targets = new BigInt64Array(rows * len);
  const completionMask = new Float32Array(rows * len);
  for (let r = 0; r < rows; r++) {
    const pad = leftPad(l, prompts[r]!);
    const comp = completions[r]!.slice(0, l.completionLen);
    const seq = [...prompts[r]!, ...comp];
    for (let j = 0; j < len; j++) {
      const k = j - pad;
      const tok = k >= 0 && k < seq.length ? seq[k]! : PAD;
      tokens[r * len + j] = BigInt(tok);
      positions[r * len + j] = BigInt(Math.max(0, k));
      if (k >= 0 && k < seq.length) keyBias[r * len + j] = 0;
      const next = k + 1;
      if (next >= 0 && next < seq.length) {
        targets[r * len + j] = BigInt(seq[next]!);
        if (next >= prompts[r]!.length) completionMask[r * len + j] = 1;
      }
    }
  }
  return { rows, len, tokens, positions, keyBias, targets, completionMask };
}

/** Column of the grid that predicts completion token i (the token before it). */
export const predictingColumn = (l: Layout, i: number) => l.promptLen - 1 + i;

export { EOS };
