/**
 * Time estimates in the page: the pace measured from this device's steps (time-estimate.ts holds the
 * arithmetic) and the "about N min" each long action shows before it starts and while it runs.
 */
import type { Lesson } from '../../lessons/index.ts';
import { resolveOrThrow } from '../../rl/resolve-config.ts';
import type { RunConfig, StepMetrics } from '../../../workers/protocol.ts';
import { appDefaults } from '../derive/config-form.ts';
import { lessonRunPlans } from '../derive/lesson-plan.ts';
import { defaultCheckpointFor, effectiveDraftConfig, selectedManifest } from './setup-state.ts';
import { browserStorage } from './browser-storage.ts';
import { getState, setState, type AppState } from './store.ts';
import {
  aboutTime,
  paceOf,
  passKSeconds,
  secondsLeft,
  trainingSeconds,
  UNKNOWN_TIME,
  savePace,
  waitSecondsLeft,
} from '../derive/time-estimate.ts';

/** Steps the pace is measured over: the latest few, without the first (it compiles the graphs). */
const PACE_WINDOW = 8;

/**
 * Records the pace of a run's latest steps on this device; `parallel` runs shared it meanwhile.
 * `firstStepWall`: seconds from Start to the first step's end, where this page saw a fresh run start.
 */
export function recordPace(
  metrics: StepMetrics[],
  config: RunConfig | null,
  parameters: number | undefined,
  backend: string | undefined,
  parallel = 1,
  firstStepWall: number | null = null,
): void {
  if (!config || !parameters || !backend || !metrics.length) return;
  const recent = (metrics.length > 1 ? metrics.slice(1) : metrics).slice(-PACE_WINDOW);
  const pace = paceOf(
    recent.map((m) => ({
      samplingSeconds: m['time/sampling'] ?? NaN,
      updateSeconds: m['time/update'] ?? NaN,
      stepSeconds: m['time/step'],
    })),
    config,
    parameters,
    backend,
    parallel,
    // Only with a step after the first to compare with: the first one carries the start.
    metrics.length > 1 ? firstStepWall : null,
  );
  if (!pace) return;
  // A run that did not start here (restored, resumed) says nothing of the start: the one measured before stays.
  const before = getState().pace;
  const kept = pace.start === undefined && before?.backend === backend ? before.start : undefined;
  const measured = kept !== undefined ? { ...pace, start: kept } : pace;
  savePace(measured, browserStorage());
  setState({ pace: measured });
}

/** The stored pace, when it was measured on the backend the setup forces (any, when it forces none). */
export const forBackend = (s: AppState) =>
  s.pace && (!s.setup.backend || s.pace.backend === s.setup.backend) ? s.pace : null;

/** The main run (a recipe run included): its step budget's time before Start, what is left while it trains. */
export function mainRunEstimate(s = getState()): string | null {
  const r = s.run;
  const budget = s.setup.stepBudget;
  if (budget <= 0) return openEndedEstimate(s);
  const stepsLeft = Math.max(0, budget - r.step);
  if (stepsLeft === 0) return null;
  if (r.state === 'running' || r.state === 'pausing') {
    const left = secondsLeft([{ step: r.step, budget, stepsPerMinute: r.stepsPerMinute }]);
    if (left !== null) return `${aboutTime(left)} left on this device (measured from its steps)`;
  }
  const pace = forBackend(s);
  const config = r.config ?? effectiveDraftConfig(s);
  const parameters = r.model?.parameters ?? selectedManifest(s)?.parameters;
  if (!pace || !config || !parameters) return `${stepsLeft} steps: ${UNKNOWN_TIME}`;
  const fresh = r.step === 0;
  return (
    `${stepsLeft} steps: ${aboutTime(trainingSeconds(pace, [{ config, parameters, steps: stepsLeft }], fresh))} ` +
    'on this device'
  );
}

/** Steps a newcomer's first run is worth watching for: the time line of a run without a step budget names it. */
export const LOOK_AT_STEPS = 100;

const perStep = (seconds: number) => (seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`);

/**
 * A run without a step budget trains until paused: its time line is the time per step and steps per
 * minute (measured from its own steps while it trains, else from this device's pace), and what
 * LOOK_AT_STEPS steps would take.
 */
function openEndedEstimate(s: AppState): string {
  const r = s.run;
  if ((r.state === 'running' || r.state === 'pausing') && r.stepsPerMinute > 0) {
    const sec = 60 / r.stepsPerMinute;
    const left = Math.max(0, LOOK_AT_STEPS - r.step);
    return (
      `no step budget: ${perStep(sec)} per step (${r.stepsPerMinute.toFixed(1)} ` +
      `steps/min, measured)${left > 0 ? `; step ${LOOK_AT_STEPS} in ${aboutTime(left * sec)}` : ''}`
    );
  }
  const pace = forBackend(s);
  const config = r.config ?? effectiveDraftConfig(s);
  const parameters = r.model?.parameters ?? selectedManifest(s)?.parameters;
  if (!pace || !config || !parameters)
    return `no step budget (it trains until you pause): time per step known after the first steps on this device`;
  const sec = trainingSeconds(pace, [{ config, parameters, steps: 1 }]);
  return (
    `no step budget: about ${perStep(sec)} per step on ` +
    `this device (${(60 / sec).toFixed(1)} steps/min); ` +
    `${LOOK_AT_STEPS} steps ${aboutTime(sec * LOOK_AT_STEPS)}`
  );
}

/** A lesson's runs, side by side, `steps` each (its own budget when 0), from its task's checkpoint. */
export function lessonEstimate(lesson: Lesson, steps: number, s = getState()): string {
  const n = steps > 0 ? steps : lesson.steps;
  const pace = forBackend(s);
  const manifest =
    s.checkpoints.find((c) => c.id === defaultCheckpointFor(lesson.task, s.checkpoints))?.manifest ?? null;
  if (!pace || !manifest) return UNKNOWN_TIME;
  try {
    const runs = lessonRunPlans(lesson).map((p) => ({
      config: resolveOrThrow({
        manifest,
        appDefaults,
        layers: [{ source: { kind: 'lesson', lesson: lesson.id }, values: p.patch }],
      }),
      parameters: manifest.parameters,
      steps: n,
    }));
    return `${aboutTime(trainingSeconds(pace, runs, true))} on this device`;
  } catch {
    return UNKNOWN_TIME;
  }
}

/** pass@k (base vs current): before pressing, from the pace; while it samples, from its own progress. */
export function passKEstimate(startedAt: number | null, now: number, s = getState()): string | null {
  const p = s.run.progress;
  if (s.passk.running && startedAt !== null && p?.what.startsWith('passk')) {
    // The base policy's samples come first (when not cached), then the current policy's as many again.
    const total = p.what === 'passk-base' ? p.total * 2 : p.total;
    const left = waitSecondsLeft(p.done, total, (now - startedAt) / 1000);
    if (left !== null) return `${aboutTime(left)} left`;
  }
  if (s.passk.running) return null;
  const pace = forBackend(s);
  const config = s.run.config ?? effectiveDraftConfig(s);
  const parameters = s.run.model?.parameters ?? selectedManifest(s)?.parameters;
  if (!pace || !config || !parameters) return UNKNOWN_TIME;
  return `${aboutTime(passKSeconds(pace, config, parameters, !s.passk.curve))} on this device`;
}
