/**
 * Loading the live run: a new one from the setup (initRun), the one a press acts on (ensureRun), what a
 * loaded run puts on the page (applyInit), and Reset. Restoring a saved run is restore.ts.
 */
import { session } from './session.ts';
import { currentRunId, setRunId } from './autosave.ts';
import { useDataset } from './dataset-import.ts';
import { message, showError } from './errors.ts';
import { setNotices } from './notices.ts';
import { draftValidation, initRequest, selectedCheckpoint } from './setup-state.ts';
import { getState, hasRun, initialRun, initialRunSlices, patch, setState, type RunControl } from './store.ts';
import { client, dropWorker, liveClient } from './worker-link.ts';
import type { InitResult } from '../../../workers/protocol.ts';
import { threadsGiven } from '../../engine/wasm-threads.ts';

const setControl = (c: Partial<RunControl>) => patch('runControl', c);

/** Which base checkpoint the setup builds a run from (runControl.sourceKey: the current run's). */
export function sourceKey(s = getState()): string {
  if (s.setup.model) return `fresh:${s.setup.model}`;
  if (s.setup.checkpoint === 'upload') return `upload:${s.uploaded?.name ?? ''}`;
  return `shipped:${selectedCheckpoint(s)}`;
}

export function applyInit(r: InitResult): void {
  setControl({ sourceKey: sourceKey() });
  setState((s) => ({
    run: {
      ...s.run,
      backend: r.backend,
      model: r.model,
      config: r.config,
      step: r.step,
      initSeconds: r.initSeconds,
      stepBudget: s.setup.stepBudget,
      metrics: r.metrics,
      evals: r.evals,
      summaries: [],
      histogram: null,
    },
    pendingRestart: null,
    liveNote: null,
    inspector: { ...s.inspector, step: null, data: null, open: null, token: null },
  }));
}

/** Marks a run load (initRun or restoreSaved) as in flight until it settles (session.loadInFlight). */
export function trackLoad<T>(p: Promise<T>): Promise<T> {
  session.loadInFlight = p;
  const clear = () => {
    if (session.loadInFlight === p) session.loadInFlight = null;
  };
  p.then(clear, clear);
  return p;
}

/**
 * A loaded run on the page: applyInit, and the run state the worker took when its init answered
 * (TrainingSession.init: paused with steps, else ready), without waiting for its status event.
 */
export function applyLoaded(r: InitResult): void {
  applyInit(r);
  patch('run', { state: r.step > 0 ? 'paused' : 'ready', activity: '' });
}

/**
 * The run a press acts on: the one being loaded now, else the one there is, else a new one from the setup. False if
 * none could be loaded.
 */
export async function ensureRun(): Promise<boolean> {
  for (let p = session.loadInFlight; p; p = session.loadInFlight) await p.catch(() => undefined);
  return hasRun() || (await initRun());
}

/**
 * The worker's WASM threads are fixed when its backend is made (src/engine/wasm-threads.ts): a run that wants
 * another count than the live worker's gets a new worker.
 */
export function dropWorkerOfOtherThreads(threads: number | undefined): void {
  const had = getState().run.backend;
  if (liveClient() && had && had.threads !== threadsGiven(threads)) dropWorker();
}

/** Loads the model and builds the trainer for the current setup. False if the setup is invalid or loading failed. */
export async function initRun(): Promise<boolean> {
  const v = draftValidation();
  if (!v.config) return false;
  patch('run', { state: 'loading', activity: 'loading the model' });
  try {
    const request = initRequest();
    dropWorkerOfOtherThreads(request.threads);
    const r = await trackLoad(client().call((a) => a.init(request)));
    applyLoaded(r);
    useDataset.setState({ inRun: request.dataset ?? null });
    setRunId();
    // A run of this tab's own: the offers of saved runs no longer apply to what is on the page.
    setState({ error: null, savedRuns: [] });
    return true;
  } catch (e) {
    patch('run', { state: getState().run.config ? 'paused' : 'idle', activity: '' });
    const m = message(e);
    const checkpoint = /checkpoint|manifest|safetensors|tensor/i.test(m);
    showError(
      checkpoint ? 'checkpoint' : 'init',
      checkpoint ? 'Could not load the checkpoint' : 'Could not start the run',
      m,
    );
    return false;
  }
}

/**
 * Discards the run; the next Start builds a new one from the setup, saved as a run of its own. The
 * last autosave stays a saved run (Restore in the banner brings it back, and so does a reload before
 * the new run's first autosave).
 */
export async function reset(): Promise<void> {
  try {
    await liveClient()?.call((a) => a.stop());
  } catch {
    dropWorker();
  }
  const kept = getState().autosave;
  const keptId = currentRunId();
  setControl({ sourceKey: null });
  setNotices({ skipped: null, nonFinite: null, fallback: null, restored: null });
  setState((s) => ({
    ...initialRunSlices(),
    run: { ...initialRun, backend: s.run.backend },
    savedRuns:
      kept && keptId
        ? [
            {
              runId: keptId,
              kind: 'reset',
              task: s.run.config?.task ?? s.setup.draft.task,
              step: kept.step,
              savedAt: kept.at,
              openElsewhere: false,
              sameExperiment: true,
            },
          ]
        : [],
    inspector: { ...s.inspector, step: null, data: null, open: null, token: null },
  }));
}
