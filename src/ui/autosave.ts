import { describeStorageError, notices, setAutosaveEvery, setNotices } from './notices.ts';
import { markTabOwner, newRunId, saveRun } from './persist.ts';
import { getState, hasRun, setState } from './store.ts';
import { experimentKey, setupToSearch, type UrlSetup } from './url-state.ts';
import { liveClient, onWorkerDropped } from './worker-link.ts';

/** The current run's id, saved with its autosave (see persist.ts: a tab restores its own run without asking). */
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
}

/** The experiment a setup describes, as compared between the address bar and the autosave. */
export const setupKey = (setup: UrlSetup) => experimentKey(setupToSearch(setup));

/**
 * Saves the run to IndexedDB. If the browser refuses (storage full, or no storage in a private
 * window) autosave turns itself off and says so; training goes on. `force` (Save now, Try again)
 * saves even when it is off, and turns it back on if that works.
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
    await saveRun({ snapshot, setup, experiment: setupKey(setup), runId });
    markTabOwner(runId);
    setState({ autosave: { at: snapshot.savedAt, step: snapshot.trainer.step }, savedRun: null });
    if (notices().autosaveOff) setNotices({ autosaveOff: null });
  } catch (e) {
    setNotices({ autosaveOff: `Autosave is off: ${describeStorageError(e)}. Training goes on, but a reload or a crash will lose the steps since the last save${getState().autosave ? ` (step ${getState().autosave!.step})` : ''}. Download a checkpoint to keep the weights.` });
  } finally {
    saving = false;
    if (saveAgain) void autosave(force);
  }
}

/** Sets how often the run is autosaved (steps; 0 = only when training pauses or ends). */
export function setAutosaveInterval(n: number): void {
  setAutosaveEvery(n);
}
