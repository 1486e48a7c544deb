/**
 * The pure fold of a worker's run events (workers/protocol.ts SessionEvent) into a Compare side
 * (store.ts CompareSide): its metrics, evaluations, state, step, pace and error. No store, no worker:
 * compare.ts applies what it returns. The first step towards one reducer of a run (docs/architecture.md); the live
 * run (controller.ts onEvents) still folds its own events.
 */
import type { SessionEvent } from '../../../workers/protocol.ts';
import { compactHistory } from './chart-data.ts';
import type { CompareSide } from '../state/store.ts';

/** The numeric difficulty knobs a step ran at, as `difficulty/<knob>` metrics (a curriculum's level over time). */
export function difficultyMetrics(d: Record<string, number | string> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(d ?? {})) {
    if (typeof v === 'number' && Number.isFinite(v)) out[`difficulty/${k}`] = v;
  }
  return out;
}

/** What one batch of events changes on a side, and whether its Pause is still waiting for the worker. */
export interface SideFold {
  /** Only the fields that changed: empty when the batch changed nothing the side shows. */
  next: Partial<CompareSide>;
  pauseAsked: boolean;
}

/**
 * One batch of a side's events. Metrics and evaluations are copied only when a step or an evaluation
 * arrived. pauseAsked: Pause was pressed and the worker has not yet stopped, so "running" reads "pausing".
 */
export function foldSideEvents(s: CompareSide, events: SessionEvent[], pauseAsked: boolean): SideFold {
  const steps = events.filter((e): e is Extract<SessionEvent, { type: 'step' }> => e.type === 'step');
  const newEvals = events
    .filter((e): e is Extract<SessionEvent, { type: 'eval' }> => e.type === 'eval')
    .map((e) => e.point)
    .filter((p, i, all) => !s.evals.some((x) => x.step === p.step) && all.findIndex((q) => q.step === p.step) === i);
  let state = s.state;
  let step = s.step;
  let error = s.error;
  let stepsPerMinute = s.stepsPerMinute ?? 0;
  for (const e of events) {
    if (e.type === 'status') {
      // A failed init leaves the worker idle: keep showing the error.
      state = state === 'error' && e.status.state === 'idle' ? state : e.status.state;
      if (state === 'running' && pauseAsked) state = 'pausing';
      else if (state !== 'running') pauseAsked = false;
      step = e.status.step;
      stepsPerMinute = e.status.stepsPerMinute;
    } else if (e.type === 'error') error = e.message;
  }
  const next: Partial<CompareSide> = {};
  const stepMetrics = steps.map((e) => ({ ...e.metrics, ...difficultyMetrics(e.difficulty) }));
  if (steps.length) next.metrics = compactHistory([...s.metrics, ...stepMetrics]);
  if (newEvals.length) next.evals = [...s.evals, ...newEvals];
  if (state !== s.state) next.state = state;
  if (step !== s.step) next.step = step;
  if (error !== s.error) next.error = error;
  if (stepsPerMinute !== (s.stepsPerMinute ?? 0)) next.stepsPerMinute = stepsPerMinute;
  return { next, pauseAsked };
}
