/**
 * The core of a training session (TrainingSession, training-session.ts, builds on it): the run it holds,
 * the state machine and its status events, and the training loop (start, pause, one step, the step
 * budget, a lost device). Plain TypeScript (no DOM, no Comlink), so it runs the same in a Web Worker and
 * in Node. The run itself is src/rl/run.ts, the same pipeline `rlvr train` uses.
 *
 * Every use of the policy goes through one EngineQueue (engine-queue.ts): at most one engine
 * operation is in flight.
 */
import type { WebBackendKind } from '../src/engine/select-backend.ts';
import type { StepMetrics, StepResult } from '../src/rl/trainer.ts';
import { EngineQueue } from './engine-queue.ts';
import { snapshotOf, type SessionRun } from './open-run.ts';
import { settingsOf } from './inspection.ts';
import { watchedStep } from './progress-hooks.ts';
import type { RunSnapshot, RunState, SessionEvent, SessionStatus } from './protocol.ts';
import { RunSaver } from './run-saver.ts';
import { EventBatcher, StepClock } from './session-events.ts';
import {
  message,
  NaNRewardInjector,
  NON_FINITE_LIMIT,
  nonFiniteMessage,
  SessionError,
  stepEvent,
  type SessionBackend,
  type SessionDeps,
} from './session-types.ts';

/**
 * The run a session holds, its state machine and status events, and the training loop. TrainingSession
 * (training-session.ts) extends it with the commands around the loop.
 */
export class TrainingLoop {
  protected backend: SessionBackend | null = null;
  protected backendForced: WebBackendKind | null | undefined = undefined;
  protected cur: SessionRun | null = null;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  protected state: RunState = 'idle';
  protected activity = '';
  protected stepBudget = 0;
  protected readonly clock = new StepClock();
  /** TEST ONLY (see debugInjectNonFinite). */
  private readonly poison = new NaNRewardInjector();
  private readonly events: EventBatcher;
  /** Every use of the policy goes through here: at most one engine operation is in flight. */
  protected readonly engine: EngineQueue;
  /** Saves the run itself (workers/run-saver.ts) where the deps can write records; null in plain Node runs. */
  protected readonly saver: RunSaver | null;

  constructor(protected readonly deps: SessionDeps) {
    this.events = new EventBatcher(deps.flushMs ?? 100);
    this.engine = new EngineQueue(() => {
      if (this.backend && deps.afterEngineUse) deps.afterEngineUse(this.backend);
    });
    const write = deps.writeRun;
    this.saver = write
      ? new RunSaver({ snapshot: () => this.snapshotForSave(), write, emit: (e) => this.emit(e) })
      : null;
  }

  // ---- events -----------------------------------------------------------------------------------

  /** Streams batched events (metrics, evals, status, progress, errors); never blocks the loop. */
  subscribe(cb: (events: SessionEvent[]) => void): void {
    this.events.subscribe(cb, { type: 'status', status: this.status() });
  }

  protected emit(e: SessionEvent): void {
    this.events.emit(e);
  }

  /** Sends what is queued now (also called by tests). */
  flush(): void {
    this.events.flush();
  }

  protected setState(state: RunState, activity = this.activity): void {
    this.state = state;
    this.setActivity(activity);
  }

  protected setActivity(activity: string): void {
    this.activity = activity;
    this.emit({ type: 'status', status: this.status() });
  }

  status(): SessionStatus {
    return {
      state: this.state,
      step: this.cur?.run.step ?? 0,
      stepBudget: this.stepBudget,
      stepsPerMinute: this.clock.perMinute(),
      lastStepSeconds: this.clock.lastStepSeconds,
      rolloutSteps: this.rolloutSteps(),
      activity: this.activity,
    };
  }

  protected need(): SessionRun {
    if (!this.cur) throw new SessionError('no model is loaded: call init first');
    return this.cur;
  }

  // ---- setup ------------------------------------------------------------------------------------

  protected async ensureBackend(forced: WebBackendKind | null, threads?: number): Promise<SessionBackend> {
    if (this.backend && this.backendForced === forced) return this.backend;
    this.backend = await this.deps.createBackend(forced, threads);
    this.backendForced = forced;
    return this.backend;
  }

  // ---- the state machine and the loop -----------------------------------------------------------

  setStepBudget(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new SessionError(`step budget must be an integer >= 0, got ${n}`);
    this.stepBudget = n;
    this.emit({ type: 'status', status: this.status() });
  }

  private budgetReached(): boolean {
    return !!this.cur && this.stepBudget > 0 && this.cur.run.step >= this.stepBudget;
  }

  /** Starts the training loop (returns at once; progress arrives through `subscribe`). */
  start(): void {
    this.need();
    if (this.running) return;
    if (this.budgetReached()) {
      this.setState('done', `step budget of ${this.stepBudget} reached`);
      return;
    }
    this.running = true;
    this.clock.restart();
    this.setState('running', 'starting');
    this.loopDone = this.loop();
  }

  private async loop(): Promise<void> {
    const yieldNow = this.deps.yieldToEvents ?? (() => new Promise<void>((ok) => setTimeout(ok, 0)));
    try {
      while (this.running) {
        const cur = this.need();
        if (this.budgetReached()) break;
        await this.engine.run(() => this.advance());
        this.clock.loopStepEnded();
        if (cur.run.trainer.nonFiniteStreak >= NON_FINITE_LIMIT) this.running = false;
        this.emit({ type: 'status', status: this.status() });
        // Queued on the engine before the next step, so the snapshot is of the step just completed.
        this.saver?.afterStep(cur.run.step);
        await yieldNow();
      }
      const done = this.budgetReached();
      this.running = false;
      if (this.engine.lost) return;
      this.setState(done ? 'done' : 'paused', done ? `step budget of ${this.stepBudget} reached` : '');
      void this.saver?.saveNow();
    } catch (e) {
      this.running = false;
      if (this.engine.lost) return; // already reported as a lost device
      this.emit({ type: 'error', fatal: false, message: `training step failed: ${message(e)}` });
      this.setState(this.cur ? 'paused' : 'error', '');
      if (this.cur) void this.saver?.saveNow();
    }
  }

  /** One update through the run pipeline (with the evaluations its rule puts around it), as events. */
  private async advance(): Promise<StepResult> {
    const cur = this.need();
    const run = cur.run;
    const t0 = performance.now();
    const next = run.step + 1;
    cur.settings.set(next, settingsOf(run.config));
    const watch = watchedStep(
      run,
      next,
      (e) => this.emit(e),
      (a) => this.setActivity(a),
    );
    let r: StepResult;
    try {
      let evals;
      ({ result: r, evals } = await run.advance(this.stepBudget, watch.hooks, () =>
        watch.step(() => this.poison.step(run.trainer)),
      ));
      cur.recorder.addStep(r);
      for (const e of evals) cur.recorder.addEval(e);
    } finally {
      watch.stop();
    }
    if (r.skipped && run.trainer.nonFiniteStreak >= NON_FINITE_LIMIT) {
      this.emit({
        type: 'error',
        fatal: false,
        code: 'non-finite',
        message: nonFiniteMessage(run.config, r.metrics.step),
      });
    }
    for (const s of [...cur.settings.keys()])
      if (!run.trainer.history.get(s) && s !== r.metrics.step) cur.settings.delete(s);
    this.emit(stepEvent(r, run.config.num_generations));
    this.clock.stepEnded((performance.now() - t0) / 1000);
    this.activity = '';
    return r;
  }

  /**
   * TEST ONLY (e2e and unit tests; the worker exposes it as `__testInjectNonFinite`): the next `steps`
   * steps run with a NaN reward weight, as a buggy reward function would produce, so every advantage,
   * the loss and the gradient are non-finite and the trainer must skip them. Nothing else uses it.
   */
  debugInjectNonFinite(steps: number): void {
    this.poison.arm(steps);
  }

  /**
   * The WebGPU device is gone (driver reset, GPU removed, or a test destroying it): stop the loop and
   * tell the page, which restarts the run on WASM from its last autosave. Nothing on the device can be
   * read any more, so no snapshot is possible here.
   */
  deviceLost(reason: string): void {
    if (this.engine.lost) return;
    this.engine.lost = true;
    this.running = false;
    this.emit({
      type: 'error',
      fatal: true,
      code: 'device-lost',
      message: `the WebGPU device was lost (${reason}); its weights cannot be read back`,
    });
    this.setState('error', 'WebGPU device lost');
    this.flush();
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
      const r = await this.engine.run(() => this.advance());
      this.setState(this.budgetReached() ? 'done' : 'paused', '');
      void this.saver?.saveNow();
      return r.metrics;
    } catch (e) {
      this.setState('paused', '');
      throw e;
    }
  }

  // ---- what the status and the saves read ------------------------------------------------------

  rolloutSteps(): number[] {
    return this.cur?.run.trainer.history.steps() ?? [];
  }

  protected async snapshotOfRun(cur: SessionRun): Promise<RunSnapshot> {
    return {
      ...(await snapshotOf(cur.run, cur, this.stepBudget)),
      ...(cur.request.dataset ? { dataset: cur.request.dataset } : {}),
    };
  }

  /**
   * The snapshot a save takes: of the run current when it was asked for, or null if that run is gone by
   * the time the engine is free.
   */
  private snapshotForSave(): Promise<RunSnapshot | null> {
    const cur = this.cur;
    if (!cur || this.engine.lost) return Promise.resolve(null);
    return this.engine.run(async () => (this.cur === cur && !this.engine.lost ? this.snapshotOfRun(cur) : null));
  }
}
