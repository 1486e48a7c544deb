/**
 * What the run viewer runs, kept beside the store (in session.ts's `session`), not in it: each opened run's
 * handle (run-sources.ts: its methods call the reader's worker) by the run's key, and each running search's
 * or findings' AbortController by an id. The store's `viewer` slot (viewer-state.ts) holds only the key, an
 * `opened` flag and the job's id, so all of it is plain data (store-serialisable.test.ts).
 */
import { session } from './session.ts';
import type { RunHandle } from './viewer-state.ts';

/** The opened run with this key (null: none, or not opened yet). */
export function runHandle(key: string | null | undefined): RunHandle | null {
  return key == null ? null : (session.viewerRuns.get(key) ?? null);
}

/** Keeps the opened run `handle` as the run `key`'s. */
export function keepRunHandle(key: string, handle: RunHandle): void {
  session.viewerRuns.set(key, handle);
}

/** Forgets the run `key`'s handle and returns it (the caller frees it), or null when there was none. */
export function takeRunHandle(key: string): RunHandle | null {
  const handle = runHandle(key);
  session.viewerRuns.delete(key);
  return handle;
}

/** A search or findings job: its id (what the store holds) and the signal that cancels it. */
export function startJob(): { id: number; signal: AbortSignal } {
  const id = ++session.viewerJobId;
  const abort = new AbortController();
  session.viewerJobs.set(id, abort);
  return { id, signal: abort.signal };
}

/** Cancels the job `id` (a finished or unknown one: nothing). */
export function cancelJob(id: number | null | undefined): void {
  if (id == null) return;
  session.viewerJobs.get(id)?.abort();
  session.viewerJobs.delete(id);
}

/** The job `id` is over: its canceller is forgotten. */
export function endJob(id: number): void {
  session.viewerJobs.delete(id);
}
