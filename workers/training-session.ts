/**
 * The training session the worker exposes: all the logic of the trainer worker, in plain TypeScript
 * (no DOM, no Comlink), so it runs the same in a Web Worker and in Node (its unit test drives it on
 * onnxruntime-node). It mirrors `rlvr train` (src/cli/commands/train.ts): resolve the config, load the
 * base checkpoint, run RL at the difficulty recorded in the checkpoint's manifest unless told otherwise,
 * evaluate held-out pass@k before the first step and every eval_every steps.
 *
 * Every use of the policy goes through `exclusive`, so at most one engine operation is in flight
 * (WebGPU sessions reject overlapping runs; the trainer's state is not re-entrant either).
 */
import type { Backend } from '../src/engine/backend.ts';
import type { AdapterSummary, WebBackendKind } from '../src/engine/select-backend.ts';
import { CheckpointError, loadWeights, saveWeights, tokenizerSpec, validateManifest, type Manifest } from '../src/model/checkpoint.ts';
import { modelPresets, type ModelPresetId } from '../src/model/config.ts';
import { Policy, type Weights } from '../src/model/policy.ts';
import { pretrain } from '../src/model/pretrain.ts';
import { layoutFor } from '../src/model/task-layout.ts';
import { initParams, parameterCount } from '../src/model/transformer.ts';
import { aggregationWeights } from '../src/rl/advantages.ts';
import { ConfigError, validateConfig, type RunConfig } from '../src/rl/config.ts';
import { evaluatePassAtK } from '../src/rl/evaluate.ts';
import { resolveWithRecipe } from '../src/rl/recipe.ts';
import { Trainer, type StepMetrics, type StepResult } from '../src/rl/trainer.ts';
import { trackEvalSamples, trackStepPhases } from './progress-hooks.ts';
import { bindCustomFamily } from '../src/tasks/registry.ts';
import { checkPromptsFit, loadTrainingDataset, type LoadedDataset } from '../src/tasks/dataset-load.ts';
import { tryPromptOn } from './try-prompt-run.ts';
import type {
  BackendInfo,
  CheckpointSource,
  EvalPoint,
  InitRequest,
  InitResult,
  InspectRollout,
  ObjectiveSettings,
  PassKCurve,
  RolloutSummary,
  RunSnapshot,
  RunState,
  SavedCheckpoint,
  SessionEvent,
  SessionStatus,
  StepRollouts,
  TryRequest,
  TryResult,
  UpdateResult,
} from './protocol.ts';

/** A backend plus what the web backend knows about itself (all optional: the Node backend has none of it). */
export type SessionBackend = Backend & {
  threads?: number;
  crossOriginIsolated?: boolean;
  adapter?: AdapterSummary | null;
  adapterInUse?: () => Promise<AdapterSummary | null>;
};

export interface SessionDeps {
  createBackend(forced: WebBackendKind | null): Promise<SessionBackend>;
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
}

/** The k range of the pass@k explorer. */
export const PASSK_N = 64;
/** Consecutive non-finite (skipped) steps after which the loop pauses itself (issue 9: three in a row). */
export const NON_FINITE_LIMIT = 3;

/** What the page shows when the loop paused itself after NON_FINITE_LIMIT skipped steps in a row. */
export function nonFiniteMessage(c: RunConfig, step: number): string {
  const lr = c.learning_rate;
  const clip = c.max_grad_norm;
  return (
    `${NON_FINITE_LIMIT} steps in a row (up to step ${step}) had a non-finite (NaN or infinite) loss or gradient and were skipped: ` +
    `weights and optimizer state are unchanged since the last good step. Training is paused. Suggestions: lower learning_rate ` +
    `(now ${lr}; try ${Number((lr / 10).toPrecision(2))}), clip gradients harder with max_grad_norm (now ${clip}${clip > 0.5 || clip === 0 ? '; try 0.5' : ''}), ` +
    `check the reward weights, or reset the run. Press Start to try again.`
  );
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class SessionError extends Error {}

interface Loaded {
  manifest: Manifest;
  weights: Weights;
  source: RunSnapshot['base']['source'];
  id: string;
}

interface Run {
  request: InitRequest;
  base: Loaded;
  policy: Policy;
  trainer: Trainer;
  config: RunConfig;
  metrics: StepMetrics[];
  evals: EvalPoint[];
  settings: Map<number, ObjectiveSettings>;
  passkBaseCache: Map<string, Record<string, number>>;
  /** The custom task's dataset (null for the generated families). */
  dataset: LoadedDataset | null;
}

function settingsOf(c: RunConfig): ObjectiveSettings {
  return {
    loss_type: c.loss_type,
    importance_sampling_level: c.importance_sampling_level,
    epsilon: c.epsilon,
    epsilon_high: c.epsilon_high,
    delta: c.delta,
    beta: c.beta,
    kl_estimator: c.kl_estimator,
    entropy_coef: c.entropy_coef,
    max_completion_length: c.max_completion_length,
    minibatches: c.minibatches,
    num_iterations: c.num_iterations,
    scale_rewards: c.scale_rewards,
    advantage_estimator: c.advantage_estimator,
  };
}

/** The per-token loss before aggregation, exactly as src/rl/objective.ts computes it. */
export function tokenLossOf(s: ObjectiveSettings, ratio: number, advantage: number, kl: number, entropy: number): number {
  const delta = s.delta ?? 1e30;
  const unclipped = Math.min(ratio, delta) * advantage;
  const clipped = Math.min(Math.max(ratio, 1 - s.epsilon), 1 + s.epsilon_high) * advantage;
  return -Math.min(unclipped, clipped) + s.beta * kl - s.entropy_coef * entropy;
}

/** A manifest for a freshly initialised model (nothing measured; it was never trained). */
export function freshManifest(model: ModelPresetId, seed: number, task: string, difficulty: Record<string, number | string>): Manifest {
  const m = modelPresets[model];
  return {
    format: 'rlvr-playground-checkpoint',
    version: 1,
    name: `${model}-random-${seed}`,
    weights: 'model.safetensors',
    model: m,
    layout: layoutFor([{ task, difficulty }], 8, 50),
    tokenizer: tokenizerSpec,
    tasks: [],
    training: { kind: 'pretrain', command: `initParams(modelPresets.${model}, ${seed}) (random initialisation, untrained)`, seed, steps: 0, trained_on: [] },
    created: new Date().toISOString().slice(0, 10),
    parameters: parameterCount(m),
  };
}

export class TrainingSession {
  private backend: SessionBackend | null = null;
  private backendForced: WebBackendKind | null | undefined = undefined;
  private run: Run | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private state: RunState = 'idle';
  private activity = '';
  private stepBudget = 0;
  private stepEnds: number[] = [];
  private lastStepSeconds = 0;
  private listeners: ((events: SessionEvent[]) => void)[] = [];
  private pending: SessionEvent[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly deps: SessionDeps) {}

  // ---- events -----------------------------------------------------------------------------------

  /** Streams batched events (metrics, evals, status, progress, errors); never blocks the loop. */
  subscribe(cb: (events: SessionEvent[]) => void): void {
    this.listeners.push(cb);
    cb([{ type: 'status', status: this.status() }]);
  }

  private emit(e: SessionEvent): void {
    // Only the latest status and progress of each kind matter: replace rather than queue.
    if (e.type === 'status' || e.type === 'progress') {
      const i = this.pending.findIndex((p) => p.type === e.type && (e.type !== 'progress' || (p as typeof e).what === e.what));
      if (i >= 0) this.pending.splice(i, 1);
    }
    this.pending.push(e);
    // Engine loops can run for minutes without yielding to timers: progress goes out on its own clock.
    if (e.type === 'progress' && performance.now() - this.lastFlush >= (this.deps.flushMs ?? 100)) return this.flush();
    if (this.flushTimer === null) this.flushTimer = setTimeout(() => this.flush(), this.deps.flushMs ?? 100);
  }
  private lastFlush = 0;

  /** Sends what is queued now (also called by tests). */
  flush(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (!this.pending.length) return;
    this.lastFlush = performance.now();
    const batch = this.pending;
    this.pending = [];
    for (const l of this.listeners) {
      try {
        const r = l(batch) as unknown;
        // A Comlink proxy returns a promise; a dead page must not crash the loop.
        if (r && typeof (r as Promise<unknown>).catch === 'function') (r as Promise<unknown>).catch(() => undefined);
      } catch {
        /* a failing listener is not the trainer's problem */
      }
    }
  }

  private setState(state: RunState, activity = this.activity): void {
    this.state = state;
    this.activity = activity;
    this.emit({ type: 'status', status: this.status() });
  }

  status(): SessionStatus {
    // Median of the recent step intervals: one slow step (an evaluation, a graph compile) does not swing it.
    const ends = this.stepEnds;
    let spm = 0;
    if (ends.length >= 2) {
      const gaps = ends.slice(1).map((t, i) => t - ends[i]!).sort((a, b) => a - b);
      spm = 60_000 / gaps[Math.floor(gaps.length / 2)]!;
    }
    return {
      state: this.state,
      step: this.run?.trainer.step ?? 0,
      stepBudget: this.stepBudget,
      stepsPerMinute: Number.isFinite(spm) ? spm : 0,
      lastStepSeconds: this.lastStepSeconds,
      rolloutSteps: this.run?.trainer.history.steps() ?? [],
      activity: this.activity,
    };
  }

  // ---- serialisation ----------------------------------------------------------------------------

  /** Runs `fn` after every earlier engine operation has finished: one op in flight, ever. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => {
      if (this.lost) throw new SessionError('the WebGPU device was lost: restart the worker (the page does this and resumes on WASM)');
      try {
        return await fn();
      } finally {
        if (this.backend && this.deps.afterEngineUse) this.deps.afterEngineUse(this.backend);
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private need(): Run {
    if (!this.run) throw new SessionError('no model is loaded: call init first');
    return this.run;
  }

  // ---- setup ------------------------------------------------------------------------------------

  private async ensureBackend(forced: WebBackendKind | null): Promise<SessionBackend> {
    if (this.backend && this.backendForced === forced) return this.backend;
    this.backend = await this.deps.createBackend(forced);
    this.backendForced = forced;
    return this.backend;
  }

  private async loadSource(src: CheckpointSource, config: RunConfig): Promise<Loaded> {
    if (src.kind === 'fresh') {
      if (!(src.model in modelPresets)) throw new CheckpointError(`unknown model preset "${src.model}" (known: ${Object.keys(modelPresets).join(', ')})`);
      const manifest = freshManifest(src.model, src.seed, config.task, config.difficulty);
      return { manifest, weights: initParams(modelPresets[src.model], src.seed), source: 'fresh', id: `${src.model}:${src.seed}` };
    }
    if (src.kind === 'upload') {
      const manifest = validateManifest(src.manifest);
      return { manifest, weights: loadWeights(manifest, src.bytes), source: 'upload', id: src.name };
    }
    let manifest: Manifest;
    try {
      const raw = new TextDecoder().decode(await this.deps.fetchBytes(src.manifestUrl));
      manifest = validateManifest(JSON.parse(raw));
    } catch (e) {
      throw new CheckpointError(`cannot load the manifest of checkpoint "${src.id}" (${src.manifestUrl}): ${message(e)}`);
    }
    const weightsUrl = new URL(manifest.weights, src.manifestUrl).href;
    let bytes: Uint8Array;
    try {
      bytes = await this.deps.fetchBytes(weightsUrl);
    } catch (e) {
      throw new CheckpointError(`cannot download the weights of checkpoint "${src.id}" (${weightsUrl}): ${message(e)}`);
    }
    return { manifest, weights: loadWeights(manifest, bytes), source: 'shipped', id: src.id };
  }

  /** The run config: defaults ← the checkpoint's recipe ← patch (src/rl/recipe.ts). */
  static resolveConfig(patch: Partial<RunConfig>, manifest: Manifest | null): RunConfig {
    return resolveWithRecipe(patch, manifest);
  }

  private info(b: SessionBackend): BackendInfo {
    return {
      kind: b.kind,
      description: b.description,
      reason: b.reason,
      threads: b.threads ?? 1,
      crossOriginIsolated: b.crossOriginIsolated ?? false,
      adapter: b.adapter ?? null,
    };
  }

  /**
   * Loads the base checkpoint and builds a trainer. Atomic: on any error (bad config, bad checkpoint,
   * a model too small for the task) the current run, if any, is left as it was.
   */
  async init(req: InitRequest): Promise<InitResult> {
    await this.pause();
    const t0 = performance.now();
    const prevState = this.state;
    this.setState('loading', 'loading the model');
    try {
      const result = await this.exclusive(async () => {
        const backend = await this.ensureBackend(req.backend);
        let base: Loaded;
        let config: RunConfig;
        // A custom-task run draws from its dataset, checked here as the page checked it (on failure,
        // init's catch binds the running run's dataset again).
        const payload = req.restore ? req.restore.dataset : req.dataset;
        const dataset = (req.restore ? req.restore.config : req.config).task === 'custom' ? this.bindDataset(payload) : null;
        if (req.restore) {
          const r = req.restore;
          const manifest = validateManifest(r.base.manifest);
          base = { manifest, weights: loadWeights(manifest, r.base.bytes), source: r.base.source, id: r.base.id };
          config = validateConfig(r.config);
        } else {
          // Validate the config before downloading anything; the difficulty is resolved once the manifest is known.
          validateConfig(req.config);
          const provisional = TrainingSession.resolveConfig(req.config, null);
          base = await this.loadSource(req.checkpoint, provisional);
          config = TrainingSession.resolveConfig(req.config, base.manifest);
        }
        if (dataset) checkPromptsFit(dataset.dataset, base.manifest.model.contextLength, config.max_completion_length);
        const policy = await Policy.create(backend, base.manifest.model, base.manifest.layout, base.weights);
        let trainer: Trainer;
        try {
          trainer = await Trainer.create(policy, config);
          if (req.restore) {
            const r = req.restore;
            const w = loadWeights(base.manifest, r.current.bytes);
            const m = loadWeights(base.manifest, r.current.optimizer.m);
            const v = loadWeights(base.manifest, r.current.optimizer.v);
            if (r.reference) {
              // The KL anchor as it was (a ProRL reset may have moved it off the base weights).
              policy.setWeights(loadWeights(base.manifest, r.reference));
              await policy.resetReference();
            }
            policy.setWeights(w, { step: r.current.optimizer.step, m, v });
            trainer.restoreState(r.trainer);
          }
        } catch (e) {
          await policy.dispose().catch(() => undefined);
          throw e;
        }
        // Only now is the new run complete: replace the old one.
        const old = this.run;
        this.run = {
          request: { ...req, restore: undefined, ...(payload ? { dataset: payload } : {}) },
          base,
          policy,
          trainer,
          config,
          metrics: req.restore ? req.restore.metrics.slice() : [],
          evals: req.restore ? req.restore.evals.slice() : [],
          settings: new Map(),
          passkBaseCache: new Map(),
          dataset,
        };
        if (old) await old.policy.dispose().catch(() => undefined);
        this.stepBudget = req.restore?.stepBudget ?? req.stepBudget ?? 0;
        this.stepEnds = [];
        return {
          backend: this.info(backend),
          config,
          model: { name: base.manifest.name, parameters: parameterCount(base.manifest.model), model: base.manifest.model, layout: policy.layout },
          baseManifest: base.manifest,
          step: trainer.step,
          metrics: this.run.metrics.slice(),
          evals: this.run.evals.slice(),
          initSeconds: (performance.now() - t0) / 1000,
        } satisfies InitResult;
      });
      this.setState(this.run!.trainer.step > 0 ? 'paused' : 'ready', '');
      return result;
    } catch (e) {
      bindCustomFamily(this.run?.dataset?.family ?? null);
      this.setState(this.run ? (prevState === 'loading' ? 'paused' : prevState === 'running' ? 'paused' : prevState) : 'idle', '');
      throw e;
    }
  }

  /**
   * The optional supervised warm start (issue 4), in the browser: cross-entropy on the task
   * generator's reference solutions at the run's task and difficulty, before any RL step. The
   * warm-started weights become the run's base (KL anchor, pass@k baseline, what a resume restores),
   * and AdamW starts fresh for RL.
   */
  async warmStart(opts: { steps: number; lr?: number; batchSize?: number }): Promise<{ losses: number[]; seconds: number }> {
    const run = this.need();
    if (!Number.isInteger(opts.steps) || opts.steps < 1 || opts.steps > 10_000) throw new ConfigError('warm_start.steps', `must be a whole number from 1 to 10000, got ${opts.steps}`);
    if (run.trainer.step > 0) throw new ConfigError('warm_start', `the warm start runs before RL; this run is at step ${run.trainer.step} (reset it first)`);
    await this.pause();
    const prev = this.state;
    return this.exclusive(async () => {
      const t0 = performance.now();
      const c = run.config;
      this.setState('loading', 'SFT warm start');
      try {
        const losses = await pretrain(run.policy, {
          mix: [{ task: c.task, difficulty: run.trainer.difficulty }],
          steps: opts.steps,
          batchSize: opts.batchSize ?? 32,
          lr: opts.lr ?? 2e-3,
          warmupSteps: Math.min(20, Math.ceil(opts.steps / 10)),
          seed: c.seed,
          onStep: (i) => {
            if (i % 5 === 4 || i === opts.steps - 1) this.emit({ type: 'progress', what: 'warm-start', done: i + 1, total: opts.steps });
          },
        });
        const weights = await run.policy.getWeights();
        run.policy.setWeights(weights);
        await run.policy.resetReference();
        const manifest: Manifest = {
          ...run.base.manifest,
          name: `${run.base.manifest.name}+sft${opts.steps}`,
          training: {
            ...run.base.manifest.training,
            kind: 'pretrain',
            steps: run.base.manifest.training.steps + opts.steps,
            command: `${run.base.manifest.training.command}; then an SFT warm start in the browser: ${opts.steps} steps on ${c.task} ${JSON.stringify(run.trainer.difficulty)}`,
            trained_on: [...run.base.manifest.training.trained_on, { task: c.task, difficulty: run.trainer.difficulty }],
          },
        };
        run.base = { ...run.base, manifest, weights, id: `${run.base.id}+sft${opts.steps}` };
        run.evals = [];
        run.passkBaseCache.clear();
        return { losses, seconds: (performance.now() - t0) / 1000 };
      } finally {
        this.setState(prev === 'running' || prev === 'pausing' ? 'paused' : prev === 'loading' ? 'ready' : prev, '');
      }
    });
  }

  /** The WebGPU adapter ORT really uses (known once a WebGPU session exists), else null. */
  async adapterInUse(): Promise<AdapterSummary | null> {
    return (await this.backend?.adapterInUse?.()) ?? null;
  }

  // ---- the loop ---------------------------------------------------------------------------------

  setStepBudget(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new SessionError(`step budget must be an integer >= 0, got ${n}`);
    this.stepBudget = n;
    this.emit({ type: 'status', status: this.status() });
  }

  /** Starts the training loop (returns at once; progress arrives through `subscribe`). */
  start(): void {
    const run = this.need();
    if (this.running) return;
    if (this.stepBudget > 0 && run.trainer.step >= this.stepBudget) {
      this.setState('done', `step budget of ${this.stepBudget} reached`);
      return;
    }
    this.running = true;
    this.stepEnds = [];
    this.setState('running', 'starting');
    this.loopDone = this.loop();
  }

  private async loop(): Promise<void> {
    const yieldNow = this.deps.yieldToEvents ?? (() => new Promise<void>((ok) => setTimeout(ok, 0)));
    try {
      while (this.running) {
        const run = this.need();
        if (this.stepBudget > 0 && run.trainer.step >= this.stepBudget) break;
        await this.exclusive(() => this.stepAndEval());
        this.stepEnds.push(performance.now());
        if (this.stepEnds.length > 8) this.stepEnds.shift();
        if (run.trainer.nonFiniteStreak >= NON_FINITE_LIMIT) this.running = false;
        this.emit({ type: 'status', status: this.status() });
        await yieldNow();
      }
      const run = this.run;
      const done = !!run && this.stepBudget > 0 && run.trainer.step >= this.stepBudget;
      this.running = false;
      if (this.lost) return;
      this.setState(done ? 'done' : 'paused', done ? `step budget of ${this.stepBudget} reached` : '');
    } catch (e) {
      this.running = false;
      if (this.lost) return; // already reported as a lost device
      this.emit({ type: 'error', fatal: false, message: `training step failed: ${message(e)}` });
      this.setState(this.run ? 'paused' : 'error', '');
    }
  }

  /** One step, plus the held-out evaluation when it is due (and before the very first step). */
  private async stepAndEval(): Promise<StepResult> {
    const run = this.need();
    const t0 = performance.now();
    if (run.config.eval_every > 0 && run.trainer.step === 0 && !run.evals.some((e) => e.step === 0)) await this.heldOutEval(run);
    this.activity = `step ${run.trainer.step + 1}: sampling, verifying, updating`;
    this.emit({ type: 'status', status: this.status() });
    run.settings.set(run.trainer.step, settingsOf(run.config));
    const untrack = trackStepPhases(run.policy, run.config, (e) => this.emit(e));
    let r: StepResult;
    try {
      r = await this.trainStepMaybePoisoned(run);
    } finally {
      untrack();
    }
    if (r.skipped && run.trainer.nonFiniteStreak >= NON_FINITE_LIMIT) {
      this.emit({ type: 'error', fatal: false, code: 'non-finite', message: nonFiniteMessage(run.config, r.metrics.step + 1) });
    }
    for (const s of [...run.settings.keys()]) if (!run.trainer.history.get(s) && s !== r.metrics.step) run.settings.delete(s);
    run.metrics.push(r.metrics);
    const recs = r.rollouts;
    const G = run.config.num_generations;
    const groups = recs.length / G;
    let zero = 0;
    for (let g = 0; g < groups; g++) {
      const rs = recs.slice(g * G, g * G + G).map((x) => x.reward);
      if (Math.max(...rs) - Math.min(...rs) < 1e-9) zero++;
    }
    const summary: RolloutSummary = {
      step: r.metrics.step,
      rollouts: recs.length,
      groups,
      meanReward: r.metrics.reward ?? 0,
      accuracy: r.metrics.accuracy ?? 0,
      zeroStdGroups: zero,
      hinted: recs.filter((x) => x.hinted).length,
      flips: recs.filter((x) => x.flipped).length,
    };
    this.emit({ type: 'step', metrics: r.metrics, difficulty: r.difficulty, histogram: r.advantageHistogram, summary, skipped: r.skipped });
    this.lastStepSeconds = (performance.now() - t0) / 1000;
    const last = this.stepBudget > 0 && run.trainer.step === this.stepBudget;
    if (run.config.eval_every > 0 && (run.trainer.step % run.config.eval_every === 0 || last)) await this.heldOutEval(run);
    this.activity = '';
    return r;
  }

  /**
   * Memory probes for the soak tests: live device tensors of the backend, steps whose rollouts are kept
   * in full, summaries of older steps, and the metrics history (the one thing that grows by design).
   */
  memoryProbe(): { liveTensors: number; rolloutStepsKept: number; rolloutSummaries: number; metrics: number; evals: number } {
    const run = this.run;
    return {
      liveTensors: this.backend?.liveTensors() ?? 0,
      rolloutStepsKept: run?.trainer.history.steps().length ?? 0,
      rolloutSummaries: run?.trainer.history.summaries.length ?? 0,
      metrics: run?.metrics.length ?? 0,
      evals: run?.evals.length ?? 0,
    };
  }

  /** TEST ONLY: steps left whose reward weights are replaced by NaN (see debugInjectNonFinite). */
  private poisonSteps = 0;

  /**
   * TEST ONLY (e2e and unit tests; the worker exposes it as `__testInjectNonFinite`): the next `steps`
   * steps run with a NaN reward weight, as a buggy reward function would produce, so every advantage,
   * the loss and the gradient are non-finite and the trainer must skip them. Nothing else uses it.
   */
  debugInjectNonFinite(steps: number): void {
    if (!Number.isInteger(steps) || steps < 0) throw new SessionError(`steps must be an integer >= 0, got ${steps}`);
    this.poisonSteps = steps;
  }

  private async trainStepMaybePoisoned(run: Run): Promise<StepResult> {
    if (this.poisonSteps <= 0) return run.trainer.trainStep();
    this.poisonSteps--;
    const clean = run.trainer.config;
    run.trainer.config = { ...clean, reward_weights: { ...clean.reward_weights, correctness: NaN } };
    try {
      return await run.trainer.trainStep();
    } finally {
      run.trainer.config = clean;
    }
  }

  /**
   * The WebGPU device is gone (driver reset, GPU removed, or a test destroying it): stop the loop and
   * tell the page, which restarts the run on WASM from its last autosave. Nothing on the device can be
   * read any more, so no snapshot is possible here.
   */
  deviceLost(reason: string): void {
    if (this.lost) return;
    this.lost = true;
    this.running = false;
    this.emit({ type: 'error', fatal: true, code: 'device-lost', message: `the WebGPU device was lost (${reason}); its weights cannot be read back` });
    this.setState('error', 'WebGPU device lost');
    this.flush();
  }
  private lost = false;

  private async heldOutEval(run: Run): Promise<void> {
    this.activity = `held-out pass@k on ${run.config.eval_prompts} prompts`;
    this.emit({ type: 'status', status: this.status() });
    const track = trackEvalSamples(run.policy, run.config, (e) => this.emit(e));
    let res;
    try {
      res = await run.trainer.evaluate(undefined, undefined, track.onProgress);
    } finally {
      track.stop();
    }
    const point: EvalPoint = { step: run.trainer.step, pass_at_k: res.pass_at_k };
    run.evals.push(point);
    this.emit({ type: 'eval', point });
  }

  /** Stops the loop after the current step; resolves once it has stopped. */
  async pause(): Promise<void> {
    if (this.running) {
      this.running = false;
      this.setState('pausing', 'finishing the current step');
    }
    await this.loopDone;
  }

  /** Runs exactly one step (pausing the loop first). */
  async stepOnce(): Promise<StepMetrics> {
    await this.pause();
    this.need();
    this.setState('running', 'one step');
    try {
      const r = await this.exclusive(() => this.stepAndEval());
      const run = this.need();
      this.setState(this.stepBudget > 0 && run.trainer.step >= this.stepBudget ? 'done' : 'paused', '');
      return r.metrics;
    } catch (e) {
      this.setState('paused', '');
      throw e;
    }
  }

  /** Stops training and frees the model (device memory included). A new `init` starts over. */
  async stop(): Promise<void> {
    await this.pause();
    await this.exclusive(async () => {
      const old = this.run;
      this.run = null;
      if (old) await old.policy.dispose();
    });
    this.stepEnds = [];
    this.setState('idle', '');
  }

  /** Starts the same run again from its base checkpoint, at step 0. */
  async reset(): Promise<InitResult> {
    const req = this.need().request;
    return this.init(req);
  }

  /**
   * Changes knobs between steps. Fields that change graph shapes or the prompt stream are refused
   * with the reason (reset the run to change them); nothing changes then.
   */
  async updateConfig(patch: Partial<RunConfig>): Promise<UpdateResult> {
    const run = this.need();
    return this.exclusive(async () => {
      try {
        const changed = run.trainer.updateConfig(patch);
        run.config = run.trainer.config;
        return { ok: true as const, changed, config: run.config };
      } catch (e) {
        return { ok: false as const, field: e instanceof ConfigError ? e.field : 'config', reason: message(e) };
      }
    });
  }

  // ---- inspection -------------------------------------------------------------------------------

  rolloutSteps(): number[] {
    return this.run?.trainer.history.steps() ?? [];
  }

  /** The full rollout records of a step still kept in full, with each token's weight and unweighted loss. */
  getRollouts(step: number): StepRollouts | null {
    const run = this.need();
    const records = run.trainer.history.get(step);
    if (!records) return null;
    const settings = run.settings.get(step) ?? settingsOf(run.config);
    const masks = records.map((r) => r.trained.map((t): number => (t ? 1 : 0)));
    const batchTokens = masks.reduce((a, m) => a + m.reduce((x, y) => x + y, 0), 0);
    const mbRows = records.length / settings.minibatches;
    const weights: number[][] = [];
    for (let mb = 0; mb < settings.minibatches; mb++) {
      weights.push(...aggregationWeights(masks.slice(mb * mbRows, (mb + 1) * mbRows), settings.loss_type, settings.max_completion_length, batchTokens));
    }
    const out: InspectRollout[] = records.map((r, i) => ({
      ...r,
      weight: weights[i]!,
      tokenLoss: r.ratio.map((ratio, t) => tokenLossOf(settings, ratio, r.advantage, r.kl[t]!, r.entropy[t]!)),
    }));
    return { step, settings, records: out };
  }

  metricsHistory(): { metrics: StepMetrics[]; evals: EvalPoint[] } {
    const run = this.need();
    return { metrics: run.metrics.slice(), evals: run.evals.slice() };
  }

  /** Held-out pass@k for k = 1..64, base policy vs current, on the same prompts (base cached per setting). */
  async evaluatePassAtK(opts: { n?: number; prompts?: number } = {}): Promise<PassKCurve> {
    const run = this.need();
    const n = opts.n ?? PASSK_N;
    return this.exclusive(async () => {
      const t0 = performance.now();
      const c = run.config;
      const prev = { state: this.state, activity: this.activity };
      const ks = Array.from({ length: n }, (_, i) => i + 1);
      const difficulty = run.trainer.difficulty;
      const o = {
        task: c.task,
        difficulty,
        prompts: opts.prompts ?? c.eval_prompts,
        n,
        ks,
        seed: c.seed,
        sampling: { temperature: c.temperature, topK: c.top_k, topP: c.top_p },
        maxNewTokens: c.max_completion_length,
        batchRows: c.prompts_per_step * c.num_generations,
      };
      const key = JSON.stringify({ ...o, onProgress: undefined });
      let base = run.passkBaseCache.get(key);
      if (!base) {
        this.activity = 'pass@k of the base policy';
        this.emit({ type: 'status', status: this.status() });
        const current = await run.policy.getWeights();
        const opt = await run.policy.getOptimizerState();
        run.policy.setWeights(run.base.weights);
        try {
          base = (await evaluatePassAtK(run.policy, { ...o, onProgress: (d, t) => this.emit({ type: 'progress', what: 'passk-base', done: d, total: t }) })).pass_at_k;
        } finally {
          run.policy.setWeights(current, opt);
        }
        run.passkBaseCache.set(key, base);
      }
      this.activity = 'pass@k of the current policy';
      this.emit({ type: 'status', status: this.status() });
      const current = (await evaluatePassAtK(run.policy, { ...o, onProgress: (d, t) => this.emit({ type: 'progress', what: 'passk-current', done: d, total: t }) })).pass_at_k;
      this.activity = prev.activity;
      this.emit({ type: 'status', status: this.status() });
      return { ks, base, current, step: run.trainer.step, prompts: o.prompts, n, difficulty, seconds: (performance.now() - t0) / 1000 };
    });
  }

  // ---- checkpoints ------------------------------------------------------------------------------

  private manifestNow(run: Run): Manifest {
    const last = run.evals[run.evals.length - 1];
    const c = run.config;
    return {
      ...run.base.manifest,
      name: `${run.base.manifest.name}+rl${run.trainer.step}`,
      layout: run.policy.layout,
      tasks: [{ task: c.task, difficulty: run.trainer.difficulty, pass_at_k: last?.pass_at_k ?? {}, eval: { prompts: c.eval_prompts, n: c.num_generations, seed: c.seed } }],
      training: {
        kind: 'rl',
        command: `RLVR Playground (browser), base ${run.base.id}; rlvr train --task ${c.task} --config config.json --steps ${run.trainer.step} --seed ${c.seed}`,
        seed: c.seed,
        steps: run.trainer.step,
        trained_on: [{ task: c.task, difficulty: run.trainer.difficulty }],
      },
      created: new Date().toISOString().slice(0, 10),
    };
  }

  /** The current weights as safetensors, with a manifest in the shipped checkpoints' format. */
  async saveCheckpoint(): Promise<SavedCheckpoint> {
    const run = this.need();
    return this.exclusive(async () => {
      const manifest = this.manifestNow(run);
      return { manifest, bytes: saveWeights(manifest.model, await run.policy.getWeights(), { name: manifest.name }) };
    });
  }

  /**
   * Replaces the model with an uploaded checkpoint and starts a fresh run from it (same config).
   * A bad file is reported and leaves the current model untouched.
   */
  async loadCheckpoint(bytes: Uint8Array, manifestJson: unknown, name = 'uploaded checkpoint'): Promise<InitResult> {
    const prev = this.run?.request;
    const manifest = validateManifest(manifestJson);
    loadWeights(manifest, bytes); // fail fast, before pausing anything
    return this.init({
      config: prev?.config ?? this.run?.config ?? {},
      checkpoint: { kind: 'upload', name, manifest, bytes },
      backend: prev?.backend ?? this.backendForced ?? null,
      stepBudget: this.stepBudget,
      ...(prev?.dataset ? { dataset: prev.dataset } : {}),
    });
  }

  /** Everything needed to resume this run later (weights, AdamW moments, counters, metrics). */
  async snapshot(): Promise<RunSnapshot> {
    const run = this.need();
    return this.exclusive(async () => {
      const m = run.base.manifest.model;
      const opt = await run.policy.getOptimizerState();
      const ref = await run.policy.getReferenceWeights();
      return {
        version: 1 as const,
        savedAt: new Date().toISOString(),
        config: run.config,
        stepBudget: this.stepBudget,
        base: { manifest: run.base.manifest, bytes: saveWeights(m, run.base.weights), source: run.base.source, id: run.base.id },
        current: { bytes: saveWeights(m, await run.policy.getWeights()), optimizer: { step: opt.step, m: saveWeights(m, opt.m), v: saveWeights(m, opt.v) } },
        trainer: run.trainer.getState(),
        reference: ref ? saveWeights(m, ref) : null,
        metrics: run.metrics.slice(),
        evals: run.evals.slice(),
        ...(run.request.dataset ? { dataset: run.request.dataset } : {}),
      };
    });
  }

  // ---- try the policy, datasets -------------------------------------------------------------------

  /** Checks a custom task's dataset and makes it the custom family of this worker. */
  private bindDataset(payload: InitRequest['dataset']): LoadedDataset {
    if (!payload) throw new ConfigError('task', 'the custom task trains on a JSONL dataset: import one first');
    const loaded = loadTrainingDataset(payload);
    bindCustomFamily(loaded.family);
    return loaded;
  }

  /** A typed prompt answered by the base and the current policy (greedy and sampled, per-token probabilities). */
  async tryPrompt(req: TryRequest): Promise<TryResult> {
    const run = this.need();
    return this.exclusive(() =>
      tryPromptOn({ policy: run.policy, baseWeights: run.base.weights, config: run.config, difficulty: run.trainer.difficulty, step: run.trainer.step, dataset: run.dataset }, req),
    );
  }
}
