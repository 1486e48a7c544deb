import { validateManifest } from '../model/checkpoint.ts';
import { setupKey } from './autosave.ts';
import { restoreSaved, scheduleSync } from './controller.ts';
import { describeStorageError, notices, setAutosaveEvery, setNotices } from './notices.ts';
import { loadRun, tabOwns, type SavedRun } from './persist.ts';
import { getState, setState, useApp, type ShippedCheckpoint } from './store.ts';
import { capNotes, guardSearch } from './url-guard.ts';
import { experimentKey, searchToSetup, setupToSearch } from './url-state.ts';
import { client, setWatchdogMs } from './worker-link.ts';

const DEFAULT_CHECKPOINT = 'arithmetic-tiny';
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function loadCheckpointIndex(): Promise<void> {
  let entries: { id: string; manifest: string; tasks?: string[] }[];
  try {
    const res = await fetch(new URL('checkpoints/index.json', document.baseURI));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    entries = await res.json();
  } catch {
    entries = [{ id: DEFAULT_CHECKPOINT, manifest: `checkpoints/${DEFAULT_CHECKPOINT}/manifest.json` }];
  }
  const list: ShippedCheckpoint[] = await Promise.all(
    entries.map(async (e) => {
      try {
        const res = await fetch(new URL(e.manifest, document.baseURI));
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return { id: e.id, manifestPath: e.manifest, tasks: e.tasks, manifest: validateManifest(await res.json()) };
      } catch (err) {
        return { id: e.id, manifestPath: e.manifest, tasks: e.tasks, manifest: null, error: message(err) };
      }
    }),
  );
  setState({ checkpoints: list });
}

/** Reads the URL, the shipped checkpoints and any saved run; keeps the URL in sync from then on. */
export async function boot(): Promise<void> {
  const guarded = guardSearch(location.search);
  const parsed = searchToSetup(guarded.search);
  setState({ setup: parsed.setup, urlNotes: capNotes(guarded.note ? [guarded.note, ...parsed.notes] : parsed.notes) });
  // The address bar always shows the setup (share link = what runs = what is autosaved).
  useApp.subscribe((s, prev) => {
    if (s.setup === prev.setup) return;
    // `run` (an open recording's URL, recording.ts) stays while that recording is open.
    const run = s.recording ? new URLSearchParams(location.search).get('run') : null;
    const q = [setupToSearch(s.setup), run ? `run=${encodeURIComponent(run)}` : ''].filter(Boolean).join('&');
    if (q !== location.search.replace(/^\?/, '')) history.replaceState(null, '', `${location.pathname}${q ? `?${q}` : ''}${location.hash}`);
    if (s.setup.draft !== prev.setup.draft || s.setup.checkpoint !== prev.setup.checkpoint || s.setup.model !== prev.setup.model) scheduleSync();
  });
  await loadCheckpointIndex();
  setState({ booted: true });
  let saved: SavedRun | undefined;
  try {
    saved = await loadRun();
  } catch (e) {
    setNotices({ autosaveOff: `Autosave is off: ${describeStorageError(e)}. Training works, but a reload or a crash will lose the run. Download a checkpoint to keep the weights.` });
  }
  if (!saved) return;
  const own = tabOwns(saved.runId);
  const matches = !parsed.hasExperiment || own || saved.experiment === setupKey(parsed.setup) || saved.experiment === experimentKey(location.search);
  // Your own tab: the address bar is the newest statement of the experiment (it may be ahead of the autosave).
  if (matches) await restoreSaved(saved, own && parsed.hasExperiment ? parsed.setup : saved.setup);
  else setState({ savedRun: { step: saved.snapshot.trainer.step, savedAt: saved.snapshot.savedAt, matches } });
}

/** Debug and test hook: the page's state and the worker's rollout records (e2e/app.spec.mjs reads these). */
export function exposeTestHook(): void {
  (window as unknown as { __rlvr: unknown }).__rlvr = {
    state: () => getState(),
    notices: () => notices(),
    /** Tests: autosave every n steps; the watchdog's timeout (ms) for a worker that stopped answering. */
    setAutosaveEvery: (n: number) => setAutosaveEvery(n),
    setWatchdogMs,
    getRollouts: (step: number) => client().call((a) => a.getRollouts(step)),
    status: () => client().call((a) => a.status()),
  };
}
