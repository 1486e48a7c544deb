/**
 * One training step's data, as one record the trainer's phases pass along (trainer.ts): collecting
 * the groups gives its rows, the token masks and the advantages follow, scoring under the reference
 * policy adds `refLogp`; the update (its graph's feeds come from `rlGraphFeeds`, objective.ts), the
 * rollout records and the metrics then read it.
 */
import type { Sampled } from './collect.ts';

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
