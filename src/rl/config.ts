/**
 * One run config: typed, validated, JSON-serialisable. Where TRL's GRPOConfig has a knob, the field
 * has its name and meaning (num_generations, temperature, top_p, top_k, max_completion_length,
 * learning_rate, adam_beta1/2, weight_decay, max_grad_norm, num_iterations, loss_type, scale_rewards,
 * epsilon, epsilon_high, delta, importance_sampling_level, beta, mask_truncated_completions,
 * top_entropy_quantile, reward_weights), so a setting carries over to TRL and back.
 */
export type LossType = 'grpo' | 'bnpo' | 'dr_grpo' | 'dapo';
export type ScaleRewards = 'group' | 'batch' | 'none';
export type AdvantageEstimator = 'grpo' | 'rloo' | 'signed';

export interface RunConfig {
  version: 1;
  task: string;
  difficulty: Record<string, number | string>;
  /** 'fixed', or 'ladder': SATURN-style easy-to-hard levels that advance on windowed pass@1. */
  curriculum: 'fixed' | 'ladder';
  ladder_window: number;
  ladder_advance_at: number;
  ladder_step_back_at: number;
  seed: number;

  // sampling
  prompts_per_step: number;
  num_generations: number;
  temperature: number;
  top_p: number;
  /** 0 disables top-k. */
  top_k: number;
  max_completion_length: number;

  // optimisation
  learning_rate: number;
  /** Linear learning-rate warm-up over the first N steps (TrainingArguments.warmup_steps): a fresh Adam's first steps are sign-like and large. */
  warmup_steps: number;
  adam_beta1: number;
  adam_beta2: number;
  weight_decay: number;
  max_grad_norm: number;
  /** μ: optimisation passes over each generated batch (PPO epochs). */
  num_iterations: number;
  /** Optimizer steps per pass: the batch is split into this many minibatches (more = more off-policy). */
  minibatches: number;

  // objective
  loss_type: LossType;
  scale_rewards: ScaleRewards;
  /** 'grpo': group mean baseline; 'rloo': leave-one-out mean; 'signed': +1 correct / -1 wrong (PSR/NSR). */
  advantage_estimator: AdvantageEstimator;
  epsilon: number;
  epsilon_high: number;
  /** Two-sided clipping: cap on the unclipped ratio (INTELLECT-2); null disables. */
  delta: number | null;
  importance_sampling_level: 'token' | 'sequence';
  beta: number;
  kl_estimator: 'k1' | 'k3';
  /** Reset the reference policy to the current one every N steps (ProRL); 0 never. */
  ref_reset_every: number;
  entropy_coef: number;
  mask_truncated_completions: boolean;
  /** Train only on the top fraction of tokens by entropy (1 = all tokens). */
  top_entropy_quantile: number;
  /** Multipliers on positive / negative advantages (PSR / NSR, W-REINFORCE). */
  positive_weight: number;
  negative_weight: number;

  // data and reward
  dynamic_sampling: boolean;
  /** Extra sampling rounds allowed to refill a batch after dropping zero-variance groups. */
  max_refill_rounds: number;
  hints: boolean;
  hint_fraction: number;
  reward_weights: { correctness: number; format: number; partial: number };
  overlong_penalty: boolean;
  overlong_cache_length: number;
  noise_p_fn: number;
  noise_p_fp: number;
  leaky_verifier: boolean;
  /** 'verifier', 'rlpr' (policy's own probability of the reference answer), or 'mix'. */
  reward_source: 'verifier' | 'rlpr' | 'mix';
  rlpr_weight: number;

  // evaluation and bookkeeping
  eval_every: number;
  eval_prompts: number;
  rollout_history_steps: number;
}

export const defaultConfig: RunConfig = {
  version: 1,
  task: 'sat',
  difficulty: {},
  curriculum: 'fixed',
  ladder_window: 10,
  ladder_advance_at: 0.7,
  ladder_step_back_at: 0.1,
  seed: 0,
  prompts_per_step: 8,
  num_generations: 8,
  temperature: 1,
  top_p: 1,
  top_k: 0,
  max_completion_length: 48,
  learning_rate: 1e-4,
  warmup_steps: 10,
  adam_beta1: 0.9,
  adam_beta2: 0.999,
  weight_decay: 0,
  max_grad_norm: 1,
  num_iterations: 1,
  minibatches: 1,
  loss_type: 'grpo',
  scale_rewards: 'group',
  advantage_estimator: 'grpo',
  epsilon: 0.2,
  epsilon_high: 0.2,
  delta: null,
  importance_sampling_level: 'token',
  beta: 0,
  kl_estimator: 'k3',
  ref_reset_every: 0,
  entropy_coef: 0,
  mask_truncated_completions: false,
  top_entropy_quantile: 1,
  positive_weight: 1,
  negative_weight: 1,
  dynamic_sampling: false,
  max_refill_rounds: 2,
  hints: false,
  hint_fraction: 0.5,
  reward_weights: { correctness: 0.9, format: 0.1, partial: 0 },
  overlong_penalty: false,
  overlong_cache_length: 8,
  noise_p_fn: 0,
  noise_p_fp: 0,
  leaky_verifier: false,
  reward_source: 'verifier',
  rlpr_weight: 0.5,
  eval_every: 10,
  eval_prompts: 32,
  rollout_history_steps: 20,
};

export class ConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

type Rule = { kind: 'int' | 'num'; min?: number; max?: number; exclusiveMin?: boolean } | { kind: 'enum'; values: readonly string[] } | { kind: 'bool' } | { kind: 'str' } | { kind: 'object' } | { kind: 'nullable-num'; min: number };

const rules: Record<keyof RunConfig, Rule> = {
  version: { kind: 'int', min: 1, max: 1 },
  task: { kind: 'str' },
  difficulty: { kind: 'object' },
  curriculum: { kind: 'enum', values: ['fixed', 'ladder'] },
  ladder_window: { kind: 'int', min: 1, max: 1000 },
  ladder_advance_at: { kind: 'num', min: 0, max: 1 },
  ladder_step_back_at: { kind: 'num', min: 0, max: 1 },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1 },
  prompts_per_step: { kind: 'int', min: 1, max: 256 },
  num_generations: { kind: 'int', min: 2, max: 64 },
  temperature: { kind: 'num', min: 0, max: 10, exclusiveMin: true },
  top_p: { kind: 'num', min: 0, max: 1, exclusiveMin: true },
  top_k: { kind: 'int', min: 0, max: 1000 },
  max_completion_length: { kind: 'int', min: 1, max: 512 },
  learning_rate: { kind: 'num', min: 0, max: 1 },
  warmup_steps: { kind: 'int', min: 0, max: 1e6 },
  adam_beta1: { kind: 'num', min: 0, max: 0.9999 },
  adam_beta2: { kind: 'num', min: 0, max: 0.99999 },
  weight_decay: { kind: 'num', min: 0, max: 1 },
  max_grad_norm: { kind: 'num', min: 0, max: 1e6 },
  num_iterations: { kind: 'int', min: 1, max: 16 },
  minibatches: { kind: 'int', min: 1, max: 64 },
  loss_type: { kind: 'enum', values: ['grpo', 'bnpo', 'dr_grpo', 'dapo'] },
  scale_rewards: { kind: 'enum', values: ['group', 'batch', 'none'] },
  advantage_estimator: { kind: 'enum', values: ['grpo', 'rloo', 'signed'] },
  epsilon: { kind: 'num', min: 0, max: 1 },
  epsilon_high: { kind: 'num', min: 0, max: 10 },
  delta: { kind: 'nullable-num', min: 1 },
  importance_sampling_level: { kind: 'enum', values: ['token', 'sequence'] },
  beta: { kind: 'num', min: 0, max: 10 },
  kl_estimator: { kind: 'enum', values: ['k1', 'k3'] },
  ref_reset_every: { kind: 'int', min: 0, max: 1e6 },
  entropy_coef: { kind: 'num', min: -1, max: 1 },
  mask_truncated_completions: { kind: 'bool' },
  top_entropy_quantile: { kind: 'num', min: 0, max: 1, exclusiveMin: true },
  positive_weight: { kind: 'num', min: 0, max: 10 },
  negative_weight: { kind: 'num', min: 0, max: 10 },
  dynamic_sampling: { kind: 'bool' },
  max_refill_rounds: { kind: 'int', min: 0, max: 20 },
  hints: { kind: 'bool' },
  hint_fraction: { kind: 'num', min: 0, max: 1 },
  reward_weights: { kind: 'object' },
  overlong_penalty: { kind: 'bool' },
  overlong_cache_length: { kind: 'int', min: 0, max: 512 },
  noise_p_fn: { kind: 'num', min: 0, max: 1 },
  noise_p_fp: { kind: 'num', min: 0, max: 1 },
  leaky_verifier: { kind: 'bool' },
  reward_source: { kind: 'enum', values: ['verifier', 'rlpr', 'mix'] },
  rlpr_weight: { kind: 'num', min: 0, max: 1 },
  eval_every: { kind: 'int', min: 0, max: 1e6 },
  eval_prompts: { kind: 'int', min: 1, max: 1024 },
  rollout_history_steps: { kind: 'int', min: 1, max: 1000 },
};

export const configFields = Object.keys(rules) as (keyof RunConfig)[];

function checkField(field: string, rule: Rule, v: unknown): void {
  const bad = (msg: string) => {
    throw new ConfigError(field, msg);
  };
  switch (rule.kind) {
    case 'int':
    case 'num': {
      if (typeof v !== 'number' || !Number.isFinite(v)) bad(`must be a number, got ${JSON.stringify(v)}`);
      const n = v as number;
      if (rule.kind === 'int' && !Number.isInteger(n)) bad(`must be an integer, got ${n}`);
      if (rule.min !== undefined && (rule.exclusiveMin ? n <= rule.min : n < rule.min)) bad(`must be ${rule.exclusiveMin ? '>' : '>='} ${rule.min}, got ${n}`);
      if (rule.max !== undefined && n > rule.max) bad(`must be <= ${rule.max}, got ${n}`);
      return;
    }
    case 'nullable-num':
      if (v === null) return;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < rule.min) bad(`must be null or a number >= ${rule.min}, got ${JSON.stringify(v)}`);
      return;
    case 'enum':
      if (typeof v !== 'string' || !rule.values.includes(v)) bad(`must be one of ${rule.values.join(' | ')}, got ${JSON.stringify(v)}`);
      return;
    case 'bool':
      if (typeof v !== 'boolean') bad(`must be true or false, got ${JSON.stringify(v)}`);
      return;
    case 'str':
      if (typeof v !== 'string' || v.length === 0) bad(`must be a non-empty string, got ${JSON.stringify(v)}`);
      return;
    case 'object':
      if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(`must be an object, got ${JSON.stringify(v)}`);
      return;
  }
}

/**
 * Validates a (partial) config over the defaults. Unknown fields and bad values are errors naming the
 * field; nothing is silently ignored.
 */
export function validateConfig(input: unknown, base: RunConfig = defaultConfig): RunConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ConfigError('config', 'must be a JSON object');
  for (const k of Object.keys(input)) {
    if (!Object.hasOwn(rules, k)) throw new ConfigError(k, `unknown field (known fields: ${configFields.join(', ')})`);
  }
  const c = { ...base, ...(input as Partial<RunConfig>) } as RunConfig;
  for (const k of configFields) checkField(k, rules[k], c[k]);
  const rw = c.reward_weights as unknown as Record<string, unknown>;
  for (const k of Object.keys(rw)) if (!['correctness', 'format', 'partial'].includes(k)) throw new ConfigError(`reward_weights.${k}`, 'unknown field (known: correctness, format, partial)');
  c.reward_weights = { ...defaultConfig.reward_weights, ...c.reward_weights };
  for (const k of ['correctness', 'format', 'partial'] as const) checkField(`reward_weights.${k}`, { kind: 'num', min: -10, max: 10 }, c.reward_weights[k]);
  for (const [k, v] of Object.entries(c.difficulty)) if (typeof v !== 'number' && typeof v !== 'string') throw new ConfigError(`difficulty.${k}`, `must be a number or a string, got ${JSON.stringify(v)}`);
  if (c.epsilon_high < c.epsilon) throw new ConfigError('epsilon_high', `must be >= epsilon (${c.epsilon}), got ${c.epsilon_high}`);
  if (c.ladder_step_back_at >= c.ladder_advance_at) throw new ConfigError('ladder_step_back_at', `must be below ladder_advance_at (${c.ladder_advance_at})`);
  if ((c.prompts_per_step * c.num_generations) % c.minibatches !== 0) {
    throw new ConfigError('minibatches', `must divide prompts_per_step × num_generations (${c.prompts_per_step * c.num_generations}), got ${c.minibatches}`);
  }
  return c;
}

/** Parses `key=value` (value as JSON when it parses, else a string) into a config patch. */
export function parseAssignment(s: string): [string, unknown] {
  const eq = s.indexOf('=');
  if (eq <= 0) throw new ConfigError(s, 'expected key=value');
  const key = s.slice(0, eq);
  const raw = s.slice(eq + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return [key, value];
}

/** Applies dotted assignments (e.g. reward_weights.format=0.2, difficulty.digits=3) to a plain object. */
export function applyAssignments(patch: Record<string, unknown>, assignments: string[]): Record<string, unknown> {
  const out = structuredClone(patch);
  for (const a of assignments) {
    const [key, value] = parseAssignment(a);
    const parts = key.split('.');
    let obj = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof obj[p] !== 'object' || obj[p] === null) obj[p] = { ...((defaultConfig as unknown as Record<string, object>)[p] ?? {}) };
      obj = obj[p] as Record<string, unknown>;
    }
    obj[parts[parts.length - 1]!] = value;
  }
  return out;
}

/** Fields that change the shapes of compiled graphs or the data stream: changing them needs a restart. */
export const restartFields: (keyof RunConfig)[] = ['task', 'seed', 'prompts_per_step', 'num_generations', 'max_completion_length', 'minibatches', 'curriculum'];
