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
  if (prompt.length > l.promptLen)
    throw new Error(`prompt of ${prompt.length} tokens exceeds the layout's prompt length ${l.promptLen}`);
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

const bucketed = (l: Layout, columns: number) =>
  Math.min(l.completionLen, Math.ceil(columns / COMPLETION_BUCKET) * COMPLETION_BUCKET);

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

/**
 * Which rows share a prompt: `first[u]` is the first row with distinct prompt u, `rowOf[r]` the
 * distinct prompt of row r. A GRPO batch repeats each prompt G times; the prompt passes of sampling,
 * scoring and the update run once per distinct prompt.
 */
export interface PromptGroups {
  rowOf: number[];
  first: number[];
}

export function promptGroups(prompts: number[][]): PromptGroups {
  const index = new Map<string, number>();
  const first: number[] = [];
  const rowOf = prompts.map((p, r) => {
    const key = p.join(',');
    let u = index.get(key);
    if (u === undefined) {
      index.set(key, (u = first.length));
      first.push(r);
    }
    return u;
  });
  return { rowOf, first };
}

/**
 * A packed grid split for graphs that pass each distinct prompt once (transformer.ts completionHidden):
 * the distinct prompts' columns [distinct, promptLen], which one each row continues, and every row's
 * completion columns [rows, len - promptLen] with their targets (entry i = completion token i).
 */
export interface SharedBatch {
  rows: number;
  distinct: number; // prompt rows in the graph: the distinct prompts, padded up to `slots`
  promptLen: number;
  len: number;
  rowOf: BigInt64Array; // [rows]
  promptTokens: BigInt64Array; // [distinct, promptLen]
  promptPositions: BigInt64Array;
  promptKeyBias: Float32Array;
  tokens: BigInt64Array; // [rows, len - promptLen]
  positions: BigInt64Array;
  keyBias: Float32Array;
  targets: BigInt64Array; // [rows, len - promptLen, 1]
}

/**
 * Splits a packed grid (pack) whose rows' prompts are grouped by `groups` (promptGroups). Rows with
 * the same prompt share one prompt row. `slots` pads the distinct prompts to at least that many (repeating one; no row
 * points at
 * a pad) so that a run whose batches hold the same number of groups keeps one graph shape.
 */
export function splitShared(
  b: Pick<PackedBatch, 'rows' | 'len' | 'tokens' | 'positions' | 'keyBias' | 'targets'>,
  promptLen: number,
  groups: PromptGroups,
  slots = 0,
): SharedBatch {
  const { rows, len } = b;
  const cl = len - promptLen;
  if (groups.rowOf.length !== rows) throw new Error(`splitShared: ${groups.rowOf.length} prompts for ${rows} rows`);
  if (promptLen < 1 || cl < 1)
    throw new Error(`splitShared: a grid of ${len} columns cannot split at prompt length ${promptLen}`);
  const rowOf = BigInt64Array.from(groups.rowOf, BigInt);
  const first = [...groups.first];
  while (first.length < slots) first.push(first[first.length - 1]!);
  const u = first.length;
  const promptTokens = new BigInt64Array(u * promptLen);
  const promptPositions = new BigInt64Array(u * promptLen);
  const promptKeyBias = new Float32Array(u * promptLen);
  first.forEach((r, i) => {
    promptTokens.set(b.tokens.subarray(r * len, r * len + promptLen), i * promptLen);
    promptPositions.set(b.positions.subarray(r * len, r * len + promptLen), i * promptLen);
    promptKeyBias.set(b.keyBias.subarray(r * len, r * len + promptLen), i * promptLen);
  });
  const tokens = new BigInt64Array(rows * cl);
  const positions = new BigInt64Array(rows * cl);
  const keyBias = new Float32Array(rows * cl);
  const targets = new BigInt64Array(rows * cl);
  for (let r = 0; r < rows; r++) {
    tokens.set(b.tokens.subarray(r * len + promptLen, (r + 1) * len), r * cl);
    positions.set(b.positions.subarray(r * len + promptLen, (r + 1) * len), r * cl);
    keyBias.set(b.keyBias.subarray(r * len + promptLen, (r + 1) * len), r * cl);
    targets.set(b.targets.subarray(r * len + promptLen - 1, (r + 1) * len - 1), r * cl);
  }
  return {
    rows,
    distinct: u,
    promptLen,
    len,
    rowOf,
    promptTokens,
    promptPositions,
    promptKeyBias,
    tokens,
    positions,
    keyBias,
    targets,
  };
}

/** Column of the grid that predicts completion token i (the token before it). */
export const predictingColumn = (l: Layout, i: number) => l.promptLen - 1 + i;

export { EOS };
