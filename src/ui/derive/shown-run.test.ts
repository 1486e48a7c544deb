import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  shownConfig,
  shownEvals,
  shownLiveStep,
  shownRecordedStep,
  shownRolloutSteps,
  shownSeries,
} from './shown-run.ts';
import type { AppState, RecordingState } from '../state/store.ts';
import { getState } from '../state/store.ts';

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\./.test(f) ? [p] : [];
  });

describe('the run being shown (shown-run.ts)', () => {
  it('is the live run, or the recording the page shows in its place', () => {
    const live = getState();
    expect(shownEvals(live)).toBe(live.run.evals);
    expect(shownSeries(live)).toBe(live.run);
    expect(shownRecordedStep(live)).toBeNull();
    const recording = {
      steps: [0, 20, 40, 150],
      rolloutSteps: [40, 150],
      series: { metrics: [], evals: [], state: 'recorded', step: 40, error: null },
      histogram: null,
      showing: true,
      record: { config: { task: 'sat' }, provenance: {} },
    } as unknown as RecordingState;
    const shown: AppState = { ...live, recording, run: { ...live.run, step: 7 } };
    expect(shownRecordedStep(shown)).toEqual({ step: 40, last: 150 });
    expect(shownRolloutSteps(shown)).toEqual([40, 150]);
    expect(shownConfig(shown)?.task).toBe('sat');
    expect(shownLiveStep(shown)).toBe(0);
    expect(shownSeries(shown)).toBe(recording.series);
    // Open but not shown: the live run again.
    const behind: AppState = { ...shown, recording: { ...recording, showing: false } };
    expect(shownLiveStep(behind)).toBe(7);
    expect(shownRecordedStep(behind)).toBeNull();
  });
  it('is the only place views learn whether a recording is shown', () => {
    const ui = join(__dirname, '..');
    const views = [join(ui, 'App.tsx'), ...files(join(ui, 'components'))];
    const branching = views.filter((f) => /recording\??\.showing/.test(readFileSync(f, 'utf8')));
    expect(branching.map((f) => f.slice(ui.length + 1))).toEqual([]);
  });
});
