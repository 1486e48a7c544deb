/**
 * Every per-step metric, with a one-line definition and what a bad value means. Names follow TRL's
 * GRPOTrainer logs where it logs the same quantity, so charts read the way people know them.
 */
export interface MetricInfo {
  name: string;
  definition: string;
  hint: string;
}

export const metricInfo: MetricInfo[] = [
  { name: 'reward', definition: 'mean total reward of the batch (what the policy is trained on)', hint: 'flat at the maximum or minimum: no learning signal' },
  { name: 'reward_std', definition: 'standard deviation of the total reward over the batch', hint: '0 → every advantage is 0, no gradient' },
  { name: 'accuracy', definition: 'fraction of batch completions the strict verifier judges correct (pass@1 on the batch, before any noise)', hint: 'falling while reward rises → reward hacking or a noisy verifier' },
  { name: 'frac_reward_zero_std', definition: 'fraction of groups (first sampling round) whose completions all got exactly the same reward', hint: 'near 1 → most groups carry no signal; try dynamic sampling or another difficulty' },
  { name: 'completions/mean_length', definition: 'mean completion length in tokens', hint: 'steady growth of wrong answers is the length bias Dr. GRPO removes' },
  { name: 'completions/max_length', definition: 'longest completion in the batch', hint: 'at the cap → truncation' },
  { name: 'completions/clipped_ratio', definition: 'fraction of completions cut off at max_completion_length', hint: 'high → raise the cap or use overlong shaping' },
  { name: 'entropy', definition: 'mean per-token entropy of the current policy on its completions (nats)', hint: 'collapsing to 0 → the policy stops exploring (clip-higher helps)' },
  { name: 'kl', definition: 'mean per-token KL estimate to the reference policy', hint: 'growing fast → the policy drifts; raise beta or reset the reference' },
  { name: 'ratio/mean', definition: 'mean importance ratio π/π_old over completion tokens', hint: 'far from 1 → strongly off-policy updates' },
  { name: 'clip_ratio/low_mean', definition: 'fraction of tokens clipped at 1 - epsilon (negative advantage)', hint: 'high → updates are being cut; lower the learning rate or μ' },
  { name: 'clip_ratio/high_mean', definition: 'fraction of tokens clipped at 1 + epsilon_high (positive advantage)', hint: 'high with epsilon_high = epsilon → clip-higher may help entropy' },
  { name: 'ess', definition: 'effective sample size of the token ratios, as a fraction of tokens', hint: 'well below 1 → a few tokens dominate the update' },
  { name: 'grad_norm', definition: 'global gradient norm before clipping', hint: 'spikes → instability; non-finite steps are skipped' },
  { name: 'learning_rate', definition: 'learning rate used this step', hint: '' },
  { name: 'loss', definition: 'value of the objective (mean over optimizer steps of this batch)', hint: 'not a progress measure in RL; watch reward and accuracy' },
  { name: 'time/sampling', definition: 'seconds generating completions', hint: '' },
  { name: 'time/verify', definition: 'seconds verifying and shaping rewards', hint: '' },
  { name: 'time/update', definition: 'seconds scoring, computing the loss, backward and AdamW', hint: '' },
  { name: 'tokens_per_second/sampling', definition: 'generated tokens per second', hint: '' },
  { name: 'tokens_per_second/update', definition: 'completion tokens per second through the update', hint: '' },
];

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
