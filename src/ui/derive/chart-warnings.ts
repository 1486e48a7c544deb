/**
 * When a chart's warning holds. Each chart has a hint (what a bad value looks like, from the metric
 * table in src/rl/metrics.ts or the chart's spec); it is shown as a warning (⚠, in the warning colour)
 * only while its condition holds over the data, and as plain help text otherwise. The conditions read
 * the raw per-step values of the last WINDOW steps (means, so one noisy step does not raise a flag).
 */

/** Steps a condition looks back over. */
export const WINDOW = 10;

type Rows = readonly Record<string, number | null | undefined>[];

/** The finite values of `key` in the last `n` rows. */
function recent(rows: Rows, key: string, n = WINDOW): number[] {
  const out: number[] = [];
  for (const r of rows.slice(-n)) {
    const v = r[key];
    if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(2));

/** The mean of `key` over the window, once the window is full (a young run raises no flags). */
function windowMean(rows: Rows, key: string): number | null {
  const xs = recent(rows, key);
  return xs.length >= Math.min(WINDOW, 5) && rows.length >= WINDOW ? mean(xs) : null;
}

/** Change of `key` from the first half of the last 2×WINDOW steps to the second half (null while too few). */
function drift(rows: Rows, key: string): { before: number; after: number } | null {
  const xs = recent(rows, key, 2 * WINDOW);
  if (xs.length < 2 * WINDOW) return null;
  return { before: mean(xs.slice(0, WINDOW)), after: mean(xs.slice(WINDOW)) };
}

export type ChartWarning = (rows: Rows) => string | null;

/** Per chart id (src/ui/derive/chart-specs.ts): the warning text while its condition holds, else null. */
export const chartWarnings: Record<string, ChartWarning> = {
  reward: (rows) => {
    const xs = recent(rows, 'reward');
    if (rows.length < WINDOW || xs.length < WINDOW) return null;
    if (!(Math.max(...xs) - Math.min(...xs) < 1e-9)) return null;
    return `flat at ${f(xs[0]!)} for the last ${WINDOW} steps: no learning signal`;
  },
  accuracy: (rows) => {
    const acc = drift(rows, 'accuracy');
    const reward = drift(rows, 'reward');
    if (!acc || !reward) return null;
    if (!(acc.after < acc.before - 0.05 && reward.after > reward.before + 0.05)) return null;
    return (
      `accuracy fell (${f(acc.before)} → ${f(acc.after)}) while reward rose ` +
      `(${f(reward.before)} → ${f(reward.after)}): reward hacking or a noisy verifier`
    );
  },
  reward_std: (rows) => {
    const m = windowMean(rows, 'reward_std');
    return m !== null && m < 1e-6 ? `0 over the last ${WINDOW} steps: every advantage is 0, no gradient` : null;
  },
  zero_std: (rows) => {
    const m = windowMean(rows, 'frac_reward_zero_std');
    if (m === null || !(m > 0.5)) return null;
    return (
      `${f(m)} of groups had no reward variance over the last ${WINDOW} steps (above half):` +
      ` most groups carry no signal; try dynamic sampling or another difficulty`
    );
  },
  length: (rows) => {
    const d = drift(rows, 'completions/mean_length_wrong');
    if (!d || !(d.before > 0 && d.after > d.before * 1.2)) return null;
    return `wrong answers grew from ${f(d.before)} to ${f(d.after)} tokens: the length bias Dr. GRPO removes`;
  },
  length_bias: (rows) => {
    const m = windowMean(rows, 'length_bias/push_ratio');
    if (m === null || !(m < 0.9)) return null;
    return (
      `${f(m)} over the last ${WINDOW} steps: a long wrong answer is penalised ` +
      `less per token than a short one (the per-sequence normalisation Dr. GRPO removes)`
    );
  },
  truncated: (rows) => {
    const m = windowMean(rows, 'completions/clipped_ratio');
    if (m === null || !(m > 0.2)) return null;
    return `${f(m)} of completions cut off over the last ${WINDOW} steps: raise the cap or use overlong shaping`;
  },
  entropy: (rows) => {
    const m = windowMean(rows, 'entropy');
    if (m === null || !(m < 0.05)) return null;
    return `${f(m)} nats over the last ${WINDOW} steps: the policy has stopped exploring (clip-higher helps)`;
  },
  kl: (rows) => {
    const d = drift(rows, 'kl');
    if (!d || !(d.after > 0.05 && d.after > 2 * d.before)) return null;
    return `KL more than doubled (${f(d.before)} → ${f(d.after)}): the policy drifts from its reference; raise beta`;
  },
  clip: (rows) => {
    const m = windowMean(rows, 'clip_ratio/low_mean');
    if (m === null || !(m > 0.2)) return null;
    return (
      `${f(m)} of tokens clipped low over the last ${WINDOW} steps:` +
      ` updates are being cut; lower the learning rate or μ`
    );
  },
  ratio: (rows) => {
    const m = windowMean(rows, 'ratio/mean');
    if (m === null || !(Math.abs(m - 1) > 0.2)) return null;
    return `mean ratio ${f(m)} over the last ${WINDOW} steps: strongly off-policy updates`;
  },
  grad_norm: (rows) => {
    const xs = recent(rows, 'grad_norm', 2 * WINDOW);
    if (xs.length < 2 * WINDOW) return null;
    const sorted = [...xs].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const last = xs[xs.length - 1]!;
    if (!(median > 0 && last > 5 * median)) return null;
    return (
      `the last step's norm ${f(last)} is over 5× the recent median (${f(median)}):` +
      ` a spike; non-finite steps are skipped`
    );
  },
  ess: (rows) => {
    const m = windowMean(rows, 'ess');
    return m !== null && m < 0.5 ? `${f(m)} over the last ${WINDOW} steps: a few tokens dominate the update` : null;
  },
};

/** The held-out chart: pass@1 up while pass@k at the largest k falls, between the first and the last evaluation. */
export function sharpeningWarning(
  evals: readonly { step: number; pass_at_k: Record<string, number> }[],
): string | null {
  if (evals.length < 2) return null;
  const first = evals[0]!;
  const last = evals[evals.length - 1]!;
  const ks = Object.keys(last.pass_at_k)
    .map(Number)
    .filter((k) => k > 1 && first.pass_at_k[String(k)] !== undefined);
  if (!ks.length) return null;
  const k = String(Math.max(...ks));
  const [a1, b1] = [first.pass_at_k['1'], last.pass_at_k['1']];
  const [ak, bk] = [first.pass_at_k[k]!, last.pass_at_k[k]!];
  if (a1 === undefined || b1 === undefined) return null;
  return b1 > a1 + 0.02 && bk < ak - 0.02
    ? `pass@1 rose (${f(a1)} → ${f(b1)}) while pass@${k} fell (${f(ak)} → ${f(bk)}) since step ${first.step}: ` +
        'RL sharpens onto answers the model already finds'
    : null;
}
