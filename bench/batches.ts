/**
 * The benchmark's fixed inputs, the same for every engine (Node, the browser bench worker and the
 * PyTorch peer): the run config, the sampling benchmark's prompt rows, and one GRPO update's batch
 * (built from sampled completions, sliced for slow adapters, converted to typed arrays once).
 * No DOM and no Node APIs here.
 */
import type { RunConfig } from '../src/rl/config.ts';
import { defaultConfig, validateConfig } from '../src/rl/config.ts';
import {
  fitCompletions,
  pack,
  predictingColumn,
  promptGroups,
  splitShared,
  totalLen,
  type Layout,
  type SharedBatch,
} from '../src/model/layout.ts';
import { encode } from '../src/model/tokenizer.ts';
import { aggregationWeights, computeAdvantages } from '../src/rl/advantages.ts';
import { getTaskFamily } from '../src/tasks/registry.ts';
import { Rng } from '../src/util/rng.ts';

/** The run config every engine uses: the defaults (P=8 prompts × G=8 generations, 48-token cap, GRPO) on arithmetic. */
export function benchRunConfig(difficulty: Record<string, number | string>): RunConfig {
  return validateConfig({ ...defaultConfig, task: 'arithmetic', difficulty, seed: 0 });
}

/** Seeds of the sampling benchmark's prompts (away from training and evaluation seeds). */
const SAMPLE_SEED = 30_000_000;

/** The P prompts of the sampling benchmark, each repeated G times (row r = group floor(r / G)). */
export function samplingRows(config: RunConfig): number[][] {
  const fam = getTaskFamily(config.task);
  const prompts = Array.from({ length: config.prompts_per_step }, (_, i) =>
    encode(fam.generate(SAMPLE_SEED + i, config.difficulty).prompt),
  );
  return prompts.flatMap((p) => new Array<number[]>(config.num_generations).fill(p));
}

/**
 * One GRPO update's inputs, JSON-serialisable so the PyTorch peer and the browser get the very same
 * numbers. Grids are flattened [rows, len].
 */
export interface UpdateBatch {
  rows: number;
  len: number;
  promptLen: number;
  completionLen: number;
  prompts: number[][];
  completions: number[][];
  tokens: number[];
  positions: number[];
  key_bias: number[];
  targets: number[];
  old_logp: number[];
  advantages: number[];
  weights: number[];
  mask: number[];
  seq_len: number[];
  inv_temperature: number;
  clip_low: number;
  clip_high: number;
  /** Completion tokens in the batch (the update's token count). */
  tokens_counted: number;
  lr: number;
}

/**
 * Builds the update batch from sampled completions. Rewards are synthetic (seeded coin flips per
 * completion, so every group has signal whatever the model's accuracy) and the old log-probs are the
 * sampling-time ones shifted by a seeded ±0.3, so the ratio moves away from 1 and both clip branches
 * are exercised by the correctness check. Neither changes the amount of work.
 */
export function makeUpdateBatch(
  runLayout: Layout,
  config: RunConfig,
  prompts: number[][],
  completions: { tokens: number[]; logp: number[] }[],
  seed = 7,
): UpdateBatch {
  const rng = new Rng(seed);
  const rows = prompts.length;
  // The grid the trainer would update on: completion columns fitted to the batch, for every engine.
  const layout = fitCompletions(
    runLayout,
    completions.map((c) => c.tokens),
  );
  const len = totalLen(layout);
  const G = config.num_generations;
  const comps = completions.map((c) => c.tokens.slice(0, layout.completionLen));
  const p = pack(layout, prompts, comps);
  const rewards: number[][] = [];
  for (let g = 0; g < rows / G; g++) rewards.push(Array.from({ length: G }, () => (rng.next() < 0.5 ? 1 : 0)));
  const adv = computeAdvantages(
    rewards,
    rewards.map((r) => r.map((x) => x > 0)),
    config,
  );
  const masks = comps.map((t) => t.map(() => 1));
  const batchTokens = masks.reduce((a, m) => a + m.length, 0);
  const w = aggregationWeights(masks, config.loss_type, config.max_completion_length, batchTokens);
  const grid = () => new Array<number>(rows * len).fill(0);
  const old = grid();
  const advantages = grid();
  const weights = grid();
  const mask = grid();
  comps.forEach((t, r) => {
    for (let i = 0; i < t.length; i++) {
      const col = r * len + predictingColumn(layout, i);
      old[col] = Math.fround(completions[r]!.logp[i]! + (rng.next() - 0.5) * 0.6);
      advantages[col] = Math.fround(adv[Math.floor(r / G)]![r % G]!);
      weights[col] = Math.fround(w[r]![i]!);
      mask[col] = 1;
    }
  });
  return {
    rows,
    len,
    promptLen: layout.promptLen,
    completionLen: layout.completionLen,
    prompts,
    completions: comps,
    tokens: Array.from(p.tokens, Number),
    positions: Array.from(p.positions, Number),
    key_bias: Array.from(p.keyBias),
    targets: Array.from(p.targets, Number),
    old_logp: old,
    advantages,
    weights,
    mask,
    seq_len: comps.map((t) => Math.max(1, t.length)),
    inv_temperature: 1 / config.temperature,
    clip_low: 1 - config.epsilon,
    clip_high: 1 + config.epsilon_high,
    tokens_counted: batchTokens,
    lr: config.learning_rate,
  };
}

/** The batch as typed arrays, converted once (outside the timed region, as the trainer's pack() is cheap). */
export interface PreparedBatch {
  b: UpdateBatch;
  old: Float32Array;
  adv: Float32Array;
  weights: Float32Array;
  mask: Float32Array;
  seqLen: Float32Array;
  shared: SharedBatch;
}

export function prepare(b: UpdateBatch): PreparedBatch {
  const i64 = (a: number[]) => BigInt64Array.from(a, (v) => BigInt(v));
  return {
    b,
    old: Float32Array.from(b.old_logp),
    adv: Float32Array.from(b.advantages),
    weights: Float32Array.from(b.weights),
    mask: Float32Array.from(b.mask),
    seqLen: Float32Array.from(b.seq_len),
    shared: splitShared(
      {
        rows: b.rows,
        len: b.len,
        tokens: i64(b.tokens),
        positions: i64(b.positions),
        keyBias: Float32Array.from(b.key_bias),
        targets: i64(b.targets),
      },
      b.promptLen,
      promptGroups(b.prompts),
    ),
  };
}

/** The sampling benchmark's inputs for the PyTorch peer. */
export function samplingBatch(
  config: RunConfig,
  layout: Layout,
): { rows: number[][]; promptLen: number; completionLen: number; temperature: number } {
  return {
    rows: samplingRows(config),
    promptLen: layout.promptLen,
    completionLen: layout.completionLen,
    temperature: config.temperature,
  };
}

/**
 * The first `rows` rows (whole groups) of a batch, e.g. for the slow software WebGPU adapter. Per-row
 * values are unchanged, so log-probs compare with the full batch's; the per-token weights are rescaled
 * to the smaller batch (loss_type grpo: 1 / (sequence length × rows)).
 */
export function sliceBatch(b: UpdateBatch, rows: number): UpdateBatch {
  const n = rows * b.len;
  const scale = b.rows / rows;
  return {
    ...b,
    rows,
    prompts: b.prompts.slice(0, rows),
    completions: b.completions.slice(0, rows),
    tokens: b.tokens.slice(0, n),
    positions: b.positions.slice(0, n),
    key_bias: b.key_bias.slice(0, n),
    targets: b.targets.slice(0, n),
    old_logp: b.old_logp.slice(0, n),
    advantages: b.advantages.slice(0, n),
    weights: b.weights.slice(0, n).map((w) => Math.fround(w * scale)),
    mask: b.mask.slice(0, n),
    seq_len: b.seq_len.slice(0, rows),
    tokens_counted: b.completions.slice(0, rows).reduce((a, c) => a + c.length, 0),
  };
}
