/**
 * How long training and pass@k take on this device, as "about N s" or "about N min" (pure, unit-tested in
 * time-estimate.test.ts; the one stored value is read and written by `loadPace` / `savePace`).
 *
 * The pace is measured, never assumed: the seconds a step's sampling and update took on this device
 * (its `time/sampling` and `time/update` metrics), per unit of work. A unit is one token slot of one
 * completion through the whole model: sampling does prompts_per_step × num_generations ×
 * max_completion_length slots, an update that many again per pass (num_iterations), and each costs in
 * proportion to the model's parameters. So a pace measured on one config and checkpoint predicts
 * another's (a lesson's 64 prompts per step from a 2-prompt run), and runs side by side add up: they
 * share the device's cores. Once a run has steps of its own, its own steps/minute replace the pace.
 */
import { heldOutSamples, type RunConfig } from '../../rl/config.ts';

/** Seconds per unit of work (one completion token slot through a model of one parameter). */
export interface Pace {
  sampling: number;
  update: number;
  /** The backend it was measured on ('wasm', 'webgpu'). */
  backend: string;
  /**
   * Seconds a step spends outside sampling and the update (verifying, the page's share of the events), per
   * step: without it an 8-step estimate was a third short. Absent in a pace stored before.
   */
  other?: number;
  /** Seconds from Start to a fresh run's first step beyond a step's own (the worker, the model, the compile). */
  start?: number;
}

/** The samples of the held-out pass@k (workers/inspection.ts: 64 per prompt). */
export const PASSK_SAMPLES = 64;

type Work = Pick<
  RunConfig,
  | 'prompts_per_step'
  | 'num_generations'
  | 'max_completion_length'
  | 'num_iterations'
  | 'eval_every'
  | 'eval_prompts'
  | 'eval_samples'
>;

/** Token slots a step samples: prompts × generations × the completion cap. */
const slots = (c: Work) => c.prompts_per_step * c.num_generations * c.max_completion_length;

/** A step's measured timings on this device.  `parallel`: how many runs shared the device meanwhile. */
export interface MeasuredStep {
  samplingSeconds: number;
  updateSeconds: number;
  /** The whole step (its `time/step`), where recorded. */
  stepSeconds?: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/**
 * The pace from a run's measured steps (the median step, so one slow step does not swing it); null
 * without a usable step. A run that shared the device with `parallel - 1` others ran that much slower.
 */
export function paceOf(
  steps: MeasuredStep[],
  c: Work,
  parameters: number,
  backend: string,
  parallel = 1,
  firstStepWallSeconds: number | null = null,
): Pace | null {
  const ok = steps.filter(
    (s) =>
      Number.isFinite(s.samplingSeconds) &&
      Number.isFinite(s.updateSeconds) &&
      s.samplingSeconds > 0 &&
      s.updateSeconds >= 0,
  );
  const units = slots(c) * parameters;
  if (!ok.length || !(units > 0) || !(parallel >= 1)) return null;
  const whole = ok.filter((s) => Number.isFinite(s.stepSeconds) && s.stepSeconds! > 0);
  const other = whole.length
    ? Math.max(0, median(whole.map((s) => s.stepSeconds! - s.samplingSeconds - s.updateSeconds))) / parallel
    : undefined;
  const step = whole.length
    ? median(whole.map((s) => s.stepSeconds!))
    : median(ok.map((s) => s.samplingSeconds + s.updateSeconds));
  const start =
    firstStepWallSeconds !== null && Number.isFinite(firstStepWallSeconds)
      ? Math.max(0, firstStepWallSeconds - step) / parallel
      : undefined;
  return {
    sampling: median(ok.map((s) => s.samplingSeconds)) / parallel / units,
    update: median(ok.map((s) => s.updateSeconds)) / parallel / (units * c.num_iterations),
    backend,
    ...(other !== undefined ? { other } : {}),
    ...(start !== undefined ? { start } : {}),
  };
}

/** Seconds of one training step of `c` on a model of `parameters`, evaluations included (averaged over eval_every). */
export function stepSeconds(pace: Pace, c: Work, parameters: number): number {
  const units = slots(c) * parameters;
  const evalSlots =
    c.eval_every > 0 ? (c.eval_prompts * heldOutSamples(c) * c.max_completion_length * parameters) / c.eval_every : 0;
  return pace.sampling * (units + evalSlots) + pace.update * units * c.num_iterations + (pace.other ?? 0);
}

/**
 * Seconds for runs trained side by side, `steps` each: they share the device, so their work adds up. Runs
 * not started yet (`fresh`) also pay their start: each worker loads its model and compiles its graphs.
 */
export function trainingSeconds(
  pace: Pace,
  runs: { config: Work; parameters: number; steps: number }[],
  fresh = false,
): number {
  const start = fresh ? (pace.start ?? 0) * runs.length : 0;
  return runs.reduce((t, r) => t + stepSeconds(pace, r.config, r.parameters) * r.steps, start);
}

/** Seconds of the held-out pass@k (64 samples per prompt; the base policy too unless it is cached). */
export function passKSeconds(pace: Pace, c: Work, parameters: number, withBase: boolean): number {
  return pace.sampling * c.eval_prompts * PASSK_SAMPLES * c.max_completion_length * parameters * (withBase ? 2 : 1);
}

/** Seconds left of runs training now, from their own pace: the slowest run decides; null until each has one. */
export function secondsLeft(runs: { step: number; budget: number; stepsPerMinute: number }[]): number | null {
  let worst = 0;
  for (const r of runs) {
    const left = Math.max(0, r.budget - r.step);
    if (left === 0) continue;
    if (!(r.stepsPerMinute > 0)) return null;
    worst = Math.max(worst, (left / r.stepsPerMinute) * 60);
  }
  return worst;
}

/** Seconds left of a wait that has done `done` of `total` in `elapsed` seconds; null until something is done. */
export function waitSecondsLeft(done: number, total: number, elapsed: number): number | null {
  if (!(done > 0) || !(total > 0) || !(elapsed > 0)) return null;
  return (elapsed / done) * Math.max(0, total - done);
}

/**
 * "about N s" under a minute and a half (to 5 s, at least 5), else "about N min" (whole minutes). Whole
 * minutes alone said "about 1 min" for an 8-step run of 20 s: three times too long.
 */
export function aboutTime(seconds: number): string {
  if (seconds < 90) return `about ${Math.max(5, Math.round(seconds / 5) * 5)} s`;
  return `about ${Math.round(seconds / 60)} min`;
}

/** What the page says before a run on this device has measured any step. */
export const UNKNOWN_TIME = 'time known after the first steps on this device';

// ---- the stored pace ------------------------------------------------------------------------------

const KEY = 'rlvr-playground:pace';

/** The latest pace measured on this device (the one for `backend` when given and known). */
export function loadPace(backend: string | null | undefined, storage: Pick<Storage, 'getItem'> | null): Pace | null {
  try {
    const all = JSON.parse(storage?.getItem(KEY) ?? 'null') as {
      latest?: string;
      byBackend?: Record<string, Pace>;
    } | null;
    const p = all?.byBackend?.[backend ?? all.latest ?? ''] ?? null;
    return p && p.sampling > 0 && p.update >= 0 ? p : null;
  } catch {
    return null;
  }
}

/** Keeps the pace for its backend (storage full or off: the estimate says "known after the first steps" next time). */
export function savePace(p: Pace, storage: Pick<Storage, 'getItem' | 'setItem'> | null): void {
  try {
    const all = (JSON.parse(storage?.getItem(KEY) ?? 'null') as { byBackend?: Record<string, Pace> } | null) ?? {};
    storage?.setItem(KEY, JSON.stringify({ latest: p.backend, byBackend: { ...all.byBackend, [p.backend]: p } }));
  } catch {
    /* an estimate is a convenience */
  }
}
