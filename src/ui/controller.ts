/**
 * Actions: everything the page asks the trainer worker to do, and how the streamed events land in
 * the store. Components call these; they never talk to the worker themselves. The worker itself is
 * held by worker-link.ts, saving is autosave.ts, and the page's start-up is boot.ts.
 */
import type { RunConfig } from '../rl/config.ts';
import { resolveLiveEdit } from '../rl/resolve-config.ts';
import type { InitResult, SessionEvent, UpdateResult } from '../../workers/protocol.ts';
import { autosave, currentRunId, saveFailed, savedByWorker, setRunId } from './autosave.ts';
import { compactHistory } from './chart-data.ts';
import { adoptDataset, useDataset } from './dataset-import.ts';
import { notices, setNotices } from './notices.ts';
import { isIsolationSettled, isolationSettled } from './offline-state.ts';
import { recordPace } from './pace.ts';
import { forgetPress, rememberPress, type Press } from './pending-press.ts';
import { deleteRun, forgetPassK, loadPassK, loadRun, restoredNote, type SavedRun } from './persist.ts';
import { holdRun, recordShownStep } from './tabs.ts';
import { getState, hasRun, initialRun, initialRunSlices, patch, setState, type AppError } from './store.ts';
import { draftValidation, effectiveDraftConfig, initRequest, selectedCheckpoint, updateSetup } from './setup-state.ts';
import type { UrlSetup } from './url-state.ts';
import { client, connectWorker, dropWorker, liveClient } from './worker-link.ts';
import { jobWait } from './job-progress.ts';
import { showsRecording } from './shown-run.ts';
import { passKWait } from './passk-progress.ts';
import { scrubTo } from './recording.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function showError(kind: AppError['kind'], title: string, e: unknown): void {
  setState({ error: { kind, title, message: message(e) } });
}

export function dismissError(): void {
  setState({ error: null });
}

// ---- events from the worker ---------------------------------------------------------------------

function onEvents(events: SessionEvent[]): void {
  const s = getState();
  // Copied only when a step or an evaluation arrives: progress ticks and status leave the charts' data as it is.
  let metrics = s.metrics;
  let evals = s.evals;
  let summaries = s.summaries;
  let histogram = s.histogram;
  let run = s.run;
  let error = s.error;
  let shown: number | null = null;
  for (const e of events) {
    if (e.type === 'step') {
      shown = e.metrics.step;
      if (!metrics.length || metrics[metrics.length - 1]!.step < e.metrics.step) metrics = [...metrics, e.metrics];
      summaries = [...summaries.slice(-199), e.summary];
      histogram = e.histogram;
      const prev = notices().skipped;
      if (e.skipped)
        setNotices({
          skipped: { step: e.metrics.step, streak: prev && prev.step === e.metrics.step - 1 ? prev.streak + 1 : 1 },
        });
      else if (prev) setNotices({ skipped: null });
    } else if (e.type === 'eval') {
      if (!evals.some((x) => x.step === e.point.step)) evals = [...evals, e.point];
    } else if (e.type === 'status') {
      const st = e.status;
      // A new activity starts its own count: the last one's "100%" must not linger on the next wait.
      const progress = st.activity && st.activity === run.activity ? run.progress : null;
      // Pause was pressed: until the loop has stopped, the page says "pausing" (see pause()).
      if (st.state !== 'running') pauseAsked = false;
      run = {
        ...run,
        state: st.state === 'running' && pauseAsked ? 'pausing' : st.state,
        step: st.step,
        stepBudget: st.stepBudget,
        stepsPerMinute: st.stepsPerMinute,
        lastStepSeconds: st.lastStepSeconds,
        activity: st.activity,
        rolloutSteps: st.rolloutSteps,
        progress,
      };
    } else if (e.type === 'progress') {
      run = { ...run, progress: { what: e.what, done: e.done, total: e.total, phase: e.phase } };
      const pk = getState().passk;
      if ((e.what === 'passk-base' || e.what === 'passk-current') && pk.running)
        patch('passk', { wait: passKWait(pk.wait ?? null, e.what, e.done, e.total, performance.now()) });
      const ws = getState().warmStart;
      if (e.what === 'warm-start' && ws.running && e.total > 0)
        patch('warmStart', { wait: jobWait(ws.wait ?? null, e.done / e.total, performance.now()) });
    } else if (e.type === 'saved') savedByWorker(e);
    else if (e.type === 'save-failed') saveFailed(Object.assign(new Error(e.message), { name: e.name }));
    else if (e.type === 'error') {
      if (e.code === 'non-finite') {
        const c = s.run.config;
        setNotices({
          nonFinite: { message: e.message, learningRate: c?.learning_rate ?? 0, maxGradNorm: c?.max_grad_norm ?? 0 },
        });
      } else if (e.code === 'device-lost') void fallbackToWasm(e.message);
      else error = { kind: 'step', title: e.fatal ? 'Training stopped' : 'Training paused', message: e.message };
    }
  }
  setState({
    metrics: metrics === s.metrics ? metrics : compactHistory(metrics),
    evals,
    summaries,
    histogram,
    run,
    error,
  });
  if (metrics !== s.metrics) recordPace(getState().metrics, run.config, run.model?.parameters, run.backend?.kind);
  // Written at once, so that after a reload boot.ts knows how far the page had got beyond the last save.
  const id = currentRunId();
  if (shown !== null && id) recordShownStep(id, shown);
  if (syncOwed && hasRun()) {
    syncOwed = false;
    scheduleSync();
  }
}

/** The banner's words when the worker stops; every panel that was waiting on it says the same. */
export const CRASH_TITLE = 'The training worker stopped unexpectedly';

function onCrash(msg: string): void {
  patch('run', { state: 'crashed', activity: '' });
  const saved = getState().autosave;
  const text = `${msg}. ${saved ? `The last autosave is from step ${saved.step}.` : 'There is no autosave of this run yet.'} (Out of memory? Try fewer prompts_per_step × num_generations.)`;
  const s = getState();
  setState({
    error: { kind: 'crash', title: CRASH_TITLE, message: text },
    // Panels waiting on the worker stop waiting, with the banner's message (none keeps "Computing…").
    ...(s.passk.running ? { passk: { ...s.passk, running: false, wait: null, error: `${CRASH_TITLE}: ${text}` } } : {}),
    ...(s.warmStart.running
      ? { warmStart: { ...s.warmStart, running: false, wait: null, error: `${CRASH_TITLE}: ${text}` } }
      : {}),
  });
}

connectWorker({ onEvents, onCrash });

// ---- setup (queries in setup-state.ts) ----------------------------------------------------------

/** Which base checkpoint the current run was built from (changing it needs a reset). */
let runSourceKey: string | null = null;

function sourceKey(s = getState()): string {
  if (s.setup.model) return `fresh:${s.setup.model}`;
  if (s.setup.checkpoint === 'upload') return `upload:${s.uploaded?.name ?? ''}`;
  return `shipped:${selectedCheckpoint(s)}`;
}

export function applyInit(r: InitResult): void {
  runSourceKey = sourceKey();
  setState((s) => ({
    run: {
      ...s.run,
      backend: r.backend,
      model: r.model,
      config: r.config,
      step: r.step,
      initSeconds: r.initSeconds,
      stepBudget: s.setup.stepBudget,
    },
    metrics: r.metrics,
    evals: r.evals,
    summaries: [],
    histogram: null,
    pendingRestart: null,
    liveNote: null,
    inspector: { ...s.inspector, step: null, data: null, open: null, token: null },
  }));
}

/**
 * The run load in flight (initRun or restoreSaved), if any. A press that needs a run waits for it
 * (ensureRun): the page shows a restored run's steps as soon as the worker's init answers, a status
 * batch later than its state, and a Step once pressed in between must step that run, not load a new
 * one over it.
 */
let loadInFlight: Promise<unknown> | null = null;

function trackLoad<T>(p: Promise<T>): Promise<T> {
  loadInFlight = p;
  const clear = () => {
    if (loadInFlight === p) loadInFlight = null;
  };
  p.then(clear, clear);
  return p;
}

/**
 * A loaded run on the page: applyInit, and the run state the worker took when its init answered
 * (TrainingSession.init: paused with steps, else ready), without waiting for its status event.
 */
function applyLoaded(r: InitResult): void {
  applyInit(r);
  patch('run', { state: r.step > 0 ? 'paused' : 'ready', activity: '' });
}

/** The run a press acts on: the one being loaded now, else the one there is, else a new one from the setup. False if none could be loaded. */
export async function ensureRun(): Promise<boolean> {
  while (loadInFlight) await loadInFlight.catch(() => undefined);
  return hasRun() || (await initRun());
}

/** Loads the model and builds the trainer for the current setup. False if the setup is invalid or loading failed. */
export async function initRun(): Promise<boolean> {
  const v = draftValidation();
  if (!v.config) return false;
  patch('run', { state: 'loading', activity: 'loading the model' });
  try {
    const request = initRequest();
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

/** Runs a button's action once at a time: a second click while the first is unanswered does nothing. */
async function busyWhile(what: string, fn: () => Promise<void>): Promise<void> {
  if (getState().busy) return;
  setState({ busy: what });
  try {
    await fn();
  } finally {
    setState({ busy: null });
  }
}

/**
 * Waits, before a press acts, until the service worker will not reload the page for isolation; the
 * press is remembered meanwhile (pending-press.ts) so that the reloaded page honours it. Nothing is
 * loaded before that: work started now would be cut off by the reload.
 */
async function afterIsolation(press: Press, busy: string): Promise<void> {
  if (isIsolationSettled()) return;
  rememberPress(press);
  setState({ busy: `${busy} once the page has finished its one-time offline setup (it reloads itself once)` });
  await isolationSettled();
  forgetPress();
  setState({ busy });
}

export function start(): Promise<void> {
  return busyWhile('starting', async () => {
    await afterIsolation('start', 'starting');
    if (!(await ensureRun())) return;
    setNotices({ nonFinite: null });
    try {
      await client().call((a) => a.setStepBudget(getState().setup.stepBudget));
      await client().call((a) => a.start());
    } catch (e) {
      showError('step', 'Could not start training', e);
    }
  });
}

/** Set by Pause until the worker reports the loop stopped: a worker answers only between engine operations. */
let pauseAsked = false;

export async function pause(): Promise<void> {
  // Answered at once on the page; the run stops after its current step.
  if (getState().run.state === 'running') {
    pauseAsked = true;
    patch('run', { state: 'pausing', activity: 'finishing the current step' });
  }
  try {
    await client().call((a) => a.pause());
  } catch (e) {
    showError('step', 'Could not pause', e);
  }
}

export function stepOnce(): Promise<void> {
  return busyWhile('running one step', async () => {
    await afterIsolation('step-once', 'running one step');
    if (!(await ensureRun())) return;
    try {
      await client().call((a) => a.stepOnce()); // the worker saves the step itself
    } catch (e) {
      showError('step', 'The step failed', e);
    }
  });
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
  runSourceKey = null;
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

export async function setStepBudget(n: number): Promise<void> {
  updateSetup((s) => ({ ...s, stepBudget: n }));
  if (hasRun())
    await client()
      .call((a) => a.setStepBudget(n))
      .catch(() => undefined);
  patch('run', { stepBudget: n });
}

// ---- live config changes ------------------------------------------------------------------------

let syncTimer: ReturnType<typeof setTimeout> | null = null;

/**
 * Set when a sync found a config but no ready run: a restored run has its config before the worker's
 * status says it is paused, and the setup it was restored under (this tab's URL, which may be ahead of
 * the autosave) must still be applied live once it is.
 */
let syncOwed = false;

/** Sends the draft's changes that can apply between steps; lists those that need a reset. */
async function syncLiveConfig(): Promise<void> {
  const s = getState();
  const running = s.run.config;
  syncOwed = !!running && !hasRun();
  if (!running || !hasRun()) return;
  const next = effectiveDraftConfig(s);
  if (!next) return;
  // The same resolution and restart rule the worker applies (Trainer.updateConfig): resolveLiveEdit.
  const edit = resolveLiveEdit(running, next as unknown as Record<string, unknown>);
  const blocked: string[] = [...edit.restart];
  if (runSourceKey && sourceKey(s) !== runSourceKey) blocked.push('base checkpoint');
  const live = edit.live;
  let pending = blocked.length
    ? {
        field: blocked.join(', '),
        reason:
          'takes effect in a new run (it changes the compiled graphs, the prompt stream or the model): press Reset, then Start',
      }
    : null;
  let note: string | null = s.liveNote;
  if (live.length) {
    const p = Object.fromEntries(live.map((k) => [k, next[k]])) as Partial<RunConfig>;
    try {
      const r = await client().call((a) => a.updateConfig(p) as Promise<UpdateResult>);
      if (r.ok) {
        patch('run', { config: r.config });
        note = r.changed.length ? `applied live from step ${getState().run.step}: ${r.changed.join(', ')}` : note;
      } else
        pending = {
          field: r.field,
          reason: r.reason.startsWith(`${r.field}: `) ? r.reason.slice(r.field.length + 2) : r.reason,
        }; // shown as `field: reason`
    } catch (e) {
      pending = { field: live.join(', '), reason: message(e) };
    }
  }
  setState({ pendingRestart: pending, liveNote: note });
  // The autosave follows the setup (and the live config) so a reload restores what the URL says.
  void autosave();
}

export function scheduleSync(): void {
  if (syncTimer) clearTimeout(syncTimer);
  syncTimer = setTimeout(() => void syncLiveConfig(), 300);
}

/** The saved run whose restore failed last (the error banner's "Forget the saved run" deletes it). */
let failedRestore: string | null = null;

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
  try {
    const r = await trackLoad(
      client().call((a) =>
        a.init({
          config: saved.snapshot.config,
          checkpoint: { kind: 'fresh', model: 'nano', seed: 0 },
          backend,
          restore: saved.snapshot,
        }),
      ),
    );
    applyLoaded(r);
    useDataset.setState({ inRun: saved.snapshot.dataset ?? null });
    setRunId(copy ? undefined : saved.runId);
    failedRestore = null;
    setState({ autosave: { at: saved.snapshot.savedAt, step: saved.snapshot.trainer.step }, error: null });
    // The last pass@k result of this run, unless it was measured on steps the reload lost.
    const kept = saved.runId ? loadPassK(saved.runId) : null;
    if (kept && kept.step <= saved.snapshot.trainer.step) patch('passk', { curve: kept, restored: true });
    await syncLiveConfig();
  } catch (e) {
    patch('run', { state: 'idle', activity: '' });
    failedRestore = saved.runId ?? null;
    showError('restore', 'Could not restore the saved run', e);
  }
}

/**
 * The WebGPU device was lost: nothing on it can be read back, so the run resumes on WASM from the
 * last autosave (or starts over on WASM when there is none), and says which.
 */
async function fallbackToWasm(reason: string): Promise<void> {
  dropWorker();
  updateSetup((s) => ({ ...s, backend: 'wasm' }));
  const saved = await ownSaved();
  if (saved) {
    await restoreSaved(saved, getState().setup);
    setNotices({
      fallback: `${reason[0]!.toUpperCase()}${reason.slice(1)}. Switched to WASM and resumed from the autosave at step ${saved.snapshot.trainer.step}; steps after it were lost. Press Start to go on.`,
    });
  } else {
    await reset();
    setNotices({
      fallback: `${reason[0]!.toUpperCase()}${reason.slice(1)}. Switched to WASM; there was no autosave of this run, so it starts over.`,
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
export async function discardSaved(runId: string | null = failedRestore): Promise<void> {
  if (!runId) return;
  const offer = getState().savedRuns.find((o) => o.runId === runId);
  if (!offer?.openElsewhere) {
    await deleteRun(runId).catch(() => undefined);
    forgetPassK(runId);
  }
  dropOffer(runId);
  if (runId === currentRunId()) setState({ autosave: null });
}

// ---- inspector, pass@k --------------------------------------------------------------------------

export async function openStep(step: number): Promise<void> {
  // A recording shown in the page: its own rollouts, at the scrubber (the worker is not asked).
  if (showsRecording(getState())) {
    scrubTo(step);
    return;
  }
  patch('inspector', { step, loading: true });
  try {
    const data = await client().call((a) => a.getRollouts(step));
    if (getState().inspector.step === step) patch('inspector', { data, loading: false });
  } catch (e) {
    patch('inspector', { loading: false });
    showError('other', `Could not fetch the rollouts of step ${step}`, e);
  }
}
