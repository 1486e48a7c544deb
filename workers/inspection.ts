/**
 * What the session shows beyond the training loop: the objective settings a step ran with, a kept
 * step's rollout records, and the pass@k explorer (base vs current policy, k = 1..64).
 */
import type { Backend } from '../src/engine/backend.ts';
import { samplingParams, type RunConfig } from '../src/rl/config.ts';
import { evaluatePassAtK } from '../src/rl/evaluate.ts';
import { objectiveSettings } from '../src/rl/objective-form.ts';
import type { RolloutRecord } from '../src/rl/rollout.ts';
import type { TrainingRun } from '../src/rl/run.ts';
import type { ObjectiveSettings, PassKCurve, StepRollouts } from './protocol.ts';

/** The k range of the pass@k explorer. */
export const PASSK_N = 64;

/** The objective knobs of a config (every field ObjectiveSettings picks from RunConfig). */
export const settingsOf = (c: RunConfig): ObjectiveSettings => objectiveSettings(c);

/** A kept step's records (each carries the graph's per-token objective terms) with the settings it ran with. */
export function stepRollouts(step: number, records: RolloutRecord[], settings: ObjectiveSettings): StepRollouts {
  return { step, settings, records };
}

export interface Reporter {
  activity(text: string): void;
  progress(what: 'passk-base' | 'passk-current', done: number, total: number): void;
  /** True once the page cancelled this computation: it stops before its next sampling batch. */
  cancelled?: () => boolean;
  /** Awaited between sampling batches (EvalOptions.betweenBatches): lets the worker answer pings and Cancel. */
  betweenBatches?: () => Promise<void>;
}

/** Held-out pass@k for k = 1..n, base policy vs current, on the same prompts (the base's curve cached per setting). */
export async function passKCurve(
  run: TrainingRun,
  cache: Map<string, Record<string, number>>,
  opts: { n?: number; prompts?: number },
  report: Reporter,
): Promise<PassKCurve> {
  const t0 = performance.now();
  const n = opts.n ?? PASSK_N;
  const c = run.config;
  const ks = Array.from({ length: n }, (_, i) => i + 1);
  const difficulty = run.trainer.difficulty;
  const o = {
    task: c.task,
    difficulty,
    prompts: opts.prompts ?? c.eval_prompts,
    n,
    ks,
    seed: c.seed,
    sampling: samplingParams(c),
    maxNewTokens: c.max_completion_length,
    batchRows: c.prompts_per_step * c.num_generations,
  };
  const key = JSON.stringify(o);
  let base = cache.get(key);
  if (!base) {
    report.activity('pass@k of the base policy');
    const current = await run.policy.getWeights();
    const opt = await run.policy.getOptimizerState();
    run.policy.setWeights(run.base.weights);
    try {
      base = (
        await evaluatePassAtK(run.policy, {
          ...o,
          onProgress: (d, t) => report.progress('passk-base', d, t),
          cancelled: report.cancelled,
          betweenBatches: report.betweenBatches,
        })
      ).pass_at_k;
    } finally {
      run.policy.setWeights(current, opt);
    }
    cache.set(key, base);
  }
  report.activity('pass@k of the current policy');
  const current = (
    await evaluatePassAtK(run.policy, {
      ...o,
      onProgress: (d, t) => report.progress('passk-current', d, t),
      cancelled: report.cancelled,
      betweenBatches: report.betweenBatches,
    })
  ).pass_at_k;
  return {
    ks,
    base,
    current,
    step: run.step,
    prompts: o.prompts,
    n,
    difficulty,
    seconds: (performance.now() - t0) / 1000,
  };
}

export interface MemoryProbe {
  liveTensors: number;
  rolloutStepsKept: number;
  rolloutSummaries: number;
  metrics: number;
  evals: number;
}

/**
 * Memory probes for the soak tests: live device tensors of the backend, steps whose rollouts are kept
 * in full, summaries of older steps, and the metrics history (the one thing that grows by design).
 */
export function memoryProbeOf(backend: Backend | null, run: TrainingRun | null): MemoryProbe {
  return {
    liveTensors: backend?.liveTensors() ?? 0,
    rolloutStepsKept: run?.trainer.history.steps().length ?? 0,
    rolloutSummaries: run?.trainer.history.summaries.length ?? 0,
    metrics: run?.metrics.length ?? 0,
    evals: run?.evals.length ?? 0,
  };
}
