/**
 * pass@k's wait as one line from 0 to 100%: the base policy's samples (when not cached) are the first
 * half, the current policy's the second (the same prompts and samples each, so about the same time),
 * and the time left from the rate measured over the recent half of the wait (pure: passk-progress.test.ts).
 */

export interface PassKWait {
  /** 0..1 over every phase. */
  fraction: number;
  /** Whether the base policy is sampled too (not cached): two phases. */
  twoPhases: boolean;
  what: 'passk-base' | 'passk-current';
  /**
   * When (ms, performance.now()) and at what fraction the first sampled batch was reported: the rate
   * is measured from there.
   */
  from: { t: number; fraction: number };
  /** The latest reports (at most RECENT), for the recent rate: the base phase may run slower than the current one. */
  recent: { t: number; fraction: number }[];
}

const RECENT = 64;

/** The wait after a progress report of `what` (done of total samples), given the wait so far (null: the first). */
export function passKWait(
  prev: PassKWait | null,
  what: 'passk-base' | 'passk-current',
  done: number,
  total: number,
  now: number,
): PassKWait {
  const twoPhases = what === 'passk-base' || !!prev?.twoPhases;
  const part = total > 0 ? Math.min(1, done / total) : 0;
  const fraction = twoPhases ? (what === 'passk-base' ? part / 2 : 0.5 + part / 2) : part;
  // Never backwards: a late report of an earlier batch does not move the line back.
  const from = prev?.from ?? { t: now, fraction };
  const f = Math.max(prev?.fraction ?? 0, fraction);
  return {
    fraction: f,
    twoPhases,
    what,
    from,
    recent: [...(prev?.recent ?? []), { t: now, fraction: f }].slice(-RECENT),
  };
}

/**
 * Seconds left at the rate measured over the latter half of the time since the first batch (at least
 * from the first batch's report); null until there is a rate.
 */
export function passKSecondsLeft(w: PassKWait, now: number): number | null {
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
