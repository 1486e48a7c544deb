/**
 * pass@k's wait as one line from 0 to 100% (job-progress.ts): the base policy's samples (when not
 * cached) are the first half, the current policy's the second (the same prompts and samples each, so
 * about the same time) (pure: passk-progress.test.ts).
 */
import { type JobWait, jobSecondsLeft, jobWait } from './job-progress.ts';

export { aboutTime } from './job-progress.ts';

export interface PassKWait extends JobWait {
  /** Whether the base policy is sampled too (not cached): two phases. */
  twoPhases: boolean;
  what: 'passk-base' | 'passk-current';
}

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
  return { ...jobWait(prev, fraction, now), twoPhases, what };
}

/** Seconds left (job-progress.ts); null until there is a rate. */
export const passKSecondsLeft: (w: PassKWait, now: number) => number | null = jobSecondsLeft;
