import type { SessionEvent } from '../../../workers/protocol.ts';
import { currentRunId, saveFailed, savedByWorker } from './autosave.ts';
import { foldRunEvents, type RunEffect } from '../derive/run-series.ts';
import { notices, setNotices } from './notices.ts';
import { isIsolationSettled, isolationSettled } from './offline-state.ts';
import { recordPace } from './pace.ts';
import { forgetPress, rememberPress, type Press } from './pending-press.ts';
import { session } from './session.ts';
import { recordShownStep, recordTraining } from './tabs.ts';
import { type AppState, getState, hasRun, patch, setState } from './store.ts';
import { updateSetup } from './setup-state.ts';
import { client, connectWorker, liveClient } from './worker-link.ts';
import { jobWait } from '../derive/job-progress.ts';
import { showsRecording } from '../derive/shown-run.ts';
import { passKWait } from '../derive/passk-progress.ts';
import { scrubTo } from './recording.ts';
import { showError } from './errors.ts';
import { ensureRun } from './run-load.ts';
import { scheduleSync } from './live-config.ts';
import { fallbackToWasm } from './restore.ts';

// ---- events from the worker ---------------------------------------------------------------------

/** What a batch of the live worker's events asks of the page beyond the run (foldRunEvents' effects). */
function applyEffect(e: RunEffect, s: AppState): void {
  if (e.kind === 'step') {
    const prev = notices().skipped;
    if (e.skipped)
      setNotices({ skipped: { step: e.step, streak: prev && prev.step === e.step - 1 ? prev.streak + 1 : 1 } });
    else if (prev) setNotices({ skipped: null });
  } else if (e.kind === 'progress') {
    const pk = getState().passk;
    if ((e.what === 'passk-base' || e.what === 'passk-current') && pk.running)
      patch('passk', { wait: passKWait(pk.wait ?? null, e.what, e.done, e.total, performance.now()) });
    const ws = getState().warmStart;
    if (e.what === 'warm-start' && ws.running && e.total > 0)
      patch('warmStart', { wait: jobWait(ws.wait ?? null, e.done / e.total, performance.now()) });
  } else if (e.kind === 'saved') savedByWorker(e);
  else if (e.kind === 'save-failed') saveFailed(Object.assign(new Error(e.message), { name: e.name }));
  else if (e.kind === 'non-finite') {
    const c = s.run.config;
    setNotices({
      nonFinite: { message: e.message, learningRate: c?.learning_rate ?? 0, maxGradNorm: c?.max_grad_norm ?? 0 },
    });
  } else if (e.kind === 'device-lost') void fallbackToWasm(e.message);
  else
    setState({ error: { kind: 'step', title: e.fatal ? 'Training stopped' : 'Training paused', message: e.message } });
}

/** One batch of the live worker's events: folded by foldRunEvents (run-series.ts), as a Compare side's are. */
function onEvents(events: SessionEvent[]): void {
  const s = getState();
  const worker = liveClient();
  const { next, effects, pauseAsked } = foldRunEvents(s.run, events, {
    slot: 'live',
    pauseAsked: worker?.pauseAsked ?? false,
  });
  // Pause was pressed: until the loop has stopped, the page says "pausing" (see pause()).
  if (worker) worker.pauseAsked = pauseAsked;
  // The live run's errors are the banner's (the 'error' effect), not the series' own.
  const { error: _shownInBanner, ...changed } = next;
  if (Object.keys(changed).length) setState({ run: { ...s.run, ...changed } });
  for (const e of effects) applyEffect(e, s);
  const fresh = session.freshStart;
  if (fresh && fresh.firstStepWall === null && changed.metrics?.length)
    fresh.firstStepWall = (performance.now() - fresh.pressedAt) / 1000;
  if (changed.metrics)
    recordPace(
      changed.metrics,
      s.run.config,
      s.run.model?.parameters,
      s.run.backend?.kind,
      1,
      fresh?.firstStepWall ?? null,
    );
  // Written at once, so that after a reload boot.ts knows how far the page had got beyond the last save.
  const id = currentRunId();
  const shown = effects.filter((e) => e.kind === 'step').pop();
  if (shown && id) recordShownStep(id, shown.step);
  if (changed.state !== undefined && id) recordTraining(id, changed.state === 'running');
  if (getState().runControl.syncOwed && hasRun()) {
    patch('runControl', { syncOwed: false });
    scheduleSync();
  }
}

/** The banner's words when the worker stops; every panel that was waiting on it says the same. */
export const CRASH_TITLE = 'The training worker stopped unexpectedly';

function onCrash(msg: string): void {
  patch('run', { state: 'crashed', activity: '' });
  const saved = getState().autosave;
  const text =
    `${msg}. ${saved ? `The last autosave is from step ${saved.step}.` : 'There is no autosave of this run yet.'} ` +
    '(Out of memory? Try fewer prompts_per_step × ' +
    'num_generations.)';
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
  // A run not started yet: its first step's wall time is the start the next estimate adds (pace.ts).
  session.freshStart = getState().run.step === 0 ? { pressedAt: performance.now(), firstStepWall: null } : null;
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

export async function pause(): Promise<void> {
  // Answered at once on the page; the run stops after its current step.
  try {
    const worker = client();
    if (getState().run.state === 'running') {
      worker.pauseAsked = true;
      patch('run', { state: 'pausing', activity: 'finishing the current step' });
    }
    await worker.pause();
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

export async function setStepBudget(n: number): Promise<void> {
  updateSetup((s) => ({ ...s, stepBudget: n }));
  if (hasRun())
    await client()
      .call((a) => a.setStepBudget(n))
      .catch(() => undefined);
  patch('run', { stepBudget: n });
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
