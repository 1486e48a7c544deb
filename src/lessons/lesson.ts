import type { RunConfig } from '../rl/config.ts';
import type { ConfigInputs } from '../rl/resolve-config.ts';
import type { MetricKey } from '../rl/metrics.ts';

/**
 * Guided experiments: a lesson is a ready experiment (one or more configs run on the same seed), a
 * short text with what the paper reported, what to look at, and how its outcome is measured. The
 * measured outcome comes from `rlvr lesson run ID` (public/lessons/measured.json); a lesson never
 * claims an effect that run did not show.
 */
export interface LessonRun {
  label: string;
  preset: string;
  config: Partial<RunConfig>;
}

/**
 * One lesson run's config inputs for the resolver: its preset, then the run's config on the lesson's task, then `extra`
 * (seed, evaluation) over it.
 */
export function lessonRunInputs(lesson: Lesson, run: LessonRun, extra: Partial<RunConfig>): ConfigInputs {
  return {
    preset: run.preset,
    layers: [{ source: { kind: 'lesson', lesson: lesson.id }, values: { ...run.config, task: lesson.task, ...extra } }],
  };
}

export interface LessonMeasure {
  /** What the summary number is, per run. */
  description: string;
  /**
   * Metric averaged over the last `window` steps of each run (a key of the metric table, src/rl/metrics.ts), or 'eval'
   * for final held-out pass@k.
   */
  metric: MetricKey | 'eval';
  window: number;
  /**
   * Average the magnitude |x| instead of x, recorded under the key `|metric|` (measureKey). For a
   * quantity whose sign flips from step to step, like the loss, whose plain mean would hide its size.
   */
  abs?: boolean;
}

/**
 * A measured number as the lesson's table and summary print it: magnitudes below 0.001 in exponent form, so a loss of
 * 1e-8 does not read as 0.000.
 */
export function formatMeasured(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '—';
  if (x !== 0 && Math.abs(x) < 1e-3) return x.toExponential(1);
  return Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3);
}

/** The key a measure's value is recorded under in MeasuredRun.values. */
export const measureKey = (m: LessonMeasure): string => (m.abs ? `|${m.metric}|` : m.metric);

export interface Lesson {
  id: string;
  title: string;
  paper: string;
  /** What the paper reported, quoted from its abstract. */
  claim: string;
  text: string;
  /** Charts to look at: metric keys, 'eval' (held-out pass@k) or 'difficulty'. */
  lookAt: (MetricKey | 'eval' | 'difficulty')[];
  task: string;
  steps: number;
  runs: LessonRun[];
  measures: LessonMeasure[];
  /**
   * The seeds the verdict is measured on (its rule judges their mean); 1, 2 and 3 unless set. Fixed
   * here, with the rule, before the measurement: scripts/record-lessons.sh measures these.
   */
  seeds?: readonly number[];
  /**
   * Whether the measured numbers show the paper's effect, decided by a fixed rule on them (so the
   * lesson's verdict can never drift from its numbers), with one sentence saying why.
   */
  verdict: (m: MeasuredLesson) => Verdict;
}

export interface Verdict {
  shows: boolean;
  text: string;
}

/** The seeds a lesson is measured on (Lesson.seeds). */
export const lessonSeeds = (l: Lesson): readonly number[] => l.seeds ?? [1, 2, 3];

/** The numbers and stagings the lessons' rules share. */
export const v = (m: MeasuredLesson, run: number, metric: string): number => m.runs[run]?.values[metric] ?? NaN;
export const pk = (p: Record<string, number> | undefined, k: number): number => p?.[String(k)] ?? NaN;

/** Held-out prompts of a lesson's pass@k evaluation (rlvr lesson run). */
export const LESSON_EVAL_PROMPTS = 32;
/**
 * One standard error of a pass@k estimate near p over the lesson's held-out prompts: the noise a "no worse" rule
 * allows.
 */
export const passKNoise = (p: number) => Math.sqrt(Math.max(p * (1 - p), 0) / LESSON_EVAL_PROMPTS);
export const f3 = (x: number) => x.toFixed(3);
/**
 * The largest amount by which `run`'s pass@k falls below the base's over the base's k (0 when it never does), and that
 * k.
 */
export function largestShortfall(
  base: Record<string, number> | undefined,
  run: Record<string, number> | undefined,
): { gap: number; k: number } {
  let best = { gap: 0, k: 0 };
  for (const k of Object.keys(base ?? {})) {
    const gap = (base?.[k] ?? 0) - (run?.[k] ?? 0);
    if (gap > best.gap) best = { gap, k: Number(k) };
  }
  return best;
}
export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export const sat = 'sat';
/** Two clauses beyond the default SAT level: the base's pass@1 is about 0.03 (pass@8 about 0.2). */
export const hardSat = { n: 5, k: 3, m: 8, ratio: 0 };
/** (1 − 2p)^−2: how many more samples per step symmetric verdict noise p costs for the same signal-to-noise ratio. */
export const noiseCompensation = (p: number) => 1 / (1 - 2 * p) ** 2;
/** 4×4 sudoku with 10 blanks, the hardest 4×4 level: the base solves none (held-out pass@16 0). */
export const hardSudoku = { size: 4, blanks: 10 };
/** Five clauses: the hardest level sat-tiny's SFT saw (base pass@1 0.54, pass@16 1.0), where RL can only sharpen. */
export const trainedSat = { n: 5, k: 3, m: 5, ratio: 0 };

/** The verdict rule applied to each seed alone; the recorded verdict is the rule on the mean over seeds. */
export function perSeedVerdicts(lesson: Lesson, m: MeasuredLesson): { seed: number; verdict: Verdict }[] {
  return (m.per_seed ?? []).map((p) => ({
    seed: p.seed,
    verdict: lesson.verdict({ ...m, runs: p.runs, base_pass_at_k: p.base_pass_at_k, per_seed: undefined }),
  }));
}

export interface MeasuredRun {
  label: string;
  values: Record<string, number>;
  final_pass_at_k?: Record<string, number>;
}

export interface MeasuredLesson {
  id: string;
  steps: number;
  /** The first (or only) seed. */
  seed: number;
  /** Several seeds: `runs` and `base_pass_at_k` are their means; each seed's own numbers are in `per_seed`. */
  seeds?: number[];
  per_seed?: { seed: number; runs: MeasuredRun[]; base_pass_at_k?: Record<string, number> }[];
  date: string;
  runs: MeasuredRun[];
  base_pass_at_k?: Record<string, number>;
  summary: string;
}
