import { describeStorageError, notices, setAutosaveEvery, setNotices } from './notices.ts';
import { deleteRun, listRuns, newRunId, runsToPrune, saveRun } from './persist.ts';
import { getState, hasRun, setState } from './store.ts';
import { heldRun, holdRun, openRuns, setTabRun, thisTab } from './tabs.ts';
import { experimentKey, setupToSearch, type UrlSetup } from './url-state.ts';
import { liveClient, onWorkerDropped } from './worker-link.ts';

/** The current run's id: the key of its own saved record (persist.ts), held open by this tab (tabs.ts). */
let runId: string | null = null;
let saving = false;
/** A save was asked for while one was in progress: save again when it ends (the later state wins). */
let saveAgain = false;

// An autosave waiting on a dropped worker will never finish.
onWorkerDropped(() => {
  saving = false;
});

/** A new run (no id: a fresh one) or a restored run keeping its saved id. */
export function setRunId(id?: string): void {
  runId = id ?? newRunId();
  void holdRun(runId);
}

export function currentRunId(): string | null {
  return runId;
}

/** The experiment a setup describes, as compared between the address bar and the autosave. */
export const setupKey = (setup: UrlSetup) => experimentKey(setupToSearch(setup));

/**
 * Saves the run to its own record in IndexedDB. If the browser refuses (storage full, or no storage
 * in a private window) autosave turns itself off and says so; training goes on. `force` (Save now,
 * Try again) saves even when it is off, and turns it back on if that works.
 */
export async function autosave(force = false): Promise<void> {
  const c = liveClient();
  if (!hasRun() || !c) return;
  if (notices().autosaveOff && !force) return;
  if (saving) {
    saveAgain = true;
    return;
  }
  saving = true;
  saveAgain = false;
  try {
    let snapshot;
    try {
      snapshot = await c.call((a) => a.snapshot());
    } catch (e) {
      console.warn('autosave: no snapshot from the worker:', e instanceof Error ? e.message : String(e));
      return;
    }
    const setup = getState().setup;
    runId ??= newRunId();
    const id = runId;
    await saveRun({ snapshot, setup, experiment: setupKey(setup), runId: id, tabId: thisTab() });
    setTabRun(id);
    setState({ autosave: { at: snapshot.savedAt, step: snapshot.trainer.step } });
    if (notices().autosaveOff) setNotices({ autosaveOff: null });
    void pruneSavedRuns(id);
  } catch (e) {
    setNotices({ autosaveOff: `Autosave is off: ${describeStorageError(e)}. Training goes on, but a reload or a crash will lose the steps since the last save${getState().autosave ? ` (step ${getState().autosave!.step})` : ''}. Download a checkpoint to keep the weights.` });
  } finally {
    saving = false;
    if (saveAgain) void autosave(force);
  }
}

/** Keeps the saved runs to persist.ts's MAX_SAVED_RUNS, never touching a run open in a tab or one offered on this page. */
async function pruneSavedRuns(own: string): Promise<void> {
  try {
    const keep = new Set([own, heldRun() ?? own, ...(await openRuns()), ...getState().savedRuns.map((r) => r.runId)]);
    for (const id of runsToPrune(await listRuns(), keep)) await deleteRun(id);
  } catch {
    /* pruning is housekeeping: the next save tries again */
  }
}

/** Sets how often the run is autosaved (steps; 0 = only when training pauses or ends). */
export function setAutosaveInterval(n: number): void {
  setAutosaveEvery(n);
}

/**
 * Saves when the page is hidden or goes away (another tab, a minimised window, a reload, a closed
 * tab), besides every few steps and on pause. The page may be gone before a save on the way out
 * completes; boot.ts then says how many steps were lost.
 */
export function saveWhenLeaving(): void {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void autosave();
  });
  addEventListener('pagehide', () => void autosave());
}
