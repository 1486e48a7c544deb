import { validateManifest } from '../../model/checkpoint.ts';
import { saveWhenLeaving, setAutosaveInterval, setupKey } from './autosave.ts';
import { restoreSaved } from './restore.ts';
import { scheduleSync } from './live-config.ts';
import { describeStorageError, notices, setNotices } from './notices.ts';
import { listRuns, loadRun, restoredNote, type RunMeta } from './persist.ts';
import { getState, setState, useApp, type SavedOffer, type ShippedCheckpoint } from './store.ts';
import { session } from './session.ts';
import { announce, becomeNewTab, holdRun, joinTabs, openRuns, shownStep, tabRunId, wasTraining } from './tabs.ts';
import { capNotes, guardSearch } from '../derive/url-guard.ts';
import { searchToSetup, setupToSearch } from '../derive/url-state.ts';
import { selectedManifest } from './setup-state.ts';
import { client, setWatchdogMs } from './worker-link.ts';
import { viewerPlace } from './viewer-url.ts';

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

// boot() has finished (session.bootDone): this tab's own run is restored, or the saved runs are offered.

/** Reads the URL, the shipped checkpoints and any saved run; keeps the URL in sync from then on. */
export async function boot(): Promise<void> {
  try {
    await bootSteps();
  } finally {
    session.bootDone = true;
  }
}

async function bootSteps(): Promise<void> {
  const guarded = guardSearch(location.search);
  const parsed = searchToSetup(guarded.search);
  setState({ setup: parsed.setup, urlNotes: capNotes(guarded.note ? [guarded.note, ...parsed.notes] : parsed.notes) });
  // The address bar always shows the setup (share link = what runs = what is autosaved).
  useApp.subscribe((s, prev) => {
    if (s.setup === prev.setup) return;
    // `run` (an open recording's URL, recording.ts) stays while that recording is open.
    const run = s.recording ? searchToSetup(location.search).page.run : null;
    // So do the run viewer's keys while a run `rlvr view` serves is open (src/ui/state/viewer-actions.ts).
    const q = [setupToSearch(s.setup, selectedManifest(s)), run ? `run=${encodeURIComponent(run)}` : '', viewerPlace(s)]
      .filter(Boolean)
      .join('&');
    if (q !== location.search.replace(/^\?/, ''))
      history.replaceState(null, '', `${location.pathname}${q ? `?${q}` : ''}${location.hash}`);
    if (
      s.setup.draft !== prev.setup.draft ||
      s.setup.checkpoint !== prev.setup.checkpoint ||
      s.setup.model !== prev.setup.model
    )
      scheduleSync();
  });
  await loadCheckpointIndex();
  setState({ booted: true });
  saveWhenLeaving();
  // The other tabs learn this tab's experiment and run state (Banners.tsx warns about a shared experiment).
  joinTabs(() => {
    const st = getState();
    return { experiment: setupKey(st.setup), state: st.run.state, step: st.run.step, task: st.setup.draft.task };
  });
  useApp.subscribe((s, prev) => {
    if (s.run.state !== prev.run.state || s.run.step !== prev.run.step || s.setup !== prev.setup) announce();
  });
  let runs: RunMeta[];
  try {
    runs = await listRuns();
  } catch (e) {
    setNotices({
      autosaveOff:
        `Autosave is off: ${describeStorageError(e)}. ` +
        'Training works, but a reload or a crash will lose ' +
        'the run. Download a checkpoint to keep the ' +
        'weights.',
    });
    return;
  }
  // This tab's own run (a reload): restored without asking. The address bar is the newest statement
  // of the experiment (it may be ahead of the autosave).
  const own = tabRunId();
  if (own && runs.some((r) => r.runId === own)) {
    if (await holdRun(own, 3000)) {
      const saved = await loadRun(own).catch(() => undefined);
      if (saved) {
        const shown = shownStep(own);
        const training = wasTraining(own);
        await restoreSaved(saved, parsed.hasExperiment ? parsed.setup : saved.setup);
        if (getState().run.config)
          setNotices({
            restored:
              restoredNote(saved.snapshot.trainer.step, saved.snapshot.savedAt, shown) +
              (training ? ' It was training when the page went away.' : ''),
            restoredWhileTraining: training,
          });
        return;
      }
    } else becomeNewTab(); // a duplicated tab: the original has this run open
  }
  // A new tab: the runs saved by other tabs are offered, never taken silently.
  if (runs.length) setState({ savedRuns: await offers(runs, setupKey(parsed.setup), parsed.hasExperiment) });
}

async function offers(runs: RunMeta[], experiment: string, hasExperiment: boolean): Promise<SavedOffer[]> {
  const open = await openRuns();
  return runs.map((r) => ({
    runId: r.runId,
    kind: 'other',
    task: r.task,
    step: r.step,
    savedAt: r.savedAt,
    openElsewhere: open.has(r.runId),
    sameExperiment: hasExperiment && r.experiment === experiment,
  }));
}

/** Debug and test hook: the page's state and the worker's rollout records (e2e/app.spec.mjs reads these). */
export function exposeTestHook(): void {
  (window as unknown as { __rlvr: unknown }).__rlvr = {
    state: () => getState(),
    notices: () => notices(),
    /** Start-up is over: the tab's own run restored (or failed to), or the saved runs offered. */
    bootDone: () => session.bootDone,
    /** Tests: autosave every n steps; the watchdog's timeout (ms) for a worker that stopped answering. */
    setAutosaveEvery: (n: number) => setAutosaveInterval(n),
    setWatchdogMs,
    getRollouts: (step: number) => client().call((a) => a.getRollouts(step)),
    status: () => client().call((a) => a.status()),
    /** Tests: called with the page's state on every change, synchronously (a press can land between two changes). */
    subscribe: (fn: (s: ReturnType<typeof getState>) => void) => useApp.subscribe(fn),
  };
}
