import { describe, expect, it } from 'vitest';
import type { SessionEvent, SessionStatus, StepMetrics } from '../../../workers/protocol.ts';
import { HISTORY_MAX_ROWS } from './chart-data.ts';
import { foldRunEvents, type LiveSeries, type RunSeries } from './run-series.ts';
import { idleSide } from '../state/store.ts';

const status = (state: SessionStatus['state'], step: number, activity = ''): SessionEvent => ({
  type: 'status',
  status: { state, step, stepsPerMinute: 6, activity, stepBudget: 9, lastStepSeconds: 2, rolloutSteps: [step] },
});
const stepEvent = (step: number, difficulty: Record<string, number | string> = {}, skipped = false): SessionEvent =>
  ({
    type: 'step',
    metrics: { step, reward: step / 10 } as StepMetrics,
    difficulty,
    histogram: { edges: [0, 1], counts: [step] },
    summary: { step },
    skipped,
  }) as SessionEvent;
const evalEvent = (step: number): SessionEvent => ({ type: 'eval', point: { step } }) as SessionEvent;
const progress = (what: 'eval' | 'step', done: number): SessionEvent => ({ type: 'progress', what, done, total: 4 });
const side = (events: SessionEvent[], s: RunSeries = idleSide('A'), pauseAsked = false) =>
  foldRunEvents(s, events, { slot: 'side', pauseAsked });

const idleLive = (): LiveSeries => ({
  metrics: [],
  evals: [],
  summaries: [],
  histogram: null,
  state: 'idle',
  step: 0,
  stepBudget: 0,
  stepsPerMinute: 0,
  lastStepSeconds: 0,
  activity: '',
  rolloutSteps: [],
  progress: null,
  error: null,
});
const live = (events: SessionEvent[], s = idleLive(), pauseAsked = false) =>
  foldRunEvents(s, events, { slot: 'live', pauseAsked });

describe('foldRunEvents: a Compare side from its worker events', () => {
  it('appends steps with their difficulty knobs, adds each evaluation once, and follows the status', () => {
    const a = idleSide('A');
    const { next, pauseAsked } = side(
      [stepEvent(1, { level: 2, kind: 'x' }), evalEvent(1), evalEvent(1), status('running', 1)],
      a,
    );
    expect(next.metrics?.map((m) => m.step)).toEqual([1]);
    expect(next.metrics?.[0]).toMatchObject({ 'difficulty/level': 2 });
    expect(next.metrics?.[0]).not.toHaveProperty('difficulty/kind');
    expect(next.evals?.map((e) => e.step)).toEqual([1]);
    expect(next).toMatchObject({ state: 'running', step: 1, stepsPerMinute: 6 });
    expect(next).not.toHaveProperty('summaries');
    expect(next).not.toHaveProperty('activity');
    expect(pauseAsked).toBe(false);
    expect(side([evalEvent(1)], { ...a, ...next }).next).toEqual({});
  });

  it('reads "pausing" while Pause waits, and lets go once the worker stops', () => {
    const b = { ...idleSide('B'), state: 'running' as const };
    const waiting = side([status('running', 3)], b, true);
    expect(waiting).toMatchObject({ next: { state: 'pausing', step: 3 }, pauseAsked: true });
    const stopped = side([status('paused', 3)], { ...b, ...waiting.next }, true);
    expect(stopped).toMatchObject({ next: { state: 'paused' }, pauseAsked: false });
  });

  it('keeps showing an error when a failed init leaves the worker idle', () => {
    const a = { ...idleSide('A'), state: 'error' as const, error: 'init failed' };
    const idle = side([status('idle', 0)], a).next;
    expect(idle).not.toHaveProperty('state');
    expect(idle).not.toHaveProperty('error');
    const later: SessionEvent = { type: 'error', message: 'later', fatal: true };
    expect(side([later], a).next).toEqual({ error: 'later' });
  });
});

describe('foldRunEvents: the live run and a Compare side are one series', () => {
  const batch = [
    stepEvent(1),
    evalEvent(1),
    stepEvent(2),
    stepEvent(2),
    evalEvent(1),
    evalEvent(2),
    status('running', 2),
  ];

  it('folds the same batch into the same metrics, evaluations, state and step', () => {
    const l = live(batch).next;
    const s = side(batch).next;
    for (const k of ['metrics', 'evals', 'state', 'step', 'stepsPerMinute'] as const) expect(l[k]).toEqual(s[k]);
    expect(l.metrics?.map((m) => m.step)).toEqual([1, 2]);
    expect(l.evals?.map((e) => e.step)).toEqual([1, 2]);
    // In pause too: both read "pausing" until the worker stops.
    const lp = live(batch, idleLive(), true);
    const sp = side(batch, idleSide('A'), true);
    expect([lp.next.state, lp.pauseAsked]).toEqual(['pausing', true]);
    expect([sp.next.state, sp.pauseAsked]).toEqual(['pausing', true]);
  });

  it('keeps the live run its summaries (the last 200), histogram and status figures, without difficulty rows', () => {
    const start = { ...idleLive(), summaries: Array.from({ length: 200 }, (_, i) => ({ step: -i }) as never) };
    const { next } = live([stepEvent(1, { level: 3 }), status('running', 1, 'sampling step 2')], start);
    expect(next.summaries).toHaveLength(200);
    expect(next.summaries?.at(-1)).toEqual({ step: 1 });
    expect(next.summaries?.[0]).toEqual({ step: -1 });
    expect(next.histogram).toEqual({ edges: [0, 1], counts: [1] });
    expect(next).toMatchObject({ stepBudget: 9, lastStepSeconds: 2, activity: 'sampling step 2', rolloutSteps: [1] });
    expect(next.metrics?.[0]).not.toHaveProperty('difficulty/level');
  });

  it('holds progress through its activity, and a new activity starts it over', () => {
    const during = live([status('running', 0, 'held-out eval'), progress('eval', 2)]).next;
    expect(during.progress).toMatchObject({ what: 'eval', done: 2, total: 4 });
    const cur = { ...idleLive(), ...during };
    expect(live([status('running', 0, 'held-out eval')], cur).next).not.toHaveProperty('progress');
    expect(live([status('running', 0, 'sampling step 1')], cur).next.progress).toBeNull();
  });

  it('compacts a long history the same way for both (chart-data.ts compactHistory)', () => {
    const long = Array.from({ length: HISTORY_MAX_ROWS }, (_, i) => ({ step: i }) as StepMetrics);
    const l = live([stepEvent(HISTORY_MAX_ROWS)], { ...idleLive(), metrics: long }).next.metrics;
    const s = side([stepEvent(HISTORY_MAX_ROWS)], { ...idleSide('A'), metrics: long }).next.metrics;
    expect(l!.length).toBeLessThan(HISTORY_MAX_ROWS);
    expect(l!.at(-1)).toMatchObject({ step: HISTORY_MAX_ROWS });
    expect(s).toEqual(l);
  });

  it("does not let a live run's error outlive the worker's idle status (only a side keeps it)", () => {
    const errored = { ...idleLive(), state: 'error' as const };
    expect(live([status('idle', 0)], errored).next.state).toBe('idle');
  });
});

describe('foldRunEvents: effects, one for each event that asks the page for more', () => {
  const saved: SessionEvent = {
    type: 'saved',
    runId: 'r',
    step: 3,
    savedAt: 'now',
    ms: { snapshot: 1, put: 2, commit: 3 },
  };
  const saveFailed: SessionEvent = { type: 'save-failed', runId: 'r', message: 'full', name: 'QuotaExceededError' };
  const err = (message: string, fatal: boolean, code?: 'non-finite' | 'device-lost'): SessionEvent => ({
    type: 'error',
    message,
    fatal,
    ...(code ? { code } : {}),
  });

  it('says what each event asks, in order, for either slot', () => {
    const events = [
      stepEvent(1),
      stepEvent(2, {}, true),
      progress('step', 1),
      saved,
      saveFailed,
      err('nan', false, 'non-finite'),
      err('gone', true, 'device-lost'),
      err('boom', true),
      err('hm', false),
      status('paused', 2),
    ];
    const want = [
      { kind: 'step', step: 1, skipped: false },
      { kind: 'step', step: 2, skipped: true },
      { kind: 'progress', what: 'step', done: 1, total: 4 },
      { kind: 'saved', runId: 'r', step: 3, savedAt: 'now', ms: { snapshot: 1, put: 2, commit: 3 } },
      { kind: 'save-failed', runId: 'r', message: 'full', name: 'QuotaExceededError' },
      { kind: 'non-finite', message: 'nan' },
      { kind: 'device-lost', message: 'gone' },
      { kind: 'error', message: 'boom', fatal: true },
      { kind: 'error', message: 'hm', fatal: false },
    ];
    expect(live(events).effects).toEqual(want);
    expect(side(events).effects).toEqual(want);
    // A side shows its last error itself; the live run's go to the banner through the effects.
    expect(side(events).next.error).toBe('hm');
  });

  it('asks nothing of a batch of statuses and evaluations', () => {
    expect(live([status('running', 1), evalEvent(1)]).effects).toEqual([]);
  });
});
