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
  c: Pick<RunConfig, 'advantage_estimator' | 'scale_rewards' | 'positive_weight' | 'negative_weight'>,
  /** tokens[g][i]: completion tokens that count for the loss (REINFORCE++'s token-weighted whitening). */
  tokens?: number[][],
): number[][] {
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
  return adv.map((a) => a.map((x) => (x > 0 ? x * c.positive_weight : x < 0 ? x * c.negative_weight : x) + 0)); // + 0 turns -0 into 0; NaN stays NaN so the step is skipped
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
export function aggregationWeights(masks: number[][], lossType: RunConfig['loss_type'], maxCompletionLength: number, batchTokens: number): number[][] {
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
