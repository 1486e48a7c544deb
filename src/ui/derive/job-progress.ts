/**
 * A long job's wait as one line from 0 to 100% (pass@k, the warm start, Compare): the line never
 * moves back, and the time left comes from the rate measured over the recent half of the wait, so a
 * phase that runs faster or slower than the first is followed (pure: job-progress.test.ts).
 */

export interface JobWait {
  /** 0..1. */
  fraction: number;
  /** When (ms, performance.now()) and at what fraction the first report came: the rate is measured from there. */
  from: { t: number; fraction: number };
  /** The latest reports (at most RECENT), for the recent rate. */
  recent: { t: number; fraction: number }[];
}

const RECENT = 64;

/** The wait after a report of `fraction` done at `now`, given the wait so far (null: the first report). */
export function jobWait(prev: JobWait | null, fraction: number, now: number): JobWait {
  const from = prev?.from ?? { t: now, fraction };
  // Never backwards: a late report of an earlier batch does not move the line back.
  const f = Math.max(prev?.fraction ?? 0, Math.min(1, fraction));
  return { fraction: f, from, recent: [...(prev?.recent ?? []), { t: now, fraction: f }].slice(-RECENT) };
}

/**
 * Seconds left at the rate measured over the latter half of the time since the first report (at
 * least from the first report); null until there is a rate.
 */
export function jobSecondsLeft(w: JobWait, now: number): number | null {
  const since = now - (now - w.from.t) / 2;
  const start = w.recent.find((r) => r.t >= since && r.fraction < w.fraction) ?? w.from;
  const dt = (now - start.t) / 1000;
  const df = w.fraction - start.fraction;
  if (!(dt > 0.5) || !(df > 0.005)) return null;
  return (dt / df) * (1 - w.fraction);
}

/** "about 40 s" under two minutes, "about N min" above. */
export function aboutTime(seconds: number): string {
  if (seconds < 120) return `about ${Math.max(1, Math.round(seconds / 5) * 5)} s`;
  return `about ${Math.round(seconds / 60)} min`;
}

/** The percentage a progress line prints: whole, and 100 only when done. */
export function percentOf(w: JobWait | null): number {
  return w ? Math.floor(100 * w.fraction) : 0;
}

/**
 * Runs trained side by side to `steps` each (Compare, a lesson's runs): the steps done over the steps
 * asked, summed over the runs that train (a recorded one does not); null when none trains.
 */
export function runsProgress(
  runs: { name: string; step: number; trains: boolean }[],
  steps: number,
): { fraction: number; doing: string } | null {
  const training = runs.filter((r) => r.trains);
  if (training.length === 0 || !(steps > 0)) return null;
  const done = training.reduce((n, r) => n + Math.min(r.step, steps), 0);
  return {
    fraction: done / (steps * training.length),
    doing: training.map((r) => `${r.name} step ${Math.min(r.step, steps)} of ${steps}`).join(' · '),
  };
}
