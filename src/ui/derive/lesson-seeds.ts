/**
 * A lesson's recorded runs over all of its seeds. The verdict (src/lessons/lesson.ts) judges the mean
 * over the lesson's seeds, so the curves a lesson shows are that mean, with each seed's own curve
 * drawn faintly behind it (ComparePanel.tsx); the scrubber and rollouts show one seed's record, one
 * on which the effect shows when there is one (pure: unit-tested in lesson-seeds.test.ts).
 */
import type { EvalPoint } from '../../rl/run.ts';
import type { RunRecord } from '../../record/run-record.ts';
import type { StepMetrics } from '../../rl/step-records.ts';
import type { Verdict } from '../../lessons/index.ts';

/** One seed's curves of an arm, drawn as a faint line behind the mean. */
export interface SeedCurves {
  seed: number;
  metrics: StepMetrics[];
}

/** Per step, each metric's mean over the records that have it (a step is kept only where every record has it). */
export function meanMetrics(runs: StepMetrics[][]): StepMetrics[] {
  if (!runs.length) return [];
  const byStep = runs.map((r) => new Map(r.map((m) => [m.step, m])));
  const steps = [...byStep[0]!.keys()].filter((s) => byStep.every((m) => m.has(s))).sort((a, b) => a - b);
  return steps.map((step) => {
    const rows = byStep.map((m) => m.get(step)!);
    const out: StepMetrics = { step };
    const keys = new Set(rows.flatMap((r) => Object.keys(r)));
    for (const k of keys) {
      if (k === 'step') continue;
      const xs = rows.map((r) => r[k]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
      if (xs.length) out[k] = xs.reduce((a, b) => a + b, 0) / xs.length;
    }
    return out;
  });
}

/** Per evaluation step present in every record, pass@k's mean over the records for each k. */
export function meanEvals(runs: EvalPoint[][]): EvalPoint[] {
  if (!runs.length) return [];
  const byStep = runs.map((r) => new Map(r.map((e) => [e.step, e])));
  const steps = [...byStep[0]!.keys()].filter((s) => byStep.every((m) => m.has(s))).sort((a, b) => a - b);
  return steps.map((step) => {
    const points = byStep.map((m) => m.get(step)!);
    const pass_at_k: Record<string, number> = {};
    for (const k of Object.keys(points[0]!.pass_at_k)) {
      const xs = points.map((p) => p.pass_at_k[k]).filter((x): x is number => typeof x === 'number');
      if (xs.length === points.length) pass_at_k[k] = xs.reduce((a, b) => a + b, 0) / xs.length;
    }
    return { step, pass_at_k };
  });
}

/** An arm's curves from its records on every seed: the mean, and each seed's own. */
export function armOverSeeds(records: { seed: number; record: RunRecord; metrics: StepMetrics[] }[]): {
  metrics: StepMetrics[];
  evals: EvalPoint[];
  seeds: SeedCurves[];
} {
  return {
    metrics: meanMetrics(records.map((r) => r.metrics)),
    evals: meanEvals(records.map((r) => r.record.evals)),
    seeds: records.map((r) => ({ seed: r.seed, metrics: r.metrics })),
  };
}

/**
 * The seed whose rollouts a lesson shows: the first (in the lesson's order) on which the effect shows
 * alone, else `fallback` (the seed its outcome names). `showsOn` counts the seeds on which it shows.
 */
/** The seed shown, whether the effect shows on it alone, and on how many of how many seeds it does. */
export interface ShownSeed {
  seed: number;
  shows: boolean;
  showsOn: number;
  of: number;
}

export function seedToShow(perSeed: { seed: number; verdict: Verdict }[], fallback: number): ShownSeed {
  const showing = perSeed.filter((x) => x.verdict.shows);
  const pick = showing[0];
  return { seed: pick ? pick.seed : fallback, shows: !!pick, showsOn: showing.length, of: perSeed.length };
}

/** The banner's sentence on what the curves and the rollouts are. */
export function seedsSentence(seeds: readonly number[], shown: ShownSeed): string {
  const curves =
    `The curves are the mean over seeds ${seeds.join(', ')} (what the verdict judges); ` +
    'each seed alone is a faint line.';
  const tally = shown.of ? ` The effect shows on ${shown.showsOn} of the ${shown.of} seeds alone.` : '';
  const rollouts = shown.shows
    ? ` The scrubber and rollouts show seed ${shown.seed}, one on which it shows.`
    : ` The scrubber and rollouts show seed ${shown.seed}${shown.of ? ', on which it does not show alone' : ''}.`;
  return curves + tally + rollouts;
}
