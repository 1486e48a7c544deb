/**
 * The page's handle on one trainer worker (worker-handle.ts): Comlink RPC plus crash detection, the
 * worker's lifetime and its pause request. A call made to (or pending on) a worker that died rejects with a
 * WorkerCrashed error instead of hanging forever; one made after dispose() is refused (HandleDisposed).
 */
import * as Comlink from 'comlink';
import type { TrainerWorkerApi } from '../../../workers/trainer.worker.ts';
import type { SessionEvent } from '../../../workers/protocol.ts';
import { HandleDisposed, type WorkerHandle } from './worker-handle.ts';

export class WorkerCrashed extends Error {}

export class TrainerClient implements WorkerHandle {
  private worker: Worker;
  readonly api: Comlink.Remote<TrainerWorkerApi>;
  private crashed: Promise<never>;
  private crash!: (e: Error) => void;
  private ended = false;
  dead = false;
  /**
   * Pause was pressed while the run trained: until the worker's status says its loop stopped, "running" reads
   * "pausing" (foldRunEvents in run-series.ts clears it).
   */
  pauseAsked = false;

  constructor(
    readonly name: string,
    onEvents: (events: SessionEvent[]) => void,
    onCrash: (message: string) => void,
  ) {
    this.worker = new Worker(new URL('../../../workers/trainer.worker.ts', import.meta.url), { type: 'module', name });
    this.crashed = new Promise<never>((_, reject) => {
      this.crash = reject;
    });
    this.crashed.catch(() => undefined);
    const die = (message: string) => {
      if (this.dead) return;
      this.dead = true;
      this.crash(new WorkerCrashed(message));
      onCrash(message);
    };
    this.worker.addEventListener('error', (e) => {
      e.preventDefault();
      die(e.message || 'the worker script failed to load or threw an uncaught error');
    });
    this.worker.addEventListener('messageerror', () => die('a message from the worker could not be read'));
    this.api = Comlink.wrap<TrainerWorkerApi>(this.worker);
    void this.call((a) => a.subscribe(Comlink.proxy(onEvents)));
  }

  /** Runs an RPC; rejects if the worker dies before it answers. */
  call<T>(fn: (api: Comlink.Remote<TrainerWorkerApi>) => Promise<T>): Promise<T> {
    if (this.ended) return Promise.reject(new HandleDisposed(`the ${this.name} worker`));
    if (this.dead) return Promise.reject(new WorkerCrashed('the worker is no longer running'));
    return Promise.race([fn(this.api), this.crashed]);
  }

  /**
   * Ends the worker. Declared dead (`why`: the watchdog's reason), calls still waiting on it reject
   * with that reason, which every waiting panel then shows; ended on purpose, they are left unanswered.
   */
  terminate(why?: string): void {
    this.dead = true;
    this.worker.terminate();
    if (why !== undefined) this.crash(new WorkerCrashed(why));
  }

  get disposed(): boolean {
    return this.ended;
  }

  /** Asks the run to stop after its current step (the caller sets pauseAsked when it was training). */
  pause(): Promise<void> {
    return this.call((api) => api.pause());
  }

  /** Ends the worker on purpose: calls waiting on it are left unanswered, later ones refused. */
  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.terminate();
  }
}
