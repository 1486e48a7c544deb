/**
 * The long jobs on the live run's worker beside training: the SFT warm start and pass@k. Each shows one
 * progress line (job-progress.ts, fed by the worker's progress events in controller.ts), and Cancel
 * answers at once: the press bumps the job's ticket, so its late answer is dropped, and the worker stops
 * at its next batch or step. A worker that stops ends both waits with the banner's words (onCrash).
 */
import { currentRunId } from './autosave.ts';
import { ensureRun } from './run-load.ts';
import { showError } from './errors.ts';
import { savePassK } from './persist.ts';
import { getState, patch, setState } from './store.ts';
import { session } from './session.ts';
import { WorkerCrashed } from './worker-client.ts';
import { client, liveClient } from './worker-link.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

// Each warm-start press gets a number (session.warmStartTicket): a cancelled computation's answer is dropped.

/**
 * The optional SFT warm start before RL (see TrainingSession.warmStart); progress streams as
 * 'warm-start' into one line with its time left, and Cancel (cancelWarmStart) leaves the model as it was.
 */
export async function warmStart(steps: number): Promise<void> {
  const ticket = ++session.warmStartTicket;
  patch('warmStart', { running: true, result: null, wait: null, cancelled: false, error: null });
  if (!(await ensureRun())) {
    if (ticket === session.warmStartTicket) patch('warmStart', { running: false });
    return;
  }
  if (ticket !== session.warmStartTicket) return; // cancelled while the model loaded
  try {
    const r = await client().call((a) => a.warmStart({ steps }));
    if (ticket !== session.warmStartTicket || r.cancelled) return;
    patch('warmStart', {
      running: false,
      wait: null,
      result: {
        steps,
        firstLoss: r.losses[0] ?? NaN,
        lastLoss: r.losses[r.losses.length - 1] ?? NaN,
        seconds: r.seconds,
      },
    });
    setState((s) => ({ run: { ...s.run, evals: [] } })); // the worker saves the warm-started run itself
  } catch (e) {
    // A worker that stopped has said so in its banner and in this panel (onCrash): not a second message.
    if (e instanceof WorkerCrashed || ticket !== session.warmStartTicket) return;
    patch('warmStart', { running: false, wait: null, result: null });
    showError('step', 'The warm start failed', e);
  }
}

/** Cancel: the panel says so at once; the worker stops after its current SFT step and puts the weights back. */
export function cancelWarmStart(): void {
  if (!getState().warmStart.running) return;
  session.warmStartTicket++;
  patch('warmStart', { running: false, wait: null, cancelled: true });
  void liveClient()
    ?.call((a) => a.cancelWarmStart())
    .catch(() => undefined);
}

// Each pass@k press gets a number (session.passkTicket): a cancelled (or superseded) computation's answer is dropped.

export async function runPassK(): Promise<void> {
  const ticket = ++session.passkTicket;
  patch('passk', { running: true, error: null, wait: null, cancelled: false });
  if (!(await ensureRun())) {
    if (ticket === session.passkTicket) patch('passk', { running: false });
    return;
  }
  if (ticket !== session.passkTicket) return; // cancelled while the model loaded
  // A run loaded just now resets the panel (applyInit): it is waiting again.
  patch('passk', { running: true, error: null, wait: null, cancelled: false });
  try {
    const curve = await client().call((a) => a.evaluatePassAtK());
    if (ticket === session.passkTicket) patch('passk', { curve, running: false, wait: null, restored: false });
    // Kept with the run: a reload shows it again (restoreSaved).
    const id = currentRunId();
    if (id) savePassK(id, curve);
  } catch (e) {
    // A crash has already put its message in the panel (onCrash); a cancel its own state.
    if (ticket === session.passkTicket && getState().passk.running)
      patch('passk', { running: false, wait: null, error: message(e) });
  }
}

/** Cancel: the panel says so at once; the worker stops before its next sampling batch. */
export function cancelPassK(): void {
  if (!getState().passk.running) return;
  session.passkTicket++;
  patch('passk', { running: false, wait: null, cancelled: true });
  void liveClient()
    ?.call((a) => a.cancelPassK())
    .catch(() => undefined);
}
