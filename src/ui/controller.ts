/**
 * Actions: everything the page asks the trainer worker to do, and how the streamed events land in
 * the store. Components call these; they never talk to the worker themselves. The worker itself is
 * held by worker-link.ts, saving is autosave.ts, and the page's start-up is boot.ts.
 */
import { configFields, restartFields, type RunConfig } from '../rl/config.ts';
import type { InitResult, SessionEvent, UpdateResult } from '../../workers/protocol.ts';
import { autosave, setRunId } from './autosave.ts';
import { compactHistory } from './chart-data.ts';
import { adoptDataset } from './dataset-import.ts';
import { notices, setNotices } from './notices.ts';
import { clearRun, loadRun, type SavedRun } from './persist.ts';
import { getState, hasRun, initialRun, patch, setState, type AppError } from './store.ts';
import { draftValidation, effectiveDraftConfig, initRequest, selectedCheckpoint, updateSetup } from './setup-state.ts';
import type { UrlSetup } from './url-state.ts';
import { client, connectWorker, dropWorker, liveClient } from './worker-link.ts';
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
  if (syncOwed && hasRun()) {
    syncOwed = false;
    scheduleSync();
  }
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
    setRunId();
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
    await liveClient()?.call((a) => a.stop());
  } catch {
    dropWorker();
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

export function scheduleSync(): void {
  if (syncTimer) clearTimeout(syncTimer);
  syncTimer = setTimeout(() => void syncLiveConfig(), 300);
}

/**
 * Resumes a saved run. `setup` is the experiment to show (default: the one saved with the run; this
 * tab's own newer setup after a reload or a crash): the URL is rewritten from it, and knobs that differ
 * from the saved run's config are applied live (or flagged for a new run) as edits always are.
 */
export async function restoreSaved(saved: SavedRun, setup: UrlSetup = saved.setup): Promise<void> {
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
    setRunId(saved.runId);
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
  dropWorker();
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
  dropWorker();
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
  // A recording shown in the page: its own rollouts, at the scrubber (the worker is not asked).
  if (getState().recording?.showing) {
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

