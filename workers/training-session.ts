/**
 * The training session the worker exposes, in plain TypeScript (no DOM, no Comlink), so it runs the
 * same in a Web Worker and in Node (its unit tests drive it on onnxruntime-node). The state machine, the
 * training loop and event batching are TrainingLoop's (training-loop.ts); this class adds the commands
 * around them: loading a run, the warm start, inspection, checkpoints, saving and trying the policy.
 * The run itself (config, base, evaluation schedule, manifests, snapshots) is src/rl/run.ts, the same
 * pipeline `rlvr train` uses.
 *
 * Every use of the policy goes through one EngineQueue (engine-queue.ts): at most one engine
 * operation is in flight.
 */
import type { AdapterSummary } from '../src/engine/select-backend.ts';
import { ConfigError, type RunConfig } from '../src/rl/config.ts';
import type { StepMetrics } from '../src/rl/trainer.ts';
import { bindCustomFamily } from '../src/tasks/registry.ts';
import { memoryProbeOf, passKCurve, settingsOf, stepRollouts, type MemoryProbe } from './inspection.ts';
import { backendInfo, initResult, openRun, savedCheckpoint, sessionRun, uploadSource } from './open-run.ts';
import type {
  EvalPoint,
  InitRequest,
  InitResult,
  PassKCurve,
  RunSnapshot,
  SavedCheckpoint,
  SaveTarget,
  ScoreTextRequest,
  ScoreTextResult,
  StepRollouts,
  TryRequest,
  TryResult,
  UpdateResult,
} from './protocol.ts';
import type { SavedInfo } from './run-saver.ts';
import { scoreTextOn } from './score-text.ts';
import { message, SessionError, stateAfterFailedLoad, stateAfterWarmStart } from './session-types.ts';
import { TrainingLoop } from './training-loop.ts';
import { tryPromptOn } from './try-prompt-run.ts';
import { checkWarmStart, warmStartRun, type WarmStartOptions } from './warm-start.ts';

export { PASSK_N } from './inspection.ts';
export {
  NON_FINITE_LIMIT,
  nonFiniteMessage,
  SessionError,
  type SessionBackend,
  type SessionDeps,
} from './session-types.ts';

export class TrainingSession extends TrainingLoop {
  /**
   * Loads the base checkpoint and builds a run. Atomic: on any error (bad config, bad checkpoint,
   * a model too small for the task) the current run, if any, is left as it was.
   */
  async init(req: InitRequest): Promise<InitResult> {
    await this.pause();
    const t0 = performance.now();
    const prevState = this.state;
    this.setState('loading', 'loading the model');
    try {
      const result = await this.engine.run(async () => {
        const backend = await this.ensureBackend(req.backend, req.threads);
        // A custom-task run binds its dataset as the worker's custom family (on failure, the catch
        // below binds the running run's dataset again).
        const opened = await openRun(req, backend, this.deps.fetchBytes);
        // Only now is the new run complete: replace the old one.
        const old = this.cur;
        this.cur = sessionRun(opened);
        // A new run saves nowhere until the page names its record (saveTo): never under the old run's id.
        this.saver?.setTarget(null);
        const run = opened.run;
        if (old) await old.run.dispose().catch(() => undefined);
        this.stepBudget = req.restore?.stepBudget ?? req.stepBudget ?? 0;
        this.clock.restart();
        return initResult(run, backendInfo(backend), (performance.now() - t0) / 1000);
      });
      this.setState(this.cur!.run.step > 0 ? 'paused' : 'ready', '');
      return result;
    } catch (e) {
      bindCustomFamily(this.cur?.dataset?.family ?? null);
      this.setState(stateAfterFailedLoad(!!this.cur, prevState), '');
      throw e;
    }
  }

  /** Set by cancelWarmStart: the warm start in progress stops after its current SFT step. */
  private warmStartCancelled = false;

  /** Stops the warm start in progress; not queued behind it (it answers at once). */
  cancelWarmStart(): void {
    this.warmStartCancelled = true;
  }

  /**
   * The optional supervised warm start before any RL step (workers/warm-start.ts). Cancelled
   * (cancelWarmStart), the policy keeps the weights it had and the run is unchanged.
   */
  async warmStart(opts: WarmStartOptions): Promise<{ losses: number[]; seconds: number; cancelled: boolean }> {
    const cur = this.need();
    checkWarmStart(opts, cur.run.step);
    this.warmStartCancelled = false;
    await this.pause();
    const prev = this.state;
    return this.engine.run(async () => {
      this.setState('loading', 'SFT warm start');
      try {
        const r = await warmStartRun(
          cur.run,
          opts,
          (done, total) => this.emit({ type: 'progress', what: 'warm-start', done, total }),
          {
            cancelled: () => this.warmStartCancelled,
            betweenSteps: this.deps.yieldToEvents ?? (() => new Promise<void>((ok) => setTimeout(ok, 0))),
          },
        );
        if (r.cancelled) return r;
        cur.id = `${cur.id}+sft${opts.steps}`;
        cur.recorder.update(cur.run.config, `the base was warm-started with ${opts.steps} SFT steps before RL`);
        cur.passkBaseCache.clear();
        void this.saver?.saveNow();
        return r;
      } finally {
        this.setState(stateAfterWarmStart(prev), '');
      }
    });
  }

  /** The WebGPU adapter ORT really uses (known once a WebGPU session exists), else null. */
  async adapterInUse(): Promise<AdapterSummary | null> {
    return (await this.backend?.adapterInUse?.()) ?? null;
  }

  /** Memory probes for the soak tests (see memoryProbeOf). */
  memoryProbe(): MemoryProbe {
    return memoryProbeOf(this.backend, this.cur?.run ?? null);
  }

  /** Stops training and frees the model (device memory included). A new `init` starts over. */
  async stop(): Promise<void> {
    await this.pause();
    this.saver?.setTarget(null);
    await this.engine.run(async () => {
      const old = this.cur;
      this.cur = null;
      if (old) await old.run.dispose();
    });
    this.clock.restart();
    this.setState('idle', '');
  }

  /** Starts the same run again from its base checkpoint, at step 0. */
  async reset(): Promise<InitResult> {
    return this.init(this.need().request);
  }

  /**
   * Changes knobs between steps. Fields that change graph shapes or the prompt stream are refused
   * with the reason (reset the run to change them); nothing changes then.
   */
  async updateConfig(patch: Partial<RunConfig>): Promise<UpdateResult> {
    const cur = this.need();
    return this.engine.run(async () => {
      try {
        const changed = cur.run.trainer.updateConfig(patch);
        if (changed.length) cur.recorder.configChanged(cur.run.step, cur.run.config, changed);
        return { ok: true as const, changed, config: cur.run.config };
      } catch (e) {
        return { ok: false as const, field: e instanceof ConfigError ? e.field : 'config', reason: message(e) };
      }
    });
  }

  // ---- inspection -------------------------------------------------------------------------------
  /** The full rollout records of a step still kept in full, with the graph's per-token objective terms. */
  getRollouts(step: number): StepRollouts | null {
    const cur = this.need();
    const records = cur.run.trainer.history.get(step);
    if (!records) return null;
    return stepRollouts(step, records, cur.settings.get(step) ?? settingsOf(cur.run.config));
  }

  metricsHistory(): { metrics: StepMetrics[]; evals: EvalPoint[] } {
    const run = this.need().run;
    return { metrics: run.metrics.slice(), evals: run.evals.slice() };
  }

  /** Set by cancelPassK: the pass@k computation in progress (or queued) stops before its next batch. */
  private passkCancelled = false;

  /** Stops the pass@k computation in progress; not queued behind it (it answers at once). */
  cancelPassK(): void {
    this.passkCancelled = true;
  }

  /** Held-out pass@k for k = 1..64, base policy vs current, on the same prompts (base cached per setting). */
  async evaluatePassAtK(opts: { n?: number; prompts?: number } = {}): Promise<PassKCurve> {
    const cur = this.need();
    this.passkCancelled = false;
    return this.engine.run(async () => {
      const prev = this.activity;
      try {
        return await passKCurve(cur.run, cur.passkBaseCache, opts, {
          activity: (text) => this.setActivity(text),
          progress: (what, done, total) => this.emit({ type: 'progress', what, done, total }),
          cancelled: () => this.passkCancelled,
          betweenBatches: this.deps.yieldToEvents ?? (() => new Promise<void>((ok) => setTimeout(ok, 0))),
        });
      } finally {
        this.setActivity(prev);
      }
    });
  }

  // ---- checkpoints ------------------------------------------------------------------------------

  /** The current weights as safetensors, with a manifest in the shipped checkpoints' format. */
  async saveCheckpoint(): Promise<SavedCheckpoint> {
    const cur = this.need();
    return this.engine.run(() => savedCheckpoint(cur.run, cur));
  }

  /**
   * Replaces the model with an uploaded checkpoint and starts a fresh run from it (same config).
   * A bad file is reported and leaves the current model untouched.
   */
  async loadCheckpoint(bytes: Uint8Array, manifestJson: unknown, name = 'uploaded checkpoint'): Promise<InitResult> {
    const prev = this.cur?.request;
    const checkpoint = uploadSource(bytes, manifestJson, name); // fails fast, before pausing anything
    return this.init({
      config: prev?.config ?? this.cur?.run.config ?? {},
      ...(prev?.appDefaults ? { appDefaults: prev.appDefaults } : {}),
      ...(prev?.preset ? { preset: prev.preset } : {}),
      checkpoint,
      backend: prev?.backend ?? this.backendForced ?? null,
      stepBudget: this.stepBudget,
      ...(prev?.dataset ? { dataset: prev.dataset } : {}),
    });
  }

  /**
   * The run as one run record (src/record/run-record.ts; the file `rlvr train --record` writes): config,
   * metrics, evaluations and every recorded step's rollouts; with `weights`, also the current weights.
   */
  async runRecord(opts: { weights?: boolean } = {}): Promise<Uint8Array> {
    const cur = this.need();
    if (!opts.weights) return cur.recorder.encode();
    const saved = await this.engine.run(() => savedCheckpoint(cur.run, cur));
    return cur.recorder.encode([{ step: cur.run.step, manifest: saved.manifest, safetensors: saved.bytes }]);
  }

  /** Everything needed to resume this run later (weights, AdamW moments, counters, metrics). */
  async snapshot(): Promise<RunSnapshot> {
    const cur = this.need();
    return this.engine.run(() => this.snapshotOfRun(cur));
  }

  // ---- saving the run (workers/run-saver.ts) ----------------------------------------------------

  /**
   * Where this run is saved from now on: this tab's run id, tab and setup (the page sends it at init and
   * restore, and when the setup changes); `everySteps`: save after steps whose number is a multiple of
   * it (0: only on pause, end and request). null: save nowhere.
   */
  saveTo(target: SaveTarget | null, everySteps?: number): void {
    if (!this.saver) throw new SessionError('this session cannot save runs (no storage)');
    if (target && !this.cur) throw new SessionError('no run to save: call init first');
    this.saver.setTarget(target, everySteps);
  }

  /**
   * Saves the run now (after a save in flight), under the target saveTo set; null if there is none.
   * `force`: also after a failed save.
   */
  saveNow(force = false): Promise<SavedInfo | null> {
    return this.saver ? this.saver.saveNow(force) : Promise.resolve(null);
  }

  /** Resolves once no save is in flight (tests). */
  savesIdle(): Promise<void> {
    return this.saver?.idle() ?? Promise.resolve();
  }

  // ---- try the policy, datasets -------------------------------------------------------------------

  /**
   * Score a text: each line's per-token log-probs under an uploaded checkpoint (workers/score-text.ts),
   * on the run's backend (or a new one when there is no run). The run, if any, is not touched.
   */
  async scoreText(req: ScoreTextRequest): Promise<ScoreTextResult> {
    return this.engine.run(async () => scoreTextOn(this.backend ?? (await this.ensureBackend(req.backend)), req));
  }

  /** A typed prompt answered by the base and the current policy (greedy and sampled, per-token probabilities). */
  async tryPrompt(req: TryRequest): Promise<TryResult> {
    const cur = this.need();
    const run = cur.run;
    return this.engine.run(() =>
      tryPromptOn(
        {
          policy: run.policy,
          baseWeights: run.base.weights,
          config: run.config,
          difficulty: run.trainer.difficulty,
          step: run.trainer.step,
          dataset: cur.dataset,
        },
        req,
      ),
    );
  }
}
