/**
 * Actions: everything the page asks the trainer worker to do, and how the streamed events land in
 * the store. Components call these; they never talk to the worker themselves.
 */
import { validateManifest } from '../model/checkpoint.ts';
import { configFields, restartFields, type RunConfig } from '../rl/config.ts';
import type { InitResult, SessionEvent, UpdateResult } from '../../workers/protocol.ts';
import { compactHistory } from './chart-data.ts';
import { adoptDataset, useDataset } from './dataset-import.ts';
import { describeStorageError, notices, setAutosaveEvery, setNotices } from './notices.ts';
import { clearRun, loadRun, markTabOwner, newRunId, saveRun, tabOwns, type SavedRun } from './persist.ts';
import { getState, initialRun, patch, setState, useApp, type AppError, type ShippedCheckpoint } from './store.ts';
import { capNotes, guardSearch } from './url-guard.ts';
import { experimentKey, searchToSetup, setupToSearch, type UrlSetup } from './url-state.ts';
import { TrainerClient } from './worker-client.ts';
import { Watchdog } from './watchdog.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
/** Default autosave interval in steps (and whenever training pauses or ends); configurable in Keep & share. */
export { DEFAULT_AUTOSAVE_EVERY as AUTOSAVE_EVERY } from './notices.ts';
const DEFAULT_CHECKPOINT = 'arithmetic-tiny';

let main: TrainerClient | null = null;
const watchdog = new Watchdog();

export function client(): TrainerClient {
  if (!main || main.dead) {
    main = new TrainerClient('trainer', onEvents, onCrash);
    watchdog.start(() => main, declareDead);
  }
  return main;
}

function declareDead(c: TrainerClient, why: string): void {
  c.terminate();
  if (main === c) main = null;
  saving = false; // an autosave waiting on the dead worker will never finish
  onCrash(why);
}

export function showError(kind: AppError['kind'], title: string, e: unknown): void {
  setState({ error: { kind, title, message: message(e) } });
}

export function dismissError(): void {
  setState({ error: null });
}

// ---- events from the worker ---------------------------------------------------------------------

function onEvents(events: SessionEvent[]): void {
  const s = getState();
  const metrics = [...s.metrics];
  const evals = [...s.evals];
  let summaries = s.summaries;
  let histogram = s.histogram;
  let run = s.run;
  let error = s.error;
  let autosaveDue = false;
  for (const e of events) {
    if (e.type === 'step') {
      if (!metrics.length || metrics[metrics.length - 1]!.step < e.metrics.step) metrics.push(e.metrics);
      summaries = [...summaries.slice(-199), e.summary];
      histogram = e.histogram;
      const every = notices().autosaveEvery;
      if (every > 0 && e.metrics.step % every === 0) autosaveDue = true;
      const prev = notices().skipped;
      if (e.skipped) setNotices({ skipped: { step: e.metrics.step, streak: prev && prev.step === e.metrics.step - 1 ? prev.streak + 1 : 1 } });
      else if (prev) setNotices({ skipped: null });
    } else if (e.type === 'eval') {
      if (!evals.some((x) => x.step === e.point.step)) evals.push(e.point);
    } else if (e.type === 'status') {
      const st = e.status;
      if ((run.state === 'running' || run.state === 'pausing') && (st.state === 'paused' || st.state === 'done')) autosaveDue = true;
      // A new activity starts its own count: the last one's "100%" must not linger on the next wait.
      const progress = st.activity && st.activity === run.activity ? run.progress : null;
      run = { ...run, state: st.state, step: st.step, stepBudget: st.stepBudget, stepsPerMinute: st.stepsPerMinute, lastStepSeconds: st.lastStepSeconds, activity: st.activity, rolloutSteps: st.rolloutSteps, progress };
    } else if (e.type === 'progress') {
      run = { ...run, progress: { what: e.what, done: e.done, total: e.total, phase: e.phase } };
    } else if (e.type === 'error') {
      if (e.code === 'non-finite') {
        const c = s.run.config;
        setNotices({ nonFinite: { message: e.message, learningRate: c?.learning_rate ?? 0, maxGradNorm: c?.max_grad_norm ?? 0 } });
      } else if (e.code === 'device-lost') void fallbackToWasm(e.message);
      else error = { kind: 'step', title: e.fatal ? 'Training stopped' : 'Training paused', message: e.message };
    }
  }
  setState({ metrics: compactHistory(metrics), evals, summaries, histogram, run, error });
  if (autosaveDue) void autosave();
}

function onCrash(msg: string): void {
  patch('run', { state: 'crashed', activity: '' });
  const saved = getState().autosave;
  setState({
    error: {
      kind: 'crash',
      title: 'The training worker stopped unexpectedly',
      message: `${msg}. ${saved ? `The last autosave is from step ${saved.step}.` : 'There is no autosave of this run yet.'} (Out of memory? Try fewer prompts_per_step × num_generations.)`,
    },
  });
}

// ---- setup (queries in setup-state.ts) ----------------------------------------------------------

export { checkpointSource, defaultCheckpointFor, draftValidation, effectiveDraftConfig, initRequest, measuredDifficulty, modelContextLength, recipeKnobs, selectedManifest, selectedCheckpoint, updateSetup } from './setup-state.ts';
import { draftValidation, effectiveDraftConfig, initRequest, measuredDifficulty, selectedCheckpoint, updateSetup } from './setup-state.ts';

/** Which base checkpoint the current run was built from (changing it needs a reset). */
let runSourceKey: string | null = null;

/** The current run's id, saved with its autosave (see persist.ts: a tab restores its own run without asking). */
let runId: string | null = null;

/** The experiment a setup describes, as compared between the address bar and the autosave. */
const setupKey = (setup: UrlSetup) => experimentKey(setupToSearch(setup));

function sourceKey(s = getState()): string {
  if (s.setup.model) return `fresh:${s.setup.model}`;
  if (s.setup.checkpoint === 'upload') return `upload:${s.uploaded?.name ?? ''}`;
  return `shipped:${selectedCheckpoint(s)}`;
}

export function applyInit(r: InitResult): void {
  runSourceKey = sourceKey();
  setState((s) => ({
    run: { ...s.run, backend: r.backend, model: r.model, config: r.config, step: r.step, initSeconds: r.initSeconds, stepBudget: s.setup.stepBudget },
    metrics: r.metrics,
    evals: r.evals,
    summaries: [],
    histogram: null,
    pendingRestart: null,
    liveNote: null,
    inspector: { ...s.inspector, step: null, data: null, open: null, token: null },
    passk: { curve: null, running: false, error: null },
  }));
}

/** Loads the model and builds the trainer for the current setup. False if the setup is invalid or loading failed. */
export async function initRun(): Promise<boolean> {
  const v = draftValidation();
  if (!v.config) return false;
  patch('run', { state: 'loading', activity: 'loading the model' });
  try {
    applyInit(await client().call((a) => a.init(initRequest())));
    runId = newRunId();
    setState({ error: null });
    return true;
  } catch (e) {
    patch('run', { state: getState().run.config ? 'paused' : 'idle', activity: '' });
    const m = message(e);
    const checkpoint = /checkpoint|manifest|safetensors|tensor/i.test(m);
    showError(checkpoint ? 'checkpoint' : 'init', checkpoint ? 'Could not load the checkpoint' : 'Could not start the run', m);
    return false;
  }
}

export const hasRun = () => {
  const s = getState().run;
  return s.config !== null && s.state !== 'idle' && s.state !== 'crashed' && s.state !== 'loading';
};

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

export function start(): Promise<void> {
  return busyWhile('starting', async () => {
    if (!hasRun() && !(await initRun())) return;
    setNotices({ nonFinite: null });
    try {
      await client().call((a) => a.setStepBudget(getState().setup.stepBudget));
      await client().call((a) => a.start());
    } catch (e) {
      showError('step', 'Could not start training', e);
    }
  });
}

export async function pause(): Promise<void> {
  try {
    await client().call((a) => a.pause());
  } catch (e) {
    showError('step', 'Could not pause', e);
  }
}

export function stepOnce(): Promise<void> {
  return busyWhile('running one step', async () => {
    if (!hasRun() && !(await initRun())) return;
    try {
      await client().call((a) => a.stepOnce());
      void autosave();
    } catch (e) {
      showError('step', 'The step failed', e);
    }
  });
}

/** The optional SFT warm start before RL (see TrainingSession.warmStart); progress streams as 'warm-start'. */
export async function warmStart(steps: number): Promise<void> {
  if (!hasRun() && !(await initRun())) return;
  patch('warmStart', { running: true, result: null });
  try {
    const r = await client().call((a) => a.warmStart({ steps }));
    patch('warmStart', { running: false, result: { steps, firstLoss: r.losses[0] ?? NaN, lastLoss: r.losses[r.losses.length - 1] ?? NaN, seconds: r.seconds } });
    setState({ evals: [] });
    void autosave();
  } catch (e) {
    patch('warmStart', { running: false, result: null });
    showError('step', 'The warm start failed', e);
  }
}

/**
 * Discards the run; the next Start builds a new one from the setup. The last autosave stays (a
 * reload, or Restore in the banner, brings it back) until the new run's first autosave replaces it.
 */
export async function reset(): Promise<void> {
  try {
    if (main && !main.dead) await main.call((a) => a.stop());
  } catch {
    main?.terminate();
    main = null;
  }
  const kept = getState().autosave;
  runSourceKey = null;
  setNotices({ skipped: null, nonFinite: null, fallback: null });
  patch('warmStart', { running: false, result: null });
  setState((s) => ({
    run: { ...initialRun, backend: s.run.backend },
    metrics: [],
    evals: [],
    summaries: [],
    histogram: null,
    pendingRestart: null,
    liveNote: null,
    error: null,
    savedRun: kept ? { step: kept.step, savedAt: kept.at, matches: true } : null,
    inspector: { ...s.inspector, step: null, data: null, open: null, token: null },
    passk: { curve: null, running: false, error: null },
  }));
}

export async function setStepBudget(n: number): Promise<void> {
  updateSetup((s) => ({ ...s, stepBudget: n }));
  if (hasRun()) await client().call((a) => a.setStepBudget(n)).catch(() => undefined);
  patch('run', { stepBudget: n });
}

// ---- live config changes ------------------------------------------------------------------------

let syncTimer: ReturnType<typeof setTimeout> | null = null;

/** Sends the draft's changes that can apply between steps; lists those that need a reset. */
async function syncLiveConfig(): Promise<void> {
  const s = getState();
  const running = s.run.config;
  if (!running || !hasRun()) return;
  const next = effectiveDraftConfig(s);
  if (!next) return;
  const differs = configFields.filter((k) => k !== 'version' && JSON.stringify(next[k]) !== JSON.stringify(running[k]));
  const blocked: string[] = differs.filter((k) => restartFields.includes(k));
  if (runSourceKey && sourceKey(s) !== runSourceKey) blocked.push('base checkpoint');
  // A difficulty belongs to its task: while a task change waits for a new run, its knobs wait too.
  const live = differs.filter((k) => !restartFields.includes(k) && !(k === 'difficulty' && blocked.includes('task')));
  let pending = blocked.length ? { field: blocked.join(', '), reason: 'takes effect in a new run (it changes the compiled graphs, the prompt stream or the model): press Reset, then Start' } : null;
  let note: string | null = s.liveNote;
  if (live.length) {
    const p = Object.fromEntries(live.map((k) => [k, next[k]])) as Partial<RunConfig>;
    try {
      const r = await client().call((a) => a.updateConfig(p) as Promise<UpdateResult>);
      if (r.ok) {
        patch('run', { config: r.config });
        note = r.changed.length ? `applied live from step ${getState().run.step}: ${r.changed.join(', ')}` : note;
      } else pending = { field: r.field, reason: r.reason.startsWith(`${r.field}: `) ? r.reason.slice(r.field.length + 2) : r.reason }; // shown as `field: reason`
    } catch (e) {
      pending = { field: live.join(', '), reason: message(e) };
    }
  }
  setState({ pendingRestart: pending, liveNote: note });
  // The autosave follows the setup (and the live config) so a reload restores what the URL says.
  void autosave();
}

function scheduleSync(): void {
  if (syncTimer) clearTimeout(syncTimer);
  syncTimer = setTimeout(() => void syncLiveConfig(), 300);
}

// ---- persistence --------------------------------------------------------------------------------

let saving = false;
/** A save was asked for while one was in progress: save again when it ends (the later state wins). */
let saveAgain = false;

/**
 * Saves the run to IndexedDB. If the browser refuses (storage full, or no storage in a private
 * window) autosave turns itself off and says so; training goes on. `force` (Save now, Try again)
 * saves even when it is off, and turns it back on if that works.
 */
export async function autosave(force = false): Promise<void> {
  if (!hasRun() || !main || main.dead) return;
  if (notices().autosaveOff && !force) return;
  if (saving) {
    saveAgain = true;
    return;
  }
  saving = true;
  saveAgain = false;
  const c = main;
  try {
    let snapshot;
    try {
      snapshot = await c.call((a) => a.snapshot());
    } catch (e) {
      console.warn('autosave: no snapshot from the worker:', message(e));
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

/**
 * Resumes a saved run. `setup` is the experiment to show (default: the one saved with the run; this
 * tab's own newer setup after a reload or a crash): the URL is rewritten from it, and knobs that differ
 * from the saved run's config are applied live (or flagged for a new run) as edits always are.
 */
async function restoreSaved(saved: SavedRun, setup: UrlSetup = saved.setup): Promise<void> {
  const backend = getState().setup.backend;
  if (saved.snapshot.dataset) {
    try {
      adoptDataset(saved.snapshot.dataset);
    } catch {
      /* the worker reports it */
    }
  }
  setState({ setup: { ...setup, backend }, savedRun: null });
  patch('run', { state: 'loading', activity: `restoring the saved run (step ${saved.snapshot.trainer.step})` });
  try {
    const r = await client().call((a) => a.init({ config: saved.snapshot.config, checkpoint: { kind: 'fresh', model: 'nano', seed: 0 }, backend, restore: saved.snapshot }));
    applyInit(r);
    runId = saved.runId ?? newRunId();
    setState({ autosave: { at: saved.snapshot.savedAt, step: saved.snapshot.trainer.step }, error: null });
    await syncLiveConfig();
  } catch (e) {
    patch('run', { state: 'idle', activity: '' });
    showError('restore', 'Could not restore the saved run', e);
  }
}

/**
 * The WebGPU device was lost: nothing on it can be read back, so the run resumes on WASM from the
 * last autosave (or starts over on WASM when there is none), and says which.
 */
async function fallbackToWasm(reason: string): Promise<void> {
  const old = main;
  main = null;
  old?.terminate();
  saving = false;
  updateSetup((s) => ({ ...s, backend: 'wasm' }));
  const saved = await loadRun().catch(() => undefined);
  if (saved) {
    await restoreSaved(saved, getState().setup);
    setNotices({ fallback: `${reason[0]!.toUpperCase()}${reason.slice(1)}. Switched to WASM and resumed from the autosave at step ${saved.snapshot.trainer.step}; steps after it were lost. Press Start to go on.` });
  } else {
    await reset();
    setNotices({ fallback: `${reason[0]!.toUpperCase()}${reason.slice(1)}. Switched to WASM; there was no autosave of this run, so it starts over.` });
  }
}

/** Restart after a crash: a new worker, resumed from the last autosave if there is one. */
export async function restartFromAutosave(): Promise<void> {
  main?.terminate();
  main = null;
  setState({ error: null });
  const saved = await loadRun().catch(() => undefined);
  if (saved) await restoreSaved(saved, getState().setup);
  else await reset();
}

export async function restoreOffered(): Promise<void> {
  const saved = await loadRun().catch(() => undefined);
  if (saved) await restoreSaved(saved);
}

export async function discardSaved(): Promise<void> {
  await clearRun().catch(() => undefined);
  setState({ savedRun: null, autosave: null });
}

// ---- inspector, pass@k --------------------------------------------------------------------------

export async function openStep(step: number): Promise<void> {
  patch('inspector', { step, loading: true });
  try {
    const data = await client().call((a) => a.getRollouts(step));
    if (getState().inspector.step === step) patch('inspector', { data, loading: false });
  } catch (e) {
    patch('inspector', { loading: false });
    showError('other', `Could not fetch the rollouts of step ${step}`, e);
  }
}

export async function runPassK(): Promise<void> {
  if (!hasRun() && !(await initRun())) return;
  patch('passk', { running: true, error: null });
  try {
    const curve = await client().call((a) => a.evaluatePassAtK());
    patch('passk', { curve, running: false });
  } catch (e) {
    patch('passk', { running: false, error: message(e) });
  }
}

// ---- boot ---------------------------------------------------------------------------------------

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
    const q = setupToSearch(s.setup);
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
    setWatchdogMs: (ms: number) => {
      watchdog.setTimeout(ms);
      if (main) watchdog.start(() => main, declareDead);
    },
    getRollouts: (step: number) => client().call((a) => a.getRollouts(step)),
    status: () => client().call((a) => a.status()),
  };
}
