/**
 * Every per-step metric `stepMetrics` (src/rl/step-records.ts) logs, in one typed table: its key, a
 * one-line definition and what a bad value means. Names follow TRL's GRPOTrainer logs where it logs
 * the same quantity, so charts read the way people know them. The chart specs
 * (src/ui/derive/chart-specs.ts), the CSV header (src/ui/state/exporters.ts) and the run record
 * (src/record/run-record.ts) take their keys from here, so a mistyped key is a compile error, not an
 * empty chart.
 */
export const metricTable = {
  reward: {
    definition: 'mean total reward of the batch (what the policy is trained on)',
    hint: 'flat at the maximum or minimum: no learning signal',
  },
  reward_std: {
    definition: 'standard deviation of the total reward over the batch',
    hint: '0 → every advantage is 0, no gradient',
  },
  accuracy: {
    definition:
      'fraction of batch completions the strict verifier judges correct (pass@1 on the batch, before any noise)',
    hint: 'falling while reward rises → reward hacking or a noisy verifier',
  },
  'accuracy/observed': {
    definition: 'fraction of batch completions judged correct by the verifier the trainer saw (after any noise)',
    hint: 'far from accuracy → the noisy verifier flips many verdicts',
  },
  'accuracy/first_round': {
    definition:
      "fraction of the first sampling round's completions the strict verifier judges correct (equals " +
      'accuracy unless dynamic sampling drops and refills groups, which skews the trained batch)',
    hint: 'below accuracy → dynamic sampling is replacing all-wrong groups; compare runs on this, not on accuracy',
  },
  frac_reward_zero_std: {
    definition: 'fraction of groups (first sampling round) whose completions all got exactly the same reward',
    hint: 'near 1 → most groups carry no signal; try dynamic sampling or another difficulty',
  },
  'completions/mean_length': {
    definition: 'mean completion length in tokens',
    hint: 'steady growth of wrong answers is the length bias Dr. GRPO removes',
  },
  'completions/max_length': { definition: 'longest completion in the batch', hint: 'at the cap → truncation' },
  'completions/min_length': { definition: 'shortest completion in the batch', hint: '' },
  'completions/clipped_ratio': {
    definition: 'fraction of completions cut off at max_completion_length',
    hint: 'high → raise the cap or use overlong shaping',
  },
  'completions/mean_length_wrong': {
    definition: 'mean length of the completions judged wrong (0 when none)',
    hint: 'growing → the length bias of per-sequence normalisation',
  },
  'length_bias/push_ratio': {
    definition:
      'per-token push on the longest answer a group pushes down (negative advantage) over that on its ' +
      'shortest, averaged over the groups where they differ in length (1 when none does); the push on a ' +
      'token is |advantage| × its aggregation weight',
    hint:
      'below 1 → a long wrong answer is penalised less per token than a short one: the per-sequence ' +
      'normalisation Dr. GRPO removes (about 1 under dr_grpo and the token-mean losses)',
  },
  entropy: {
    definition: 'mean per-token entropy of the current policy on its completions (nats)',
    hint: 'collapsing to 0 → the policy stops exploring (clip-higher helps)',
  },
  kl: {
    definition: 'mean per-token KL estimate to the reference policy',
    hint: 'growing fast → the policy drifts; raise beta or reset the reference',
  },
  'ratio/mean': {
    definition: 'mean importance ratio π/π_old over completion tokens',
    hint: 'far from 1 → strongly off-policy updates',
  },
  'ratio/min': { definition: 'smallest importance ratio over trained tokens', hint: '' },
  'ratio/max': {
    definition: 'largest importance ratio over trained tokens',
    hint: 'large → a few tokens moved far; clipping or GSPO help',
  },
  'clip_ratio/low_mean': {
    definition: 'fraction of tokens clipped at 1 - epsilon (negative advantage)',
    hint: 'high → updates are being cut; lower the learning rate or μ',
  },
  'clip_ratio/high_mean': {
    definition: 'fraction of tokens clipped at 1 + epsilon_high (positive advantage)',
    hint: 'high with epsilon_high = epsilon → clip-higher may help entropy',
  },
  'clip_ratio/region_mean': { definition: 'fraction of tokens clipped on either side', hint: '' },
  ess: {
    definition: 'effective sample size of the token ratios, as a fraction of tokens',
    hint: 'well below 1 → a few tokens dominate the update',
  },
  grad_norm: {
    definition: 'global gradient norm before clipping',
    hint: 'spikes → instability; non-finite steps are skipped',
  },
  loss: {
    definition: 'value of the objective (mean over optimizer steps of this batch)',
    hint: 'not a progress measure in RL; watch reward and accuracy',
  },
  learning_rate: { definition: 'learning rate used this step', hint: '' },
  skipped: {
    definition: '1 when the step was skipped (non-finite loss or gradient), else 0',
    hint: 'several in a row → the run stops; lower the learning rate',
  },
  hinted_groups: { definition: 'groups that got a hint after failing', hint: '' },
  noise_flips: { definition: 'completions whose verdict the noisy verifier flipped', hint: '' },
  sampling_rounds: {
    definition: 'sampling rounds this step (dynamic sampling refills zero-variance groups)',
    hint: 'at the limit → most groups carry no signal',
  },
  'time/sampling': { definition: 'seconds generating completions', hint: '' },
  'time/verify': { definition: 'seconds verifying and shaping rewards', hint: '' },
  'time/update': { definition: 'seconds scoring, computing the loss, backward and AdamW', hint: '' },
  'time/step': { definition: 'seconds for the whole step', hint: '' },
  'tokens_per_second/sampling': { definition: 'generated tokens per second', hint: '' },
  'tokens_per_second/update': { definition: 'completion tokens per second through the update', hint: '' },
} as const satisfies Record<string, { definition: string; hint: string }>;

/** A key of the metric table: what every step logs. */
export type MetricKey = keyof typeof metricTable;
/** The per-component reward metrics: one pair per component of the task's reward (names come from the task). */
export type RewardComponentKey = `rewards/${string}/mean` | `rewards/${string}/std`;

/** The table's keys in its order (the CSV's and the run record's column order). */
export const metricKeys = Object.keys(metricTable) as MetricKey[];

const rewardComponentPattern = /^rewards\/[^/]+\/(mean|std)$/;

/** Whether `key` is a metric a step logs: a key of the table or a reward component's mean/std. */
export function isMetricKey(key: string): key is MetricKey | RewardComponentKey {
  return Object.hasOwn(metricTable, key) || rewardComponentPattern.test(key);
}

export interface MetricInfo {
  name: MetricKey;
  definition: string;
  hint: string;
}

/** The table as a list (for lookups by name). */
export const metricInfo: MetricInfo[] = metricKeys.map((name) => ({ name, ...metricTable[name] }));

/**
 * A group with zero reward variance: every completion got exactly the same reward, so every advantage
 * is 0 and the group gives no gradient. The one definition behind frac_reward_zero_std, dynamic
 * sampling's refills, the advantages and the rollout summary.
 */
export function isZeroVariance(rewards: readonly number[]): boolean {
  return rewards.every((r) => r === rewards[0]);
}

export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

export function std(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
}

/** Histogram with fixed edges, for the advantage distribution. */
export function histogram(xs: number[], lo = -3, hi = 3, bins = 12): { edges: number[]; counts: number[] } {
  const edges = Array.from({ length: bins + 1 }, (_, i) => lo + ((hi - lo) * i) / bins);
  const counts = new Array<number>(bins).fill(0);
  for (const x of xs) counts[Math.min(bins - 1, Math.max(0, Math.floor(((x - lo) / (hi - lo)) * bins)))]!++;
  return { edges, counts };
}
