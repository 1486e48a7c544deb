/**
 * One model of a run in the UI, and the one pure reducer of a worker's run events (workers/protocol.ts
 * SessionEvent). `RunSeries` is what every slot that shows a run holds: the live run (the store's `run`, a
 * `LiveSeries`: store.ts LiveRun), each Compare side (store.ts CompareSide extends it) and an open recording
 * (`recording.series`). `foldRunEvents` folds a batch of events into either: it returns the fields that
 * changed and, as plain data, the effects the caller applies (notices, waits, autosave, the WebGPU fallback).
 * No store, no worker, no browser global: controller.ts onEvents and compare.ts onEvents apply what it returns.
 * A recording is not folded from events: `recordedSeries` opens its record as a series up to a step (the store's
 * `recording.series`, what recording.ts scrubTo sets), read by the charts as they read the live run's.
 */
import type {
  EvalPoint,
  RolloutSummary,
  RunState,
  SaveCost,
  SessionEvent,
  StepMetrics,
} from '../../../workers/protocol.ts';
import type { RunRecord } from '../../record/format.ts';
import { compactHistory } from './chart-data.ts';

/** The numeric difficulty knobs a step ran at, as `difficulty/<knob>` metrics (a curriculum's level over time). */
export function difficultyMetrics(d: Record<string, number | string> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(d ?? {})) {
    if (typeof v === 'number' && Number.isFinite(v)) out[`difficulty/${k}`] = v;
  }
  return out;
}

/** A run as every slot holds it: live, in Compare, or an open recording. */
export interface RunSeries {
  /** One row per step, compacted (chart-data.ts compactHistory) once a long run has many. */
  metrics: StepMetrics[];
  /** Held-out pass@k evaluations (when the config has eval_every > 0), one per step. */
  evals: EvalPoint[];
  /**
   * The worker's run state ('pausing' while a Pause waits for it), or a slot's own: 'recorded' for a
   * recording shown in a Compare side, 'crashed' for a live worker that died.
   */
  state: RunState | 'recorded' | 'crashed';
  step: number;
  /** The worker's pace over the recent steps (0 until two steps are done). */
  stepsPerMinute?: number;
  /** The last error the worker reported; the live run shows its errors in the page's banner instead (null). */
  error: string | null;
}

/** How far the live run's current wait is (the worker's activity). */
export interface RunProgress {
  what: string;
  done: number;
  total: number;
  phase?: string;
}

/** What the live run holds beyond a series: the rollouts' summaries, the histogram, the status bar's figures. */
export interface LiveSeries extends RunSeries {
  /** The last 200 steps' rollout summaries. */
  summaries: RolloutSummary[];
  histogram: { edges: number[]; counts: number[] } | null;
  state: RunState | 'crashed';
  stepBudget: number;
  stepsPerMinute: number;
  lastStepSeconds: number;
  activity: string;
  rolloutSteps: number[];
  /** Cleared when the activity changes. */
  progress: RunProgress | null;
}

/** What an event asks of the page beyond the series: the caller decides which it acts on. */
export type RunEffect =
  /** Each step, in order: the live run remembers the step shown and the skipped-step notice. */
  | { kind: 'step'; step: number; skipped: boolean }
  | { kind: 'progress'; what: Extract<SessionEvent, { type: 'progress' }>['what']; done: number; total: number }
  | { kind: 'saved'; runId: string; step: number; savedAt: string; ms: SaveCost }
  | { kind: 'save-failed'; runId: string; message: string; name: string }
  /** The loop paused itself after steps that were not finite. */
  | { kind: 'non-finite'; message: string }
  /** The WebGPU device is gone. */
  | { kind: 'device-lost'; message: string }
  /** Any other error: `fatal` when training stopped rather than paused. */
  | { kind: 'error'; message: string; fatal: boolean };

export interface FoldContext {
  /**
   * 'live': the page's own run (its LiveSeries fields are folded too). 'side': a Compare side, whose rows carry
   * the difficulty knobs (Compare draws them: CompareCharts.tsx) and whose 'error' outlives the idle status a
   * failed init leaves its worker in.
   */
  slot: 'live' | 'side';
  /** Pause was pressed and the worker has not yet stopped: a "running" status reads "pausing". */
  pauseAsked: boolean;
}

/** What one batch of events changes, what it asks of the page, and whether Pause still waits. */
export interface RunFold<S extends RunSeries> {
  /** Only the fields that changed: empty when the batch changed nothing the slot shows. */
  next: Partial<S>;
  effects: RunEffect[];
  pauseAsked: boolean;
}

/**
 * One batch of a run's events. Metrics and evaluations are copied only when a new step or evaluation
 * arrived (a step no later than the last row, or an evaluation of a step already held, is dropped).
 */
export function foldRunEvents(
  series: LiveSeries,
  events: SessionEvent[],
  ctx: FoldContext & { slot: 'live' },
): RunFold<LiveSeries>;
/** A side's own fields (its label, config…) pass through: `next` holds only the series' fields, states of RunState. */
export function foldRunEvents<S extends RunSeries>(
  series: S,
  events: SessionEvent[],
  ctx: FoldContext & { slot: 'side' },
): RunFold<S>;
export function foldRunEvents(
  series: RunSeries & Partial<LiveSeries>,
  events: SessionEvent[],
  ctx: FoldContext,
): RunFold<LiveSeries> {
  const live = ctx.slot === 'live';
  const cur = { ...series } as LiveSeries;
  let { pauseAsked } = ctx;
  const effects: RunEffect[] = [];
  for (const e of events) {
    if (e.type === 'step') {
      effects.push({ kind: 'step', step: e.metrics.step, skipped: e.skipped });
      const last = cur.metrics[cur.metrics.length - 1];
      if (!last || last.step < e.metrics.step)
        cur.metrics = [...cur.metrics, live ? e.metrics : { ...e.metrics, ...difficultyMetrics(e.difficulty) }];
      if (live) {
        cur.summaries = [...cur.summaries.slice(-199), e.summary];
        cur.histogram = e.histogram;
      }
    } else if (e.type === 'eval') {
      if (!cur.evals.some((x) => x.step === e.point.step)) cur.evals = [...cur.evals, e.point];
    } else if (e.type === 'status') {
      const st = e.status;
      // A failed init leaves a side's worker idle: keep showing the error.
      const keepError = !live && cur.state === 'error' && st.state === 'idle';
      if (!keepError) cur.state = st.state === 'running' && pauseAsked ? 'pausing' : st.state;
      if (keepError || st.state !== 'running') pauseAsked = false;
      cur.step = st.step;
      cur.stepsPerMinute = st.stepsPerMinute;
      if (live) {
        // A new activity starts its own count: the last one's "100%" must not linger on the next wait.
        if (!st.activity || st.activity !== cur.activity) cur.progress = null;
        Object.assign(cur, {
          stepBudget: st.stepBudget,
          lastStepSeconds: st.lastStepSeconds,
          activity: st.activity,
          rolloutSteps: st.rolloutSteps,
        });
      }
    } else if (e.type === 'progress') {
      effects.push({ kind: 'progress', what: e.what, done: e.done, total: e.total });
      if (live) cur.progress = { what: e.what, done: e.done, total: e.total, phase: e.phase };
    } else if (e.type === 'saved') {
      effects.push({ kind: 'saved', runId: e.runId, step: e.step, savedAt: e.savedAt, ms: e.ms });
    } else if (e.type === 'save-failed') {
      effects.push({ kind: 'save-failed', runId: e.runId, message: e.message, name: e.name });
    } else if (e.type === 'error') {
      cur.error = e.message;
      effects.push(
        e.code ? { kind: e.code, message: e.message } : { kind: 'error', message: e.message, fatal: e.fatal },
      );
    }
  }
  if (cur.metrics !== series.metrics) cur.metrics = compactHistory(cur.metrics);
  const next: Partial<LiveSeries> = {};
  for (const k of Object.keys(cur) as (keyof LiveSeries)[])
    if (cur[k] !== series[k] && !(k === 'stepsPerMinute' && cur[k] === (series[k] ?? 0)))
      (next as Record<string, unknown>)[k] = cur[k];
  return { next, effects, pauseAsked };
}

/**
 * A record opened as a run series up to `at` (the scrubber's step): its metrics and evaluations of steps no later
 * than `at`, and the last advantage histogram it holds by then (what the histogram chart draws). In a Compare
 * side (`slot` 'side') each step's metrics also carry its difficulty, as foldRunEvents gives a live side's.
 */
export function recordedSeries(
  record: Pick<RunRecord, 'steps' | 'evals'>,
  at: number,
  slot: FoldContext['slot'] = 'live',
): { series: RunSeries; histogram: LiveSeries['histogram'] } {
  const steps = record.steps.filter((s) => s.step <= at);
  let histogram: LiveSeries['histogram'] = null;
  for (const s of steps) if (s.advantage_histogram) histogram = s.advantage_histogram;
  const series: RunSeries = {
    metrics: steps.map((s) => (slot === 'live' ? s.metrics : { ...s.metrics, ...difficultyMetrics(s.difficulty) })),
    evals: record.evals.filter((e) => e.step <= at),
    state: 'recorded',
    step: at,
    error: null,
  };
  return { series, histogram };
}
