/**
 * Saved runs: restoring one (this tab's after a reload or a crash, or one offered from another tab),
 * forgetting one, and going on on WASM when the WebGPU device is lost.
 */
import { autosave, currentRunId, setRunId } from './autosave.ts';
import { adoptDataset, useDataset } from './dataset-import.ts';
import { showError } from './errors.ts';
import { syncLiveConfig } from './live-config.ts';
import { setNotices } from './notices.ts';
import { deleteRun, forgetPassK, loadPassK, loadRun, restoredNote, type SavedRun } from './persist.ts';
import { applyLoaded, dropWorkerOfOtherThreads, reset, trackLoad } from './run-load.ts';
import { threadsForModel, updateSetup } from './setup-state.ts';
import { getState, patch, setState, type RunControl } from './store.ts';
import { holdRun } from './tabs.ts';
import type { UrlSetup } from '../derive/url-state.ts';
import { client, dropWorker } from './worker-link.ts';

const control = () => getState().runControl;
const setControl = (c: Partial<RunControl>) => patch('runControl', c);

/**
 * Resumes a saved run. `setup` is the experiment to show (default: the one saved with the run; this
 * tab's own newer setup after a reload or a crash): the URL is rewritten from it, and knobs that differ
 * from the saved run's config are applied live (or flagged for a new run) as edits always are.
 * `copy`: the run is open in another tab, so this tab goes on with it under a new id of its own.
 */
export async function restoreSaved(saved: SavedRun, setup: UrlSetup = saved.setup, copy = false): Promise<void> {
  const backend = getState().setup.backend;
  if (saved.snapshot.dataset) {
    try {
      adoptDataset(saved.snapshot.dataset);
    } catch {
      /* the worker reports it */
    }
  }
  setState({ setup: { ...setup, backend }, savedRuns: [] });
  patch('run', { state: 'loading', activity: `restoring the saved run (step ${saved.snapshot.trainer.step})` });
  const threads = threadsForModel(saved.snapshot.base.manifest?.parameters ?? null);
  dropWorkerOfOtherThreads(threads.threads);
  try {
    const r = await trackLoad(
      client().call((a) =>
        a.init({
          config: saved.snapshot.config,
          checkpoint: { kind: 'fresh', model: 'nano', seed: 0 },
          backend,
          ...threads,
          restore: saved.snapshot,
        }),
      ),
    );
    applyLoaded(r);
    useDataset.setState({ inRun: saved.snapshot.dataset ?? null });
    setRunId(copy ? undefined : saved.runId);
    setControl({ failedRestore: null });
    setState({ autosave: { at: saved.snapshot.savedAt, step: saved.snapshot.trainer.step }, error: null });
    // The last pass@k result of this run, unless it was measured on steps the reload lost.
    const kept = saved.runId ? loadPassK(saved.runId) : null;
    if (kept && kept.step <= saved.snapshot.trainer.step) patch('passk', { curve: kept, restored: true });
    await syncLiveConfig();
  } catch (e) {
    patch('run', { state: 'idle', activity: '' });
    setControl({ failedRestore: saved.runId ?? null });
    showError('restore', 'Could not restore the saved run', e);
  }
}

/**
 * The WebGPU device was lost: nothing on it can be read back, so the run resumes on WASM from the
 * last autosave (or starts over on WASM when there is none), and says which.
 */
export async function fallbackToWasm(reason: string): Promise<void> {
  dropWorker();
  updateSetup((s) => ({ ...s, backend: 'wasm' }));
  const saved = await ownSaved();
  if (saved) {
    await restoreSaved(saved, getState().setup);
    setNotices({
      fallback:
        `${reason[0]!.toUpperCase()}${reason.slice(1)}. ` +
        'Switched to WASM and resumed from the autosave at ' +
        `step ${saved.snapshot.trainer.step}; steps after ` +
        'it were lost. Press Start to go on.',
    });
  } else {
    await reset();
    setNotices({
      fallback:
        `${reason[0]!.toUpperCase()}${reason.slice(1)}. ` +
        'Switched to WASM; there was no autosave of this ' +
        'run, so it starts over.',
    });
  }
}

/** Restart after a crash: a new worker, resumed from the last autosave if there is one. */
export async function restartFromAutosave(): Promise<void> {
  dropWorker();
  setState({ error: null });
  const saved = await ownSaved();
  if (saved) await restoreSaved(saved, getState().setup);
  else await reset();
}

/** This tab's run as last autosaved (never another tab's). */
async function ownSaved(): Promise<SavedRun | undefined> {
  const id = currentRunId();
  return id ? loadRun(id).catch(() => undefined) : undefined;
}

const dropOffer = (runId: string) => setState((s) => ({ savedRuns: s.savedRuns.filter((o) => o.runId !== runId) }));

/**
 * Restores one offered saved run. A run open in another tab is copied: this tab saves it under a new
 * id at once, and the other tab's record stays its own.
 */
export async function restoreOffered(runId: string): Promise<void> {
  const saved = await loadRun(runId).catch(() => undefined);
  if (!saved) {
    dropOffer(runId);
    showError(
      'restore',
      'Could not restore the saved run',
      new Error("it is no longer in this browser's storage (deleted from another tab?)"),
    );
    return;
  }
  const mine = await holdRun(runId);
  await restoreSaved(saved, saved.setup, !mine);
  if (!getState().run.config) return;
  setNotices({ restored: restoredNote(saved.snapshot.trainer.step, saved.snapshot.savedAt, null, !mine) });
  if (!mine) void autosave();
}

/**
 * Forgets an offered saved run (default: the one whose restore failed). A run open in another tab is
 * only taken off the offer: it is that tab's, and deleting it would lose its work.
 */
export async function discardSaved(runId: string | null = control().failedRestore): Promise<void> {
  if (!runId) return;
  const offer = getState().savedRuns.find((o) => o.runId === runId);
  if (!offer?.openElsewhere) {
    await deleteRun(runId).catch(() => undefined);
    forgetPassK(runId);
  }
  dropOffer(runId);
  if (runId === currentRunId()) setState({ autosave: null });
}
