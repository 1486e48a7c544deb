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

/** Trains `run`'s policy in place and makes the result its base; returns the losses and the seconds taken. */
export async function warmStartRun(
  run: TrainingRun,
  opts: WarmStartOptions,
  onProgress: (done: number, total: number) => void,
): Promise<{ losses: number[]; seconds: number }> {
  const t0 = performance.now();
  const c = run.config;
  const difficulty = run.trainer.difficulty;
  const losses = await pretrain(run.policy, {
    mix: [{ task: c.task, difficulty }],
    steps: opts.steps,
    batchSize: opts.batchSize ?? 32,
    lr: opts.lr ?? 2e-3,
    warmupSteps: Math.min(20, Math.ceil(opts.steps / 10)),
    seed: c.seed,
    onStep: (i) => {
      if (i % 5 === 4 || i === opts.steps - 1) onProgress(i + 1, opts.steps);
    },
  });
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
      command: `${prev.training.command}; then an SFT warm start in the browser: ${opts.steps} steps on ${c.task} ${JSON.stringify(difficulty)}`,
      trained_on: [...prev.training.trained_on, { task: c.task, difficulty }],
    },
  };
  run.base = { manifest, weights };
  run.evals = [];
  return { losses, seconds: (performance.now() - t0) / 1000 };
}
