/**
 * What the run viewer shows of an opened run (src/runs/types.ts), worked out without the page: a
 * group's completions sorted by reward, its mean and standard deviation, the advantage derived as the
 * token panel derives it (src/ui/derive/advantage-derivation.ts), the curves the logs hold, and "this prompt
 * over training" laid out by step. Pure TypeScript (run-view-model.test.ts).
 */
import type { MetricPoint, RunCompletion, RunGroup, RunSearchHit, RunStep } from '../../runs/types.ts';
import { deriveAdvantage, type AdvantageDerivation, type DerivationRecord } from './advantage-derivation.ts';

/** The group's completions, highest total reward first; ties keep the order the file holds them in. */
export function sortByReward(completions: RunCompletion[]): RunCompletion[] {
  return completions
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(b.c.reward) - rank(a.c.reward) || a.i - b.i)
    .map((x) => x.c);
}

/** A reward that is not a number (NaN from a failed reward function) sorts last. */
const rank = (r: number) => (Number.isFinite(r) ? r : -Infinity);

export interface GroupStats {
  n: number;
  mean: number;
  /** Sample standard deviation (divides by n − 1, as torch.std does and as TRL and veRL normalise with). */
  std: number;
  /** Every completion got the same reward: the group's advantages are all 0, it teaches nothing. */
  zeroVariance: boolean;
}

export function groupStats(rewards: number[]): GroupStats {
  const xs = rewards.filter(Number.isFinite);
  const n = xs.length;
  const mean = n ? xs.reduce((a, b) => a + b, 0) / n : NaN;
  const std = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  const zeroVariance = n > 0 && Math.max(...xs) - Math.min(...xs) < 1e-9;
  return { n, mean, std, zeroVariance };
}

/**
 * The ways GRPO-family trainers normalise a group's rewards, in the order they are tried against the
 * logged advantages: TRL's default (scale_rewards="group"), the batch's std, and Dr. GRPO (no std).
 */
export const scalings = ['group', 'batch', 'none'] as const;
export type Scaling = (typeof scalings)[number];

const settingsFor = (scale_rewards: Scaling) =>
  ({ advantage_estimator: 'grpo', scale_rewards, positive_weight: 1, negative_weight: 1 }) as const;

/** The step's completions in the shape the derivation reads (the logged advantage, NaN where none was). */
function derivationRecords(step: RunStep): DerivationRecord[] {
  return step.groups.flatMap((g) =>
    g.completions.map((c, i) => ({
      group: g.index,
      index: i,
      reward: c.reward,
      correct: c.reward > 0,
      advantage: c.advantage ?? NaN,
      truncated: c.truncated ?? false,
      tokens: { length: c.length },
    })),
  );
}

export interface StepScaling {
  scaling: Scaling;
  /** The logged advantages all equal this scaling's (false also when none were logged). */
  matchesLog: boolean;
  /** How many completions of the step carry a logged advantage. */
  logged: number;
}

/** Which normalisation reproduces the step's logged advantages (the first that does; TRL's default when none do). */
export function inferScaling(step: RunStep): StepScaling {
  const recs = derivationRecords(step);
  const withLog = recs.filter((r) => Number.isFinite(r.advantage));
  if (!withLog.length) return { scaling: 'group', matchesLog: false, logged: 0 };
  for (const scaling of scalings) {
    if (withLog.every((r) => deriveAdvantage(recs, r, settingsFor(scaling)).matches)) {
      return { scaling, matchesLog: true, logged: withLog.length };
    }
  }
  return { scaling: 'group', matchesLog: false, logged: withLog.length };
}

/** The advantage of one completion (by its position in its group as the file holds it), derived on screen. */
export function deriveCompletion(
  step: RunStep,
  group: RunGroup,
  position: number,
  scaling: Scaling,
): AdvantageDerivation {
  const recs = derivationRecords(step);
  const rec = recs.find((r) => r.group === group.index && r.index === position);
  if (!rec) throw new Error(`step ${step.step} has no completion ${position} in group ${group.index}`);
  return deriveAdvantage(recs, rec, settingsFor(scaling));
}

/** Curves worth showing first, in this order, when the logs hold them (TRL's names; veRL's where they differ). */
const preferredCurves = [
  'reward',
  'reward_std',
  'frac_reward_zero_std',
  'completions/mean_length',
  'entropy',
  'kl',
  'critic/score/mean',
  'response_length/mean',
  'actor/entropy',
  'actor/kl_loss',
  'loss',
];

/** Every metric key with at least one finite value: the preferred ones first, then the rest by name. */
export function curveKeys(metrics: MetricPoint[]): string[] {
  const seen = new Set<string>();
  for (const m of metrics) for (const [k, v] of Object.entries(m.values)) if (Number.isFinite(v)) seen.add(k);
  const first = preferredCurves.filter((k) => seen.has(k));
  const rest = [...seen].filter((k) => !first.includes(k)).sort();
  return [...first, ...rest];
}

/**
 * The curves shown before the person picks: the preferred ones present, else the first few keys (`keys`:
 * curveKeys(metrics), where the caller has them already: each is a pass over every logged step).
 */
export function defaultCurves(metrics: MetricPoint[], max = 4, keys = curveKeys(metrics)): string[] {
  const preferred = keys.filter((k) => preferredCurves.includes(k));
  return (preferred.length ? preferred : keys).slice(0, max);
}

/** One curve's points as logged, [step, value], skipping steps that did not log it. */
export function curvePoints(metrics: MetricPoint[], key: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of metrics) {
    const v = m.values[key];
    if (typeof v === 'number' && Number.isFinite(v)) out.push([m.step, v]);
  }
  return out;
}

/** Rows for a chart of one key over several runs: `s0`, `s1`… hold each run's value at a step (null: absent). */
export function overlayRows(runs: MetricPoint[][], key: string): ({ step: number } & Record<string, number | null>)[] {
  const byStep = new Map<number, { step: number } & Record<string, number | null>>();
  runs.forEach((metrics, i) => {
    for (const [step, v] of curvePoints(metrics, key)) {
      const row = byStep.get(step) ?? byStep.set(step, { step }).get(step)!;
      row[`s${i}`] = v;
    }
  });
  const rows = [...byStep.values()].sort((a, b) => a.step - b.step);
  for (const row of rows) for (let i = 0; i < runs.length; i++) row[`s${i}`] ??= null;
  return rows;
}

export interface PromptStep {
  step: number;
  /** The step's completions of the prompt, highest reward first. */
  hits: RunSearchHit[];
  mean: number;
}

/** Search hits for one prompt, by step (ascending), each step's completions sorted by reward. */
export function promptTimeline(hits: RunSearchHit[]): PromptStep[] {
  const by = new Map<number, RunSearchHit[]>();
  for (const h of hits) (by.get(h.step) ?? by.set(h.step, []).get(h.step)!).push(h);
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, hs]) => {
      const sorted = hs.map((h, i) => ({ h, i })).sort((a, b) => rank(b.h.reward) - rank(a.h.reward) || a.i - b.i);
      return { step, hits: sorted.map((x) => x.h), mean: groupStats(hs.map((h) => h.reward)).mean };
    });
}

/** The step nearest to `wanted` among the run's steps (a link's step that the run does not have). */
export { nearestStep } from '../../runs/nearest-step.ts';

/** A short number for a table cell: integers as they are, others to 4 significant decimals. */
export function cell(v: number | undefined | null, digits = 4): string {
  if (typeof v !== 'number') return '—';
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}
