import { describe, expect, it } from 'vitest';
import { jobSecondsLeft, jobWait, percentOf, runsProgress } from './job-progress.ts';

describe("a long job's one progress line", () => {
  it('never moves back, stays within 0..1, and prints 100% only when done', () => {
    let w = jobWait(null, 0.4, 0);
    w = jobWait(w, 0.3, 1_000); // a late report of an earlier step
    expect(w.fraction).toBe(0.4);
    expect(percentOf(jobWait(w, 0.999, 2_000))).toBe(99);
    expect(percentOf(jobWait(w, 1.5, 2_000))).toBe(100);
    expect(percentOf(null)).toBe(0);
  });
  it('measures the time left from its own rate, and has none before it has a rate', () => {
    const first = jobWait(null, 0, 0);
    expect(jobSecondsLeft(first, 0)).toBeNull();
    const later = jobWait(first, 0.25, 10_000); // a quarter in 10 s
    expect(jobSecondsLeft(later, 10_000)).toBeCloseTo(30);
  });
  it('runs side by side: the steps done over the steps asked, a recorded run left out', () => {
    const p = runsProgress(
      [
        { name: 'A', step: 30, trains: true },
        { name: 'B', step: 10, trains: true },
        { name: 'C', step: 150, trains: false },
      ],
      40,
    );
    expect(p?.fraction).toBeCloseTo(0.5);
    expect(p?.doing).toBe('A step 30 of 40 · B step 10 of 40');
    expect(runsProgress([{ name: 'C', step: 5, trains: false }], 40)).toBeNull();
  });
});
