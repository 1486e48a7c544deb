import type { RunConfig } from './config.ts';
import { lossTypes } from './loss-types.ts';
import { isZeroVariance } from './metrics.ts';

/**
 * Advantages from rewards, in float64. `rewards[g][i]` is completion i of group g.
 * - grpo: r - mean(group); rloo: r - mean(others in group); signed: +1 if correct, -1 if not (PSR/NSR).
 * - scale_rewards: divide by the group std ('group'), the batch std ('batch'), or not ('none').
 *   Std is the unbiased one (as torch.std), with 1e-4 added as TRL does.
 * - reinforce_plus_plus / reinforce_plus_plus_baseline (veRL's REINFORCE++ and its baseline variant):
 *   r, or r - mean(group), whitened over every completion token of the batch (a completion weighs by
 *   its `tokens`): (x - mean) / sqrt(unbiased var + 1e-8), as veRL's masked_whiten. They replace
 *   scale_rewards, which they ignore.
 * - positive/negative weights multiply positive/negative advantages.
 */
export function computeAdvantages(
  rewards: number[][],
  correct: boolean[][],
  c: Pick<RunConfig, 'advantage_estimator' | 'scale_rewards' | 'positive_weight' | 'negative_weight'> &
    Partial<Pick<RunConfig, 'multi_objective_aggregation'>>,
  /** tokens[g][i]: completion tokens that count for the loss (REINFORCE++'s token-weighted whitening). */
  tokens?: number[][],
  /** Each reward function's value and weight: what normalize_then_sum combines. */
  functions?: RewardFunctions,
): number[][] {
  if (c.multi_objective_aggregation === 'normalize_then_sum') {
    if (!functions)
      throw new Error("multi_objective_aggregation normalize_then_sum needs each reward function's values");
    return weighSigns(normalizeThenSum(functions), c);
  }
  const std = (xs: number[]) => {
    if (xs.length < 2) return 0;
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
  };
  const est = c.advantage_estimator;
  const reinforcePP = est === 'reinforce_plus_plus' || est === 'reinforce_plus_plus_baseline';
  let adv = rewards.map((group, gi) => {
    const n = group.length;
    // A group whose rewards are all equal carries no signal: exactly 0, not rounding noise / 1e-4.
    // (REINFORCE++ without a baseline compares against the whole batch, so it keeps such groups.)
    if (est !== 'signed' && est !== 'reinforce_plus_plus' && isZeroVariance(group)) return group.map(() => 0);
    const sum = group.reduce((a, b) => a + b, 0);
    return group.map((r, i) => {
      if (est === 'signed') return correct[gi]![i] ? 1 : -1;
      if (est === 'rloo') return n > 1 ? r - (sum - r) / (n - 1) : 0;
      if (est === 'reinforce_plus_plus') return r;
      // veRL's baseline variant takes no mean from a group of one
      if (est === 'reinforce_plus_plus_baseline') return n > 1 ? r - sum / n : r;
      return r - sum / n;
    });
  });
  if (reinforcePP) {
    if (!tokens) throw new Error(`advantage_estimator ${est} needs each completion's token count`);
    adv = whitenOverTokens(adv, tokens);
  } else if (c.scale_rewards === 'group') {
    adv = adv.map((a, gi) => {
      const s = std(rewards[gi]!);
      return a.map((x) => x / (s + 1e-4));
    });
  } else if (c.scale_rewards === 'batch') {
    const s = std(rewards.flat());
    adv = adv.map((a) => a.map((x) => x / (s + 1e-4)));
  }
  return weighSigns(adv, c);
}

function weighSigns(adv: number[][], c: Pick<RunConfig, 'positive_weight' | 'negative_weight'>): number[][] {
  // + 0 turns -0 into 0; NaN stays NaN so the step is skipped
  return adv.map((a) => a.map((x) => (x > 0 ? x * c.positive_weight : x < 0 ? x * c.negative_weight : x) + 0));
}

/** Reward functions apart: values[g][i][k] is function k's unweighted reward of completion i of group g. */
export interface RewardFunctions {
  weights: number[];
  values: number[][][];
}

/**
 * TRL 1.13's multi_objective_aggregation="normalize_then_sum" (GDPO): each function's rewards are
 * normalised within the group, (x − mean) / (std + 1e-4), then weighted and summed, and the sums
 * normalised over the whole batch the same way (std unbiased, as TRL's nanstd). scale_rewards does not
 * apply. A group whose every function is constant sums to 0, which the batch normalisation moves off 0.
 */
export function normalizeThenSum(f: RewardFunctions): number[][] {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = (xs: number[]) =>
    xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1));
  const sums = f.values.map((group) => {
    const z = f.weights.map((_, k) => {
      const xs = group.map((v) => v[k]!);
      const m = mean(xs);
      const s = std(xs);
      return xs.map((x) => (x - m) / (s + 1e-4));
    });
    return group.map((_, i) => f.weights.reduce((a, w, k) => a + w * z[k]![i]!, 0));
  });
  const all = sums.flat();
  const m = mean(all);
  const s = std(all);
  return sums.map((g) => g.map((x) => (x - m) / (s + 1e-4)));
}

/**
 * veRL's masked_whiten of a sequence-constant value: mean and unbiased variance over all counted
 * tokens (a completion of n tokens counts n times), then (x - mean) / sqrt(var + 1e-8). Fewer than
 * two tokens: no spread to whiten by, all 0.
 */
function whitenOverTokens(values: number[][], tokens: number[][]): number[][] {
  let count = 0;
  let sum = 0;
  values.forEach((g, gi) => g.forEach((x, i) => ((count += tokens[gi]![i]!), (sum += tokens[gi]![i]! * x))));
  if (count < 2) return values.map((g) => g.map(() => 0));
  const mean = sum / count;
  let sq = 0;
  values.forEach((g, gi) => g.forEach((x, i) => (sq += tokens[gi]![i]! * (x - mean) ** 2)));
  const variance = (sq / count) * (count / (count - 1));
  return values.map((g, gi) => g.map((x, i) => (tokens[gi]![i]! > 0 ? (x - mean) / Math.sqrt(variance + 1e-8) : 0)));
}

/**
 * Per-token aggregation weights: the loss is sum over tokens of weight × token loss, the loss type's
 * aggregation (loss-types.ts) as TRL 1.13's GRPOTrainer._compute_loss applies it: sequence-mean
 * 1 / (tokens of the sequence × sequences); minibatch-token-mean 1 / (tokens of the minibatch);
 * batch-token-mean 1 / (tokens of the whole generation batch, `batchTokens`); constant
 * 1 / (sequences × max_completion_length); sequence-sum 1 / sequences.
 */
export function aggregationWeights(
  masks: number[][],
  lossType: RunConfig['loss_type'],
  maxCompletionLength: number,
  batchTokens: number,
): number[][] {
  const n = masks.length;
  const tokens = masks.reduce((a, m) => a + m.reduce((x, y) => x + y, 0), 0);
  const aggregation = lossTypes[lossType].aggregation;
  return masks.map((m) => {
    const len = m.reduce((x, y) => x + y, 0);
    return m.map((v) => {
      if (!v) return 0;
      switch (aggregation) {
        case 'sequence-mean':
          return 1 / (Math.max(1, len) * n);
        case 'minibatch-token-mean':
          return 1 / Math.max(1, tokens);
        case 'batch-token-mean':
          return 1 / Math.max(1, batchTokens);
        case 'constant':
          return 1 / (n * maxCompletionLength);
        case 'sequence-sum':
          return 1 / n;
      }
    });
  });
}

/**
 * The aggregation weights of a whole generation batch split into `minibatches` optimizer steps. With
 * steps_per_generation 0, aggregationWeights per minibatch (batch-token-mean over the whole batch's
 * tokens). With steps_per_generation S (a multiple of minibatches), as TRL 1.13 accumulates: the batch
 * is split into S micro-batches, A = S / minibatches of them per optimizer step, each aggregated on its
 * own and divided by A, except that batch-token-mean divides by the batch's tokens × A / S (TRL's
 * num_items_in_batch rescaled to one accumulation window).
 */
export function batchWeights(
  trainMask: number[][],
  lossType: RunConfig['loss_type'],
  maxCompletionLength: number,
  minibatches: number,
  stepsPerGeneration: number,
): number[][] {
  const batchTokens = trainMask.reduce((a, m) => a + m.reduce((x, y) => x + y, 0), 0);
  const parts = stepsPerGeneration > 0 ? stepsPerGeneration : minibatches;
  const accumulation = stepsPerGeneration > 0 ? stepsPerGeneration / minibatches : 1;
  const tokenMean = lossTypes[lossType].aggregation === 'batch-token-mean';
  const normaliser = stepsPerGeneration > 0 ? (batchTokens * accumulation) / stepsPerGeneration : batchTokens;
  const rows = trainMask.length / parts;
  const weights: number[][] = [];
  for (let j = 0; j < parts; j++) {
    const w = aggregationWeights(trainMask.slice(j * rows, (j + 1) * rows), lossType, maxCompletionLength, normaliser);
    weights.push(...(accumulation === 1 || tokenMean ? w : w.map((row) => row.map((x) => x / accumulation))));
  }
  return weights;
}
