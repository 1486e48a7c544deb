import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRunRecord, type RunRecord } from '../../record/run-record.ts';
import type { SessionEvent } from '../../../workers/protocol.ts';
import { captionValue, chartRows, latestValue } from '../derive/chart-data.ts';
import { foldRunEvents, recordedSeries, type RunSeries } from '../derive/run-series.ts';
import { seriesSource, shownEvals, shownHistogram, shownSeries } from '../derive/shown-run.ts';
import './controller.ts'; // connects the worker's event handlers (worker-link.ts connectWorker)
import { recordedSide, scrubTo, showLive, showRecord, showRecording } from './recording.ts';
import { session } from './session.ts';
import { getState, initialRun, setState } from './store.ts';

// The shipped demo record (written by `rlvr train --record`, scripts/record-lessons.sh), decoded by the real reader.
let record: RunRecord;
beforeAll(async () => {
  const r = await decodeRunRecord(
    new Uint8Array(readFileSync(join(__dirname, '../../../public/records/sat-grpo-30.rlvr.gz'))),
  );
  if (!r.ok) throw new Error(r.error);
  record = r.record;
});

/** The record's steps and evaluations up to `at` as a live worker would send them (workers/protocol.ts). */
function eventsOf(rec: RunRecord, at: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const e of rec.evals) if (e.step === 0) events.push({ type: 'eval', point: e } as SessionEvent);
  for (const s of rec.steps.filter((x) => x.step <= at)) {
    const histogram = s.advantage_histogram ?? { edges: [], counts: [] };
    const step = { metrics: s.metrics, histogram, summary: {}, skipped: false, difficulty: s.difficulty };
    events.push({ type: 'step', ...step } as SessionEvent);
    for (const e of rec.evals) if (e.step === s.step) events.push({ type: 'eval', point: e } as SessionEvent);
  }
  return events;
}

/** What a chart draws of a series: its smoothed rows and the caption beside its title (MetricChart.tsx). */
const chartOf = (series: RunSeries, key: string) => ({
  rows: chartRows(series.metrics, [key], 0.6),
  caption: captionValue(latestValue(series.metrics, key, 0.6), seriesSource(series)),
});

describe('a recording opens into a RunSeries, read as the live run is', () => {
  it('recordedSeries: the record up to a step, as a series in state "recorded"', () => {
    const { series, histogram } = recordedSeries(record, 10);
    expect(series).toMatchObject({ state: 'recorded', step: 10, error: null });
    expect(series.metrics.map((m) => m.step)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(series.evals.map((e) => e.step)).toEqual([0, 10]);
    expect(histogram).toEqual(record.steps.find((s) => s.step === 10)!.advantage_histogram ?? null);
  });

  it('the store holds it as recording.series, and the shown series is that slot', () => {
    setState({ run: initialRun });
    showRecord('demo', record);
    scrubTo(20);
    const s = getState();
    expect(shownSeries(s)).toBe(s.recording!.series);
    expect(shownSeries(s)).toMatchObject({ state: 'recorded', step: 20 });
    expect(shownEvals(s)).toBe(s.recording!.series.evals);
    expect(shownHistogram(s)).toBe(s.recording!.histogram);
    // Hidden behind the live run: the live slot is shown, the recording's series kept for later.
    showLive();
    expect(shownSeries(getState())).toBe(getState().run);
    showRecording();
    expect(shownSeries(getState())).toBe(getState().recording!.series);
    setState({ recording: null });
  });

  it('a chart draws the recorded series as it draws the live run folded from the same steps', () => {
    setState({ run: initialRun });
    session.workerHandlers!.onEvents(eventsOf(record, 20));
    const live = shownSeries(getState());
    expect(live).toBe(getState().run);
    showRecord('demo', record);
    scrubTo(20);
    const recorded = shownSeries(getState());
    expect(recorded).toBe(getState().recording!.series);
    expect(recorded.metrics).toEqual(live.metrics);
    expect(recorded.evals).toEqual(live.evals);
    for (const key of ['reward', 'kl', 'not_a_metric']) {
      const [r, l] = [chartOf(recorded, key), chartOf(live, key)];
      expect(r.rows).toEqual(l.rows);
      // Only the word for what holds it differs: "not in this record" / "not in this run".
      expect(r.caption?.replace('record', 'run')).toBe(l.caption);
    }
    setState({ recording: null });
  });

  it('as a Compare side, it is the series a live side folds from the same steps (difficulty rows included)', () => {
    const last = record.steps[record.steps.length - 1]!.step;
    const empty: RunSeries = { metrics: [], evals: [], state: 'idle', step: 0, error: null };
    const live = foldRunEvents(empty, eventsOf(record, last), { slot: 'side', pauseAsked: false }).next;
    const side = recordedSide('C', record);
    expect(side).toMatchObject({ label: 'C', config: record.config, state: 'recorded', step: last, error: null });
    expect(side.metrics).toEqual(live.metrics);
    expect(side.evals).toEqual(live.evals);
    expect(Object.keys(side.metrics[0]!).some((k) => k.startsWith('difficulty/'))).toBe(true);
  });
});
