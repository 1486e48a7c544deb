/**
 * The page's handle on one trainer worker: Comlink RPC plus crash detection. A call made to (or
 * pending on) a worker that died rejects with a WorkerCrashed error instead of hanging forever.
 */
import * as Comlink from 'comlink';
import type { TrainerWorkerApi } from '../../../workers/trainer.worker.ts';
import type { SessionEvent } from '../../../workers/protocol.ts';

export class WorkerCrashed extends Error {}

export class TrainerClient {
  private worker: Worker;
  readonly api: Comlink.Remote<TrainerWorkerApi>;
  private crashed: Promise<never>;
  private crash!: (e: Error) => void;
  dead = false;

  constructor(name: string, onEvents: (events: SessionEvent[]) => void, onCrash: (message: string) => void) {
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
}
