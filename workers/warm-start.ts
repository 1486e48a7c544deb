/**
 * The optional supervised warm start, in the browser: cross-entropy on the task generator's
 * reference solutions at the run's task and difficulty, before any RL step. The warm-started weights
 * become the run's base (KL anchor, pass@k baseline, what a resume restores), and AdamW starts fresh.
 */
import type { Manifest } from '../src/model/checkpoint.ts';
import { pretrain } from '../src/model/pretrain.ts';
import { ConfigError } from '../src/rl/config.ts';
import type { TrainingRun } from '../src/rl/run.ts';

export interface WarmStartOptions {
  steps: number;
  lr?: number;
  batchSize?: number;
}

/** Refuses a warm start with bad options or after RL has begun. */
export function checkWarmStart(opts: WarmStartOptions, stepsDone: number): void {
  if (!Number.isInteger(opts.steps) || opts.steps < 1 || opts.steps > 10_000)
    throw new ConfigError('warm_start.steps', `must be a whole number from 1 to 10000, got ${opts.steps}`);
  if (stepsDone > 0)
    throw new ConfigError(
      'warm_start',
      `the warm start runs before RL; this run is at step ${stepsDone} (reset it first)`,
    );
}

/** How a warm start in progress is stopped: polled after every SFT step, with a return to the event loop first. */
export interface WarmStartControl {
  cancelled: () => boolean;
  /** Awaited after every SFT step: lets the worker answer pings and Cancel (a WASM step does not yield). */
  betweenSteps?: () => Promise<void>;
}

/** Thrown inside pretrain's step callback to stop it; caught in warmStartRun. */
class WarmStartCancelled extends Error {}

/**
 * Trains `run`'s policy in place and makes the result its base; returns the losses and the seconds
 * taken. Cancelled, it puts back the weights the policy had before (nothing the user had is lost)
 * and returns `cancelled: true` with the losses of the steps that ran.
 */
export async function warmStartRun(
  run: TrainingRun,
  opts: WarmStartOptions,
  onProgress: (done: number, total: number) => void,
  control: WarmStartControl = { cancelled: () => false },
): Promise<{ losses: number[]; seconds: number; cancelled: boolean }> {
  const t0 = performance.now();
  const c = run.config;
  const difficulty = run.trainer.difficulty;
  const before = await run.policy.getWeights();
  const done: number[] = [];
  onProgress(0, opts.steps);
  let losses: number[];
  try {
    losses = await pretrain(run.policy, {
      mix: [{ task: c.task, difficulty }],
      steps: opts.steps,
      batchSize: opts.batchSize ?? 32,
      lr: opts.lr ?? 2e-3,
      warmupSteps: Math.min(20, Math.ceil(opts.steps / 10)),
      seed: c.seed,
      onStep: async (i, loss) => {
        done.push(loss);
        if (i % 5 === 4 || i === opts.steps - 1) onProgress(i + 1, opts.steps);
        await control.betweenSteps?.();
        if (control.cancelled() && i < opts.steps - 1) throw new WarmStartCancelled();
      },
    });
  } catch (e) {
    if (!(e instanceof WarmStartCancelled)) throw e;
    run.policy.setWeights(before);
    return { losses: done, seconds: (performance.now() - t0) / 1000, cancelled: true };
  }
  const weights = await run.policy.getWeights();
  run.policy.setWeights(weights);
  await run.policy.resetReference();
  const prev = run.base.manifest;
  const manifest: Manifest = {
    ...prev,
    name: `${prev.name}+sft${opts.steps}`,
    training: {
      ...prev.training,
      kind: 'pretrain',
      steps: prev.training.steps + opts.steps,
      command:
        `${prev.training.command}; then an SFT warm start in the browser: ${opts.steps} steps on ${c.task} ` +
        `${JSON.stringify(difficulty)}`,
      trained_on: [...prev.training.trained_on, { task: c.task, difficulty }],
    },
  };
  run.base = { manifest, weights };
  run.evals = [];
  return { losses, seconds: (performance.now() - t0) / 1000, cancelled: false };
}
