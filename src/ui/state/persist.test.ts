import { describe, expect, it } from 'vitest';
import { newestFirst, restoredNote, runsToPrune, type RunMeta } from './persist.ts';

const meta = (runId: string, savedAt: string): RunMeta => ({
  runId,
  tabId: null,
  experiment: '',
  task: 'arithmetic',
  step: 1,
  savedAt,
});

describe('saved runs', () => {
  const runs = [
    meta('a', '2026-01-01T10:00:00.000Z'),
    meta('b', '2026-01-01T12:00:00.000Z'),
    meta('c', '2026-01-01T11:00:00.000Z'),
    meta('d', '2026-01-01T09:00:00.000Z'),
  ];

  it('lists the most recently saved first', () => {
    expect(newestFirst(runs).map((r) => r.runId)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('prunes the oldest beyond the limit, never a kept run', () => {
    expect(runsToPrune(runs, new Set(), 4)).toEqual([]);
    expect(runsToPrune(runs, new Set(), 2)).toEqual(['d', 'a']);
    // 'd' is open in a tab: the next oldest goes instead, and no more than the excess.
    expect(runsToPrune(runs, new Set(['d']), 2)).toEqual(['a', 'c']);
    expect(runsToPrune(runs, new Set(['a', 'b', 'c', 'd']), 1)).toEqual([]);
  });
});

describe('restoredNote', () => {
  const at = '2026-01-01T10:00:00.000Z';
  it('names the step, and nothing lost when the save is the last step shown', () => {
    expect(restoredNote(21, at, 21)).toMatch(/^Restored at step 21 \(saved .+\)\.$/);
    expect(restoredNote(21, at, null)).not.toMatch(/lost/);
  });
  it('names exactly the steps lost', () => {
    expect(restoredNote(21, at, 24)).toMatch(
      new RegExp(
        String.raw` 3 steps were lost \(steps 22–24\): the page went away ` +
          String.raw`before they were saved\. Training goes on from step 21\.$`,
      ),
    );
    expect(restoredNote(21, at, 22)).toMatch(/ 1 step was lost \(step 22\): the page went away before it was saved\./);
  });
  it('says when the run is a copy of one open in another tab', () => {
    expect(restoredNote(7, at, null, true)).toMatch(/a copy of a run open in another tab/);
  });
});
