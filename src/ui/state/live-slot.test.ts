import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionEvent, StepMetrics } from '../../../workers/protocol.ts';
import type { LiveSeries } from '../derive/run-series.ts';
import { seriesSource, shownSeries } from '../derive/shown-run.ts';
import './controller.ts'; // connects the worker's event handlers (worker-link.ts connectWorker)
import { session } from './session.ts';
import { getState, initialRun, setState } from './store.ts';

const step = (n: number): SessionEvent =>
  ({
    type: 'step',
    metrics: { step: n, reward: n / 10 } as StepMetrics,
    histogram: { edges: [0, 1], counts: [n] },
    summary: { step: n },
    skipped: false,
  }) as SessionEvent;
const events: SessionEvent[] = [
  step(1),
  step(2),
  { type: 'eval', point: { step: 2 } } as SessionEvent,
  {
    type: 'status',
    status: {
      state: 'paused',
      step: 2,
      stepsPerMinute: 6,
      activity: '',
      stepBudget: 9,
      lastStepSeconds: 2,
      rolloutSteps: [2],
    },
  },
];
/** The live worker's event handler, as controller.ts connected it. */
const onEvents = (e: SessionEvent[]) => session.workerHandlers!.onEvents(e);

describe("the store's live run: one slot, a LiveSeries folded by foldRunEvents", () => {
  beforeEach(() => setState({ run: initialRun }));

  it('holds what the events say, written out here (not recomputed by the reducer the store itself calls)', () => {
    onEvents(events);
    const s = getState();
    const live: LiveSeries = s.run;
    expect(live.metrics).toEqual([
      { step: 1, reward: 0.1 },
      { step: 2, reward: 0.2 },
    ]);
    expect(live.evals.map((e) => e.step)).toEqual([2]);
    expect(live.summaries).toEqual([{ step: 1 }, { step: 2 }]);
    expect(live.histogram).toEqual({ edges: [0, 1], counts: [2] });
    expect(live).toMatchObject({
      state: 'paused',
      step: 2,
      stepBudget: 9,
      rolloutSteps: [2],
      stepsPerMinute: 6,
      lastStepSeconds: 2,
      activity: '',
      error: null,
    });
    // No second copy of the run beside the slot.
    for (const k of ['metrics', 'evals', 'summaries', 'histogram']) expect(s).not.toHaveProperty(k);
  });

  it('is the series the charts read while no recording is shown', () => {
    onEvents(events);
    const s = getState();
    expect(shownSeries(s)).toBe(s.run);
    expect(seriesSource(shownSeries(s))).toBe('run');
  });

  it('keeps the series it had when a batch changes nothing it shows', () => {
    onEvents(events);
    const run = getState().run;
    onEvents([{ type: 'eval', point: { step: 2 } } as SessionEvent]);
    expect(getState().run).toBe(run);
  });
});
