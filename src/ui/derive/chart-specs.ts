import type { RunConfig } from '../../rl/config.ts';
import { metricInfo, type MetricKey, type RewardComponentKey } from '../../rl/metrics.ts';

export interface ChartSpec {
  id: string;
  title: string;
  /** Metric keys from the metric table (src/rl/metrics.ts): an unknown key does not compile. */
  lines: { key: MetricKey | RewardComponentKey; label: string }[];
  /** metricInfo entry whose definition and hint are shown. */
  info?: MetricKey;
  definition?: string;
  hint?: string;
  yDomain?: [number, number];
  /** Why the quantity cannot move under this config (then the chart shows the reason, not rounding noise). */
  constantWhen?: (c: RunConfig) => string | null;
}

/** On-policy: every batch gets one gradient step, so the policy that scores it is the one that sampled it. */
const onPolicy = (what: string) => (c: RunConfig) =>
  c.num_iterations === 1 && c.minibatches === 1
    ? 'Updates are on-policy (num_iterations = 1, ' +
      'minibatches = 1): each batch gets a single ' +
      'gradient step, scored by the same weights that ' +
      `sampled it, so ${what}. Raise num_iterations or ` +
      'minibatches to reuse a batch and see it move.'
    : null;

export const chartSpecs: ChartSpec[] = [
  { id: 'reward', title: 'Reward', lines: [{ key: 'reward', label: 'total' }], info: 'reward' },
  {
    id: 'accuracy',
    title: 'Accuracy (batch pass@1)',
    lines: [
      { key: 'accuracy', label: 'true' },
      { key: 'accuracy/observed', label: 'as judged' },
      { key: 'accuracy/first_round', label: 'first round' },
    ],
    info: 'accuracy',
    yDomain: [0, 1],
  },
  { id: 'reward_std', title: 'Reward std', lines: [{ key: 'reward_std', label: 'reward_std' }], info: 'reward_std' },
  {
    id: 'zero_std',
    title: 'Zero-variance groups',
    lines: [{ key: 'frac_reward_zero_std', label: 'fraction' }],
    info: 'frac_reward_zero_std',
    yDomain: [0, 1],
  },
  {
    id: 'length',
    title: 'Response length',
    lines: [
      { key: 'completions/mean_length', label: 'mean' },
      { key: 'completions/max_length', label: 'max' },
      { key: 'completions/mean_length_wrong', label: 'mean (wrong)' },
    ],
    info: 'completions/mean_length',
  },
  {
    id: 'length_bias',
    title: 'Length bias (per-token push)',
    lines: [{ key: 'length_bias/push_ratio', label: 'longest ÷ shortest wrong answer' }],
    info: 'length_bias/push_ratio',
    hint:
      'in each group, how hard the update pushes down ' +
      'each token of its longest wrong answer, relative ' +
      'to its shortest: 1 = alike; below 1 = long wrong ' +
      'answers are penalised less per token',
  },
  {
    id: 'truncated',
    title: 'Truncated completions',
    lines: [{ key: 'completions/clipped_ratio', label: 'fraction' }],
    info: 'completions/clipped_ratio',
    yDomain: [0, 1],
  },
  { id: 'entropy', title: 'Entropy', lines: [{ key: 'entropy', label: 'entropy' }], info: 'entropy' },
  {
    id: 'kl',
    title: 'KL to reference',
    lines: [{ key: 'kl', label: 'kl' }],
    info: 'kl',
    constantWhen: (c) =>
      c.beta === 0
        ? 'KL is off: beta = 0, so there is no reference ' +
          'policy to measure against (what would plot here is ' +
          'float rounding, about 1e-9). Set beta > 0 to ' +
          'anchor the policy to its base and chart the KL.'
        : null,
  },
  {
    id: 'clip',
    title: 'Clip fraction',
    lines: [
      { key: 'clip_ratio/low_mean', label: 'low (1 − ε)' },
      { key: 'clip_ratio/high_mean', label: 'high (1 + ε_high)' },
    ],
    info: 'clip_ratio/low_mean',
    yDomain: [0, 1],
    constantWhen: onPolicy('the importance ratio is 1 and nothing is clipped: the fraction stays 0'),
    hint: 'low: updates cut on negative advantages; high with ε_high = ε: clip-higher may help entropy',
  },
  {
    id: 'ratio',
    title: 'Importance ratio',
    lines: [
      { key: 'ratio/mean', label: 'mean' },
      { key: 'ratio/min', label: 'min' },
      { key: 'ratio/max', label: 'max' },
    ],
    info: 'ratio/mean',
    constantWhen: onPolicy('the importance ratio π_θ/π_old is 1 up to float rounding'),
  },
  {
    id: 'grad_norm',
    title: 'Gradient norm',
    lines: [{ key: 'grad_norm', label: 'before clipping' }],
    info: 'grad_norm',
  },
  {
    id: 'ess',
    title: 'Effective sample size',
    lines: [{ key: 'ess', label: 'ess' }],
    info: 'ess',
    yDomain: [0, 1],
    constantWhen: onPolicy('every importance weight is 1 and the effective sample size stays at 1'),
  },
  {
    id: 'throughput',
    title: 'Throughput (tokens/s)',
    lines: [
      { key: 'tokens_per_second/sampling', label: 'sampling' },
      { key: 'tokens_per_second/update', label: 'update' },
    ],
    info: 'tokens_per_second/sampling',
    definition: 'generated tokens per second, and completion tokens per second through the update',
  },
  {
    id: 'time',
    title: 'Time per step (s)',
    lines: [
      { key: 'time/sampling', label: 'sampling' },
      { key: 'time/verify', label: 'verify' },
      { key: 'time/update', label: 'update' },
    ],
    definition: 'wall time of each phase of a step, in seconds',
    hint: 'sampling dominates: fewer or shorter completions; update dominates: fewer μ epochs',
  },
];

/** The Charts tab's spec that draws a metric (the first whose lines include it). */
export function specOf(metric: string): ChartSpec | undefined {
  return chartSpecs.find((s) => s.lines.some((l) => l.key === metric));
}

/**
 * Why the chart cannot move under this config ("KL is off: ..."), or null: the one rule the Charts tab and Compare
 * show.
 */
export function constantNote(spec: ChartSpec | undefined, config: RunConfig | null | undefined): string | null {
  return config && spec?.constantWhen ? spec.constantWhen(config) : null;
}

export function infoFor(spec: ChartSpec): { definition: string; hint: string } {
  const m = metricInfo.find((x) => x.name === spec.info);
  return { definition: spec.definition ?? m?.definition ?? '', hint: spec.hint ?? m?.hint ?? '' };
}
