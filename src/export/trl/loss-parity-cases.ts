// The batch and the cases of the TRL loss parity test (loss-parity.test.ts): one fixed batch (log-probs,
// old and reference log-probs, a completion mask with ragged lengths, one advantage per completion) and
// every loss_type TRL 1.13 accepts at both importance-sampling levels, with the variants the test adds
// (reward functions apart, adaptive entropy, minibatches). Pure data: no Node APIs.
import { computeAdvantages } from '../../rl/advantages.ts';
import { defaultConfig, type RunConfig } from '../../rl/config.ts';
import { trlLossTypeNames } from '../../rl/loss-types.ts';
import { Rng } from '../../util/rng.ts';

/**
 * The loss types TRL 1.13's GRPOConfig accepts (the loss-type table marks them), and its importance-sampling levels.
 */
const TRL_LOSS_TYPES = trlLossTypeNames;
const LEVELS = ['token', 'sequence'] as const;

// The batch: 8 completions, up to 6 tokens, ragged lengths (one of a single token); values off the
// mask are random too, so masking is checked. Everything is rounded to float32 first: both sides read
// the same numbers.
export const ROWS = 8;
export const LEN = 6;
export const LENGTHS = [6, 4, 1, 5, 6, 3, 2, 6];
export const ADVANTAGES = [1.2, -0.8, 0.5, -1.1, 0, 0.9, -0.4, 0.3];
const rng = new Rng(7);
export const f32 = (x: number) => Math.fround(x);
export const mask: number[][] = LENGTHS.map((n) => Array.from({ length: LEN }, (_, t) => (t < n ? 1 : 0)));
export const oldLogp = mask.map((m) => m.map(() => f32(-0.2 - 2 * rng.next())));
// log-ratios within ±0.5: ratios in [0.61, 1.65], both sides of every clip range below
export const logp = oldLogp.map((row) => row.map((o) => f32(o + (rng.next() - 0.5))));
export const refLogp = oldLogp.map((row) => row.map((o) => f32(o + 0.6 * (rng.next() - 0.5))));
export const entropy = mask.map((m) => m.map(() => f32(0.2 + 1.5 * rng.next())));

export interface Case {
  label: string;
  loss_type: RunConfig['loss_type'];
  importance_sampling_level: RunConfig['importance_sampling_level'];
  epsilon: number;
  epsilon_high: number;
  delta: number | null;
  beta: number;
  use_bias_correction_kl: boolean;
  entropy_coef: number;
  sapo_temperature_pos: number;
  sapo_temperature_neg: number;
  vespo_k_pos: number;
  vespo_lambda_pos: number;
  vespo_k_neg: number;
  vespo_lambda_neg: number;
  max_completion_length: number;
  off_policy_mask_threshold: number | null;
  use_adaptive_entropy?: boolean;
  entropy_coef_min?: number;
  entropy_coef_max?: number;
  entropy_coef_delta?: number;
  entropy_target?: number;
  /** Adaptive entropy: one optimizer step per scale on the same trainer, the batch's entropies × the scale. */
  entropy_scales?: number[];
  /** Advantages from reward functions apart: each side computes its own (TRL: its own code for them). */
  rewards_per_func?: number[][];
  function_weights?: number[];
  multi_objective_aggregation?: RunConfig['multi_objective_aggregation'];
  scale_rewards?: RunConfig['scale_rewards'];
  num_generations?: number;
  /** The batch in this many micro-batches, gradient_accumulation_steps of them per optimizer step. */
  steps_per_generation?: number;
  gradient_accumulation_steps?: number;
}

// Three reward functions (correctness, format, partial) on two groups of four; the second group's
// correctness is constant, so normalising each function first differs from normalising the sum.
const FUNCTION_WEIGHTS = [0.9, 0.1, 0.3];
const REWARDS_PER_FUNC = [
  [1, 1, 0.5],
  [0, 1, 0.25],
  [0, 0, 0],
  [1, 1, 1],
  [1, 1, 0.8],
  [1, 0, 0.6],
  [1, 1, 0.9],
  [1, 1, 1],
];

/** Our advantages of a case with reward functions apart (computeAdvantages, as the trainer calls it). */
export function ourAdvantages(k: Case): number[] {
  const G = k.num_generations!;
  const groups = (xs: number[][]) => Array.from({ length: ROWS / G }, (_, g) => xs.slice(g * G, (g + 1) * G));
  const values = groups(k.rewards_per_func!);
  const sums = values.map((g) => g.map((v) => v.reduce((a, x, f) => a + x * k.function_weights![f]!, 0)));
  const c = {
    ...defaultConfig,
    scale_rewards: k.scale_rewards!,
    multi_objective_aggregation: k.multi_objective_aggregation!,
  };
  return computeAdvantages(
    sums,
    sums.map((g) => g.map(() => false)),
    c,
    undefined,
    { weights: k.function_weights!, values },
  ).flat();
}

export function cases(): Case[] {
  const base = {
    epsilon: 0.2,
    epsilon_high: 0.28,
    delta: null,
    beta: 0.04,
    use_bias_correction_kl: true, // TRL's default
    entropy_coef: 0,
    sapo_temperature_pos: defaultConfig.sapo_temperature_pos,
    sapo_temperature_neg: defaultConfig.sapo_temperature_neg,
    vespo_k_pos: defaultConfig.vespo_k_pos,
    vespo_lambda_pos: defaultConfig.vespo_lambda_pos,
    vespo_k_neg: defaultConfig.vespo_k_neg,
    vespo_lambda_neg: defaultConfig.vespo_lambda_neg,
    max_completion_length: 8,
    off_policy_mask_threshold: null,
  };
  const out: Case[] = [];
  for (const lt of TRL_LOSS_TYPES) {
    for (const level of LEVELS) {
      // cispo's epsilon_high is the cap ε_max on the ratio itself: 1.1 makes it bind on some tokens
      out.push({
        ...base,
        label: '',
        loss_type: lt,
        importance_sampling_level: level,
        ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
      });
    }
  }
  out.push({
    ...base,
    label: 'delta = 1.3 (two-sided clip)',
    loss_type: 'grpo',
    importance_sampling_level: 'token',
    delta: 1.3,
  });
  out.push({
    ...base,
    label: 'use_bias_correction_kl = False',
    loss_type: 'grpo',
    importance_sampling_level: 'token',
    use_bias_correction_kl: false,
  });
  out.push({
    ...base,
    label: 'use_bias_correction_kl = False',
    loss_type: 'grpo',
    importance_sampling_level: 'sequence',
    use_bias_correction_kl: false,
  });
  // TRL's entropy bonus is coef × the token mean of the entropy whatever the loss_type; ours weighs each
  // token's entropy as its loss: the same where the loss is a token mean over the batch
  for (const lt of ['bnpo', 'dapo', 'cispo', 'vespo'] as const)
    out.push({
      ...base,
      label: 'entropy_coef = 0.01',
      loss_type: lt,
      importance_sampling_level: 'token',
      entropy_coef: 0.01,
      ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
    });
  out.push({ ...base, label: 'beta = 0 (no KL term)', loss_type: 'dapo', importance_sampling_level: 'token', beta: 0 });
  out.push({
    ...base,
    label: 'sapo_temperature_pos = 2, _neg = 0.5',
    loss_type: 'sapo',
    importance_sampling_level: 'token',
    sapo_temperature_pos: 2,
    sapo_temperature_neg: 0.5,
  });
  out.push({
    ...base,
    label: 'vespo k = 1.5 / 2.5, lambda = 4 / 1',
    loss_type: 'vespo',
    importance_sampling_level: 'token',
    vespo_k_pos: 1.5,
    vespo_lambda_pos: 4,
    vespo_k_neg: 2.5,
    vespo_lambda_neg: 1,
  });
  // the off-policy sequence mask drops some negative-advantage completions of this batch (checked below)
  for (const [lt, level] of [
    ['grpo', 'token'],
    ['dapo', 'sequence'],
    ['cispo', 'token'],
    ['sapo', 'token'],
    ['vespo', 'token'],
  ] as const) {
    out.push({
      ...base,
      label: `off_policy_mask_threshold = ${OFF_POLICY}`,
      loss_type: lt,
      importance_sampling_level: level,
      off_policy_mask_threshold: OFF_POLICY,
      ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
    });
  }
  // TRL's adaptive entropy controller over seven optimizer steps: entropies (× 1 or × 1/8) above and
  // below the target move the coefficient up and down, against both of its bounds; the bonus applies
  // only after a step at or below the target. Token-mean aggregations, where the bonus is the same.
  const adaptive = {
    use_adaptive_entropy: true,
    entropy_coef: 0.012,
    entropy_coef_min: 0.005,
    entropy_coef_max: 0.035,
    entropy_coef_delta: 0.01,
    entropy_target: 0.5,
    entropy_scales: [1, 1, 0.125, 0.125, 0.125, 0.125, 1],
  };
  for (const lt of ['bnpo', 'dapo'] as const)
    out.push({
      ...base,
      ...adaptive,
      label: 'use_adaptive_entropy, 7 optimizer steps',
      loss_type: lt,
      importance_sampling_level: 'token',
    });
  const functions = { rewards_per_func: REWARDS_PER_FUNC, function_weights: FUNCTION_WEIGHTS, num_generations: 4 };
  for (const [agg, lt, level] of [
    ['normalize_then_sum', 'grpo', 'token'],
    ['normalize_then_sum', 'dapo', 'sequence'],
    ['sum_then_normalize', 'grpo', 'token'],
  ] as const) {
    const label =
      'multi_objective_aggregation = ' +
      `${agg}${agg === 'normalize_then_sum' ? ' (GDPO)' : ', scale_rewards = group'}: advantages of 3 ` +
      'reward functions';
    out.push({
      ...base,
      ...functions,
      label,
      loss_type: lt,
      importance_sampling_level: level,
      multi_objective_aggregation: agg,
      scale_rewards: 'group',
    });
  }
  // TRL's micro-batches (steps_per_generation) and gradient accumulation: each micro-batch's loss as
  // TRL normalises it, summed (one optimizer step per gradient_accumulation_steps micro-batches)
  for (const [lt, level, spg, ga] of [
    ['bnpo', 'token', 2, 2],
    ['grpo', 'token', 2, 2],
    ['dapo', 'token', 4, 2],
    ['dr_grpo', 'token', 2, 2],
    ['luspo', 'sequence', 2, 1],
    ['cispo', 'token', 2, 1],
  ] as const) {
    const label = `steps_per_generation = ${spg}, gradient_accumulation_steps = ${ga} (minibatches = ${spg / ga})`;
    out.push({
      ...base,
      label,
      loss_type: lt,
      importance_sampling_level: level,
      steps_per_generation: spg,
      gradient_accumulation_steps: ga,
      ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
    });
  }
  return out;
}

/** The off-policy mask threshold of the parity cases: between the batch's sequence-mean KLs. */
export const OFF_POLICY = 0.005;
export const seqKl = mask.map(
  (m, r) => m.reduce((a, x, t) => a + x * (oldLogp[r]![t]! - logp[r]![t]!), 0) / Math.max(1, LENGTHS[r]!),
);
