/** The session's dependencies and its fault vocabulary (kept apart so the session file holds only its machinery). */
import type { StoredRun } from './run-store.ts';
import type { Backend } from '../src/engine/backend.ts';
import type { AdapterSummary, WebBackendKind } from '../src/engine/select-backend.ts';
import type { RunConfig } from '../src/rl/config.ts';
import type { StepResult, Trainer } from '../src/rl/trainer.ts';
import type { RunState, SessionEvent } from './protocol.ts';

/** A backend plus what the web backend knows about itself (all optional: the Node backend has none of it). */
export type SessionBackend = Backend & {
  threads?: number;
  crossOriginIsolated?: boolean;
  adapter?: AdapterSummary | null;
  adapterInUse?: () => Promise<AdapterSummary | null>;
};

export interface SessionDeps {
  createBackend(forced: WebBackendKind | null, threads?: number): Promise<SessionBackend>;
  fetchBytes(url: string): Promise<Uint8Array>;
  /** Macrotask yield between steps so incoming messages (pause, updateConfig) are handled. */
  yieldToEvents?: () => Promise<void>;
  /** How often batched events are flushed to the subscriber (ms). */
  flushMs?: number;
  /**
   * Called after every engine operation with the backend in use, so the worker can watch the WebGPU
   * device ORT created (it exists only once a WebGPU session does) and report its loss through
   * `deviceLost`. Node has no device to lose and leaves this out.
   */
  afterEngineUse?: (backend: SessionBackend) => void;
  /**
   * Writes a saved run's record (workers/run-store.ts saveRun in the worker): with it the session saves
   * its run itself after steps and on pause (workers/run-saver.ts), under the target the page sets.
   * Left out, the session saves nothing by itself.
   */
  writeRun?: (run: StoredRun & { runId: string }, onQueued?: (putMs: number) => void) => Promise<{ putMs: number }>;
}

/** Consecutive non-finite (skipped) steps after which the loop pauses itself. */
export const NON_FINITE_LIMIT = 3;

/** What the page shows when the loop paused itself after NON_FINITE_LIMIT skipped steps in a row. */
export function nonFiniteMessage(c: RunConfig, step: number): string {
  const lr = c.learning_rate;
  const clip = c.max_grad_norm;
  return (
    `${NON_FINITE_LIMIT} steps in a row (up to step ${step}) had a non-finite (NaN or infinite) loss or ` +
    'gradient and were skipped: ' +
    'weights and optimizer state are unchanged since the last good step. Training is paused. Suggestions: ' +
    'lower learning_rate ' +
    `(now ${lr}; try ${Number((lr / 10).toPrecision(2))}), clip gradients harder with max_grad_norm (now ` +
    `${clip}${clip > 0.5 || clip === 0 ? '; try 0.5' : ''}), ` +
    `check the reward weights, or reset the run. Press Start to try again.`
  );
}

export class SessionError extends Error {}

export const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** TEST ONLY: the next `steps` steps run with a NaN reward weight (see TrainingSession.debugInjectNonFinite). */
export class NaNRewardInjector {
  private left = 0;

  arm(steps: number): void {
    if (!Number.isInteger(steps) || steps < 0) throw new SessionError(`steps must be an integer >= 0, got ${steps}`);
    this.left = steps;
  }

  step(trainer: Trainer): Promise<StepResult> {
    if (this.left <= 0) return trainer.trainStep();
    this.left--;
    return trainStepWithNaNReward(trainer);
  }
}

/**
 * TEST ONLY: one training step with a NaN reward weight, as a buggy reward function would produce (see
 * debugInjectNonFinite).
 */
export async function trainStepWithNaNReward(trainer: Trainer): Promise<StepResult> {
  const clean = trainer.config;
  trainer.config = { ...clean, reward_weights: { ...clean.reward_weights, correctness: NaN } };
  try {
    return await trainer.trainStep();
  } finally {
    trainer.config = clean;
  }
}

/** The 'step' event of one update: its metrics plus a short account of its rollouts. */
export function stepEvent(r: StepResult, numGenerations: number): SessionEvent {
  const recs = r.rollouts;
  return {
    type: 'step',
    metrics: r.metrics,
    difficulty: r.difficulty,
    histogram: r.advantageHistogram,
    summary: {
      step: r.metrics.step,
      rollouts: recs.length,
      groups: recs.length / numGenerations,
      meanReward: r.metrics.reward ?? 0,
      accuracy: r.metrics.accuracy ?? 0,
      zeroStdGroups: r.zeroVarianceGroups,
      hinted: recs.filter((x) => x.hinted).length,
      flips: recs.filter((x) => x.flipped).length,
    },
    skipped: r.skipped,
  };
}

/** The state after a load (init) failed: the previous run, if any, is kept, paused if it was loading or running. */
export function stateAfterFailedLoad(hasRun: boolean, prev: RunState): RunState {
  if (!hasRun) return 'idle';
  return prev === 'loading' || prev === 'running' ? 'paused' : prev;
}

/** The state after a warm start, from the state before it: a loop it paused stays paused. */
export function stateAfterWarmStart(prev: RunState): RunState {
  return prev === 'running' || prev === 'pausing' ? 'paused' : prev === 'loading' ? 'ready' : prev;
}
