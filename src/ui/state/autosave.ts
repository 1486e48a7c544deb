import type { SaveCost } from '../../../workers/protocol.ts';
import { describeStorageError, notices, setAutosaveEvery, setNotices } from './notices.ts';
import { deleteRun, forgetPassK, listRuns, newRunId, runsToPrune } from './persist.ts';
import { getState, setState } from './store.ts';
import { session } from './session.ts';
import { heldRun, holdRun, openRuns, setTabRun, thisTab } from './tabs.ts';
import { experimentKey, setupToSearch, type UrlSetup } from '../derive/url-state.ts';
import { liveClient } from './worker-link.ts';

/**
 * Saving this tab's run. The trainer worker writes the record itself (workers/run-saver.ts: after its
 * steps, throttled, and whenever training pauses or ends), so a save needs no round trip through the
 * page and a reload mid-training resumes at the last completed step or one behind. The page tells the
 * worker where to save (this tab's run id, its tab and setup: saveTo) and learns of each save from
 * the worker's `saved` / `save-failed` events (controller.ts calls savedByWorker / saveFailed).
 */

// The current run's id (session.runId): the key of its own saved record (persist.ts), held open by this tab (tabs.ts).

/** A new run (no id: a fresh one) or a restored run keeping its saved id; the worker saves under it from now on. */
export function setRunId(id?: string): void {
  session.runId = id ?? newRunId();
  void holdRun(session.runId);
  void sendSaveTarget();
}

export function currentRunId(): string | null {
  return session.runId;
}

/** The experiment a setup describes, as compared between the address bar and the autosave. */
export const setupKey = (setup: UrlSetup) => experimentKey(setupToSearch(setup));

/**
 * Tells the worker where this tab's run is saved: its id, this tab, the setup now and the autosave
 * interval. Posted at once (no wait for the answer), so that a save asked for right after it, even as
 * the page unloads, is made under it.
 */
export function sendSaveTarget(): Promise<void> {
  const c = liveClient();
  const id = session.runId;
  if (!c || !id || !getState().run.config) return Promise.resolve();
  const setup = getState().setup;
  return c
    .call((a) => a.saveTo({ runId: id, tabId: thisTab(), setup, experiment: setupKey(setup) }, notices().autosaveEvery))
    .catch(() => undefined);
}

/**
 * Asks the worker to save the run now (with the setup now). If the browser refuses (storage full, or
 * no storage in a private window) autosave turns itself off and says so (saveFailed); training goes on.
 * `force` (Save now, Try again) saves even when it is off, and turns it back on if that works.
 */
export async function autosave(force = false): Promise<void> {
  const c = liveClient();
  if (!c || !session.runId || !getState().run.config) return;
  if (notices().autosaveOff && !force) return;
  const target = sendSaveTarget();
  try {
    await c.call((a) => a.saveNow(force));
  } catch (e) {
    // A storage failure is reported by the worker's save-failed event; anything else (no run) is not a save.
    if (force && !(e instanceof Error && /no run|no model/.test(e.message))) saveFailed(e);
  }
  await target;
}

/** The worker saved a run: this tab's own updates what the page says of its autosave. */
export function savedByWorker(e: { runId: string; step: number; savedAt: string; ms: SaveCost }): void {
  if (e.runId !== session.runId) return;
  setTabRun(e.runId);
  setState({ autosave: { at: e.savedAt, step: e.step, ms: e.ms } });
  if (notices().autosaveOff) setNotices({ autosaveOff: null });
  void pruneSavedRuns(e.runId);
}

/** A save failed: autosave is off (the worker saves no more by itself) until Save now succeeds. */
export function saveFailed(e: unknown): void {
  const last = getState().autosave;
  setNotices({
    autosaveOff:
      `Autosave is off: ${describeStorageError(e)}. ` +
      'Training goes on, but a reload or a crash will ' +
      `lose the steps since the last save${last ? ` (step ${last.step})` : ''}` +
      '. Download a checkpoint to keep the weights.',
  });
}

/** Pruning lists every record: once per run and then at most this often (ms), not after every step's save. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Keeps the saved runs to persist.ts's MAX_SAVED_RUNS, never touching a run open in a tab or one offered on this page.
 */
async function pruneSavedRuns(own: string): Promise<void> {
  const now = Date.now();
  const pruned = session.pruned;
  if (pruned && pruned.runId === own && now - pruned.at < PRUNE_EVERY_MS) return;
  session.pruned = { runId: own, at: now };
  try {
    const keep = new Set([own, heldRun() ?? own, ...(await openRuns()), ...getState().savedRuns.map((r) => r.runId)]);
    for (const id of runsToPrune(await listRuns(), keep)) {
      await deleteRun(id);
      forgetPassK(id);
    }
  } catch {
    /* pruning is housekeeping: the next save tries again */
  }
}

/** Sets how often the run is autosaved (steps; 0 = only when training pauses or ends) and tells the worker. */
export function setAutosaveInterval(n: number): void {
  setAutosaveEvery(n);
  void sendSaveTarget();
}

/**
 * Saves when the page is hidden or goes away (another tab, a minimised window, a reload, a closed
 * tab), besides after steps and on pause. The request is posted at once and the worker writes the
 * record itself, so no answer has to reach the page; boot.ts still names any steps lost.
 */
export function saveWhenLeaving(): void {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void autosave();
  });
  addEventListener('pagehide', () => void autosave());
}
