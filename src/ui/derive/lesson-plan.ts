/**
 * Guided experiments in the page (pure, unit-tested in lesson-plan.test.ts): what each lesson run
 * trains with, the setup form and Compare form that show it, and reading the measured outcomes that
 * `rlvr lesson run ID` records in public/lessons/measured.json.
 *
 * A lesson run here is the run `rlvr lesson run` measures: preset ← the run's config, on the lesson's
 * task, from the task's shipped checkpoint at its measured difficulty, on the same seed (the recorded
 * one, else the CLI's default 1). Held-out evaluation is off (as in the CLI) except for lessons whose
 * outcome is pass@k.
 */
import { configFields, validateConfig, type RunConfig } from '../../rl/config.ts';
import { lessons, type Lesson, type LessonRun, type MeasuredLesson, type Verdict } from '../../lessons/index.ts';
import { getPreset } from '../../rl/presets.ts';
import { chartSpecs } from './chart-specs.ts';
import { baseValue, draftPatch, toText, type EditOrigin, type Edits, type SetupDraft } from './config-form.ts';

/** `rlvr lesson run`'s default --seed. */
export const LESSON_SEED = 1;
/** Held-out pass@k every this many steps, for lessons measured by pass@k (step 0 = the base policy). */
export const LESSON_EVAL_EVERY = 10;
/** The held-out evaluation of a lesson run in the page: 64 prompts × num_generations samples (eval_samples 0). */
export const LESSON_EVAL = { eval_prompts: 64, eval_samples: 0 } as const;
/** Compare runs at most this many configs at once (A, B, C). */
export const MAX_LESSON_RUNS = 3;
export const SIDE_NAMES = ['A', 'B', 'C'] as const;

export const lessonIds = (): string[] => lessons.map((l) => l.id);

export function findLesson(id: string | null | undefined): Lesson | undefined {
  return id ? lessons.find((l) => l.id === id) : undefined;
}

export function unknownLessonMessage(id: string): string {
  return `unknown lesson "${id}" (known: ${lessonIds().join(', ')})`;
}

/** Whether the lesson's outcome is held-out pass@k (its runs evaluate periodically). */
export const usesEval = (l: Lesson): boolean =>
  l.measures.some((m) => m.metric === 'eval') || l.lookAt.includes('eval');

/** The config patch one run of a lesson trains with (over the defaults; the worker resolves the difficulty). */
export function lessonRunPatch(lesson: Lesson, run: LessonRun, seed = LESSON_SEED): Record<string, unknown> {
  // The page's app defaults go under the checkpoint's recipe: the worker's init request carries them beside this patch.
  // A lesson that evaluates keeps the evaluation it was designed and measured with (LESSON_EVAL), not the
  // demo's 160 × 2: its held-out chart shows pass@k up to num_generations.
  return {
    ...getPreset(run.preset).config,
    seed,
    eval_every: usesEval(lesson) ? LESSON_EVAL_EVERY : 0,
    ...(usesEval(lesson) ? LESSON_EVAL : {}),
    ...run.config,
    task: lesson.task,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The setup form (preset + edits) that describes one lesson run: draftPatch(result) validates to the same config. */
export function lessonDraft(lesson: Lesson, run: LessonRun, seed = LESSON_SEED): SetupDraft {
  const want = lessonRunPatch(lesson, run, seed);
  const edits: Edits = {};
  const knobs: Record<string, string> = {};
  for (const [k, v] of Object.entries(want)) {
    if (k === 'task' || k === 'version') continue;
    if (k === 'difficulty') {
      for (const [knob, kv] of Object.entries(v as Record<string, unknown>)) knobs[knob] = String(kv);
      continue;
    }
    if (k === 'reward_weights') {
      for (const [sub, sv] of Object.entries(v as Record<string, unknown>)) {
        const path = `reward_weights.${sub}`;
        if (!same(sv, baseValue(path, run.preset))) edits[path] = toText(sv);
      }
      continue;
    }
    if (!same(v, baseValue(k, run.preset))) edits[k] = toText(v);
  }
  // Each field the lesson set says so beside it ("lesson ID"), until the person changes it.
  const origin: EditOrigin = `lesson:${lesson.id}`;
  const origins = Object.fromEntries(
    [...Object.keys(edits), ...Object.keys(knobs).map((k) => `difficulty.${k}`)].map((path) => [path, origin]),
  );
  return { task: lesson.task, presetId: run.preset, edits, knobs, origins };
}

const assignment = (key: string, v: unknown) => `${key}=${typeof v === 'string' ? v : JSON.stringify(v)}`;

/** `key=value` lines that turn the config of `from` into that of `to` (the Compare form's B overrides). */
export function overrides(to: Record<string, unknown>, from: Record<string, unknown>): string[] {
  const a = validateConfig(from);
  const b = validateConfig(to);
  const lines: string[] = [];
  for (const k of configFields) {
    if (same(a[k], b[k])) continue;
    if (k === 'reward_weights' || k === 'difficulty') {
      const av = a[k] as Record<string, unknown>;
      const bv = b[k] as Record<string, unknown>;
      for (const sub of Object.keys(bv)) if (!same(av[sub], bv[sub])) lines.push(assignment(`${k}.${sub}`, bv[sub]));
    } else lines.push(assignment(k, b[k]));
  }
  return lines;
}

export interface LessonCompareForm {
  /** The setup form: run A. */
  draft: SetupDraft;
  /** The Compare form's B: preset and overrides over the setup. */
  presetB: string;
  editsB: string;
}

/** The forms that show the lesson: the setup is run A; Compare's B is run B (run C has no form). */
export function lessonForms(lesson: Lesson, seed = LESSON_SEED): LessonCompareForm {
  const [a, b] = lesson.runs;
  const draft = lessonDraft(lesson, a!, seed);
  if (!b) return { draft, presetB: a!.preset, editsB: '' };
  const formB = draftPatch({ ...draft, presetId: b.preset });
  return { draft, presetB: b.preset, editsB: overrides(lessonRunPatch(lesson, b, seed), formB).join('\n') };
}

export interface LessonRunPlan {
  label: string;
  patch: Record<string, unknown>;
}

/** What Compare starts for a lesson: one labelled patch per run (A, B, C). */
export function lessonRunPlans(lesson: Lesson, seed = LESSON_SEED): LessonRunPlan[] {
  return lesson.runs
    .slice(0, MAX_LESSON_RUNS)
    .map((r, i) => ({ label: `${SIDE_NAMES[i]}: ${r.label}`, patch: lessonRunPatch(lesson, r, seed) }));
}

/** The validated config a lesson run should end up with (without the difficulty, which the checkpoint sets). */
export function expectedConfig(lesson: Lesson, run: LessonRun, seed = LESSON_SEED): RunConfig {
  return validateConfig(lessonRunPatch(lesson, run, seed));
}

// ---- measured outcomes --------------------------------------------------------------------------

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The entries of measured.json worth showing: an object keyed by lesson id, each with a summary and
 * runs. Malformed entries are dropped (and counted), never shown half-read.
 */
export function parseMeasured(json: unknown): { measured: Record<string, MeasuredLesson>; dropped: number } {
  if (!isRecord(json)) throw new Error('measured.json is not a JSON object keyed by lesson id');
  const measured: Record<string, MeasuredLesson> = {};
  let dropped = 0;
  for (const [id, e] of Object.entries(json)) {
    if (
      !isRecord(e) ||
      typeof e.summary !== 'string' ||
      !Array.isArray(e.runs) ||
      !e.runs.every((r) => isRecord(r) && typeof r.label === 'string' && isRecord(r.values))
    ) {
      dropped++;
      continue;
    }
    measured[id] = e as unknown as MeasuredLesson;
  }
  return { measured, dropped };
}

/** A measured number as the lesson card shows it (as the CLI's summary formats it). */
export { formatMeasured as fmtMeasured } from '../../lessons/index.ts';

// ---- what to look at ----------------------------------------------------------------------------

const TITLES: Record<string, string> = {
  loss: 'Loss',
  reward: 'Reward',
  accuracy: 'Accuracy (strict verifier)',
  'accuracy/observed': 'Accuracy as judged by the training verifier',
  frac_reward_zero_std: 'Zero-variance groups',
  sampling_rounds: 'Sampling rounds per step',
  'completions/mean_length': 'Response length',
  'completions/mean_length_wrong': 'Length of wrong answers',
  'length_bias/push_ratio': 'Length bias (per-token push, longest ÷ shortest wrong answer)',
  entropy: 'Entropy',
  'clip_ratio/low_mean': 'Clip fraction (low)',
  'clip_ratio/high_mean': 'Clip fraction (high)',
  'clip_ratio/region_mean': 'Clip fraction (all clipped tokens)',
  'ratio/min': 'Importance ratio (min)',
  'ratio/max': 'Importance ratio (max)',
  'ratio/mean': 'Importance ratio (mean)',
  noise_flips: 'Verdicts flipped by the noise',
  kl: 'KL',
  grad_norm: 'Gradient norm',
  eval: 'Held-out pass@k',
  difficulty: 'Difficulty (curriculum level)',
};

/**
 * A verdict's text as the card and the banner show it, under their headline "The effect shows.": a
 * leading "Shows: " would only repeat that headline, so it is dropped. Every other text is shown
 * whole ("Does not show at this difficulty: …" says more than the headline does).
 */
export function verdictBody(v: Verdict): string {
  const rest = v.shows && v.text.startsWith('Shows: ') ? v.text.slice('Shows: '.length) : v.text;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/**
 * A metric's name as its chart shows it, so a banner, a card and a chart name one thing alike: the Charts
 * tab's chart (chartSpecs) that draws it, and its line where that chart has several ("Accuracy (batch
 * pass@1): first round"); the titles above for the rest.
 */
export function metricTitle(key: string): string {
  const spec = chartSpecs.find((s) => s.lines.some((l) => l.key === key));
  if (!spec) return TITLES[key] ?? key;
  const line = spec.lines.find((l) => l.key === key)!;
  return spec.lines.length > 1 ? `${spec.title}: ${line.label}` : spec.title;
}
