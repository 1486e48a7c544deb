/**
 * The run being shown: the live run, or a recording the page shows in its place
 * (src/ui/state/recording.ts). Views read what they draw through these selectors and never branch on
 * the recording themselves, so a view draws a recording and the live run the same way.
 */
import type { RunConfig } from '../../rl/config.ts';
import type { EvalPoint } from '../../../workers/protocol.ts';
import type { LiveSeries, RunSeries } from './run-series.ts';
import type { MetricSource } from './chart-data.ts';
import type { AppState, RecordingState } from '../state/store.ts';

/** The recording the page shows instead of the live run, or null when it shows the live run. */
export function shownRecording(s: AppState): RecordingState | null {
  return s.recording?.showing ? s.recording : null;
}

/** Whether a recording is shown (nothing trains in what the page shows). */
export const showsRecording = (s: AppState): boolean => shownRecording(s) !== null;

/**
 * The run series drawn (run-series.ts): the recording's, up to its scrubbed step, or the live run's. Views that
 * draw curves read this one slot, the same way for both.
 */
export const shownSeries = (s: AppState): RunSeries => shownRecording(s)?.series ?? s.run;

/** What a chart's caption calls the series it draws (chart-data.ts captionValue): a record's, or a run's. */
export const seriesSource = (series: Pick<RunSeries, 'state'>): MetricSource =>
  series.state === 'recorded' ? 'record' : 'run';

/** The held-out evaluations drawn. */
export const shownEvals = (s: AppState): EvalPoint[] => shownSeries(s).evals;

/** The config of the run shown; null before a live run exists. */
export const shownConfig = (s: AppState): RunConfig | null => shownRecording(s)?.record.config ?? s.run.config;

/** The advantage histogram of the latest step shown. */
export const shownHistogram = (s: AppState): LiveSeries['histogram'] => (shownRecording(s) ?? s.run).histogram;

/** The steps whose rollouts can be opened. */
export const shownRolloutSteps = (s: AppState): number[] => shownRecording(s)?.rolloutSteps ?? s.run.rolloutSteps;

/** The live run's step, or 0 for a recording (whose steps all have what it kept). */
export const shownLiveStep = (s: AppState): number => (showsRecording(s) ? 0 : s.run.step);

/** The scrubbed step and the last recorded one, or null for the live run. */
export function shownRecordedStep(s: AppState): { step: number; last: number } | null {
  const r = shownRecording(s);
  return r ? { step: r.series.step, last: r.steps[r.steps.length - 1] ?? 0 } : null;
}

/** The lesson provenance of the recording shown, when it is a recording of the open lesson. */
export function shownLessonRecording(s: AppState) {
  const r = shownRecording(s);
  return r && r.record.provenance.lesson?.id === s.lesson.active ? (r.record.provenance.lesson ?? null) : null;
}
