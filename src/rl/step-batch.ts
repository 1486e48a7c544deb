/**
 * One training step's data, as one record the trainer's phases pass along (trainer.ts): collecting
 * the groups gives its rows, the token masks and the advantages follow, scoring under the reference
 * policy adds `refLogp`; the update (its graph's feeds come from `rlGraphFeeds`, rl-feeds.ts), the
 * rollout records and the metrics then read it.
 */
import { type Layout, predictingColumn, totalLen } from '../model/layout.ts';
import { Rng } from '../util/rng.ts';
import { batchWeights, type RewardFunctions } from './advantages.ts';
import type { Sampled } from './collect.ts';
import type { RunConfig } from './config.ts';

/** Token masks over each completion: which tokens count for the sequence ratio, which are trained, their weights. */
export interface TokenMasks {
  seqMask: number[][];
  trainMask: number[][];
  /** Aggregation weight of each token (loss_type), per row. */
  weights: number[][];
}

export interface StepBatch {
  /** Updates done before this step: with the seed, it derives the step's random streams (Rng.derive). */
  updatesDone: number;
  /** The step's completions, group after group (num_generations rows each, prompts_per_step groups). */
  rows: Sampled[];
  masks: TokenMasks;
  /** The advantage of each completion, [group][index in the group]. */
  advantages: number[][];
  /** Each completion token's log-prob under the reference policy; null when beta = 0 (no KL term). */
  refLogp: number[][] | null;
}

/** Truncated completions and low-entropy tokens can be excluded; the weights follow loss_type per minibatch. */
export function tokenMasks(flat: Sampled[], c: RunConfig, step: number): TokenMasks {
  const seqMask: number[][] = flat.map((s) =>
    s.tokens.map(() => (c.mask_truncated_completions && s.truncated ? 0 : 1)),
  );
  let trainMask = seqMask;
  if (c.top_entropy_quantile < 1) {
    const ents = flat.flatMap((s, r) => s.entropy.filter((_, i) => seqMask[r]![i])).sort((a, b) => a - b);
    const threshold = ents[Math.floor((1 - c.top_entropy_quantile) * (ents.length - 1))] ?? 0;
    trainMask = flat.map((s, r) => s.entropy.map((h, i) => (seqMask[r]![i] && h >= threshold ? 1 : 0)));
  } else if (c.random_token_fraction < 1) {
    // round(fraction × n) of the n unmasked tokens, drawn without replacement from a stream of this
    // run's seed and step, so a run is reproducible and the count matches top_entropy_quantile's.
    const slots = flat.flatMap((s, r) => s.tokens.map((_, i) => [r, i] as const).filter(([, i]) => seqMask[r]![i]));
    const take = Math.max(1, Math.round(c.random_token_fraction * slots.length));
    trainMask = flat.map((s) => s.tokens.map(() => 0));
    for (const [r, i] of Rng.derive(c.seed, 'random-token-mask', step).sample(slots, take)) trainMask[r]![i] = 1;
  }
  const weights = batchWeights(trainMask, c.loss_type, c.max_completion_length, c.minibatches, c.steps_per_generation);
  return { seqMask, trainMask, weights };
}

/** The mean entropy over a minibatch's trained tokens (trainMask), read from the graph's entropy output. */
export function trainedEntropy(
  entropy: Float32Array,
  batch: StepBatch,
  first: number,
  rows: number,
  layout: Layout,
): number {
  const len = totalLen(layout);
  let sum = 0;
  let count = 0;
  for (let k = 0; k < rows; k++) {
    const m = batch.masks.trainMask[first + k]!;
    for (let i = 0; i < m.length && i < layout.completionLen; i++) {
      if (!m[i]) continue;
      sum += entropy[k * len + predictingColumn(layout, i)]!;
      count++;
    }
  }
  return sum / Math.max(1, count);
}

/**
 * The reward functions apart, for multi_objective_aggregation normalize_then_sum: correctness, format
 * and partial unweighted with their reward_weights, the overlong penalty with weight 1 (the TRL export's
 * reward functions, src/export/trl/rewards-file.ts).
 */
export function rewardFunctions(groups: Sampled[][], c: RunConfig): RewardFunctions | undefined {
  if (c.multi_objective_aggregation !== 'normalize_then_sum') return undefined;
  const fin = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : 0);
  const w = c.reward_weights;
  return {
    weights: [w.correctness, w.format, w.partial, 1],
    values: groups.map((g) =>
      g.map((s) => [
        fin(s.verdict.components.correctness),
        fin(s.verdict.components.format),
        fin(s.verdict.components.partial),
        fin(s.components.overlong),
      ]),
    ),
  };
}
