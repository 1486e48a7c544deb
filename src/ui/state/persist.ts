/**
 * Saved runs, kept in IndexedDB so a reload (or a crashed worker) resumes where it was: per run, the
 * worker's snapshot (weights, AdamW moments, counters, metrics) plus the setup form. Every run has its
 * own record, so two tabs never save over each other (tabs.ts says which run is whose). The storage
 * itself is workers/run-store.ts: the trainer worker writes this tab's record there after its steps
 * (workers/run-saver.ts), the page reads, lists, prunes and deletes.
 */
import { loadRun as loadStored, type StoredRun } from '../../../workers/run-store.ts';
import type { UrlSetup } from '../derive/url-state.ts';
import type { PassKCurve } from '../../../workers/protocol.ts';

export {
  deleteRun,
  listRuns,
  MAX_SAVED_RUNS,
  newestFirst,
  newRunId,
  runsToPrune,
  saveRun,
  type RunMeta,
} from '../../../workers/run-store.ts';

export type SavedRun = StoredRun<UrlSetup>;

export function loadRun(runId: string): Promise<SavedRun | undefined> {
  return loadStored<UrlSetup>(runId);
}

/**
 * What a restored run says: the step it resumed at and, when the page had shown more steps than were
 * saved (a reload or a closed tab before the next save), exactly which steps were lost.
 */
export function restoredNote(step: number, savedAt: string, shown: number | null, copy = false): string {
  const when = new Date(savedAt);
  const at = Number.isNaN(when.getTime()) ? savedAt : when.toLocaleTimeString();
  let s =
    `Restored at step ${step} (saved ${at})` +
    (copy ? ": a copy of a run open in another tab, saved from now on as this tab's own" : '') +
    '.';
  if (shown !== null && shown > step) {
    const n = shown - step;
    const which = n === 1 ? `step ${step + 1}` : `steps ${step + 1}–${shown}`;
    s +=
      ` ${n} step${n === 1 ? ' was' : 's were'} lost (${which}` +
      `): the page went away before ${n === 1 ? 'it was' : 'they were'} ` +
      `saved. Training goes on from step ${step}.`;
  }
  return s;
}

/**
 * The run's last pass@k result, kept beside its saved record (localStorage, by run id): a reload shows
 * it again. Small (two curves of 64 numbers); dropped with the run (forgetPassK).
 */
const passkKey = (runId: string) => `rlvr-playground:passk:${runId}`;

export function savePassK(runId: string, curve: PassKCurve): void {
  try {
    localStorage.setItem(passkKey(runId), JSON.stringify(curve));
  } catch {
    /* storage full or refused: the result is simply not kept */
  }
}

export function loadPassK(runId: string): PassKCurve | null {
  try {
    const text = localStorage.getItem(passkKey(runId));
    const c = text ? (JSON.parse(text) as PassKCurve) : null;
    return c && Array.isArray(c.ks) && typeof c.step === 'number' && c.base && c.current ? c : null;
  } catch {
    return null;
  }
}

export function forgetPassK(runId: string): void {
  try {
    localStorage.removeItem(passkKey(runId));
  } catch {
    /* nothing kept */
  }
}
