/**
 * One handle per running worker the page starts for a run: the live run's trainer worker (worker-link.ts) and
 * each Compare side's (compare.ts), both a TrainerClient (worker-client.ts), each run the viewer opens
 * in a reader worker (run-sources.ts), and each reader worker that decodes a recording, with the pool that
 * starts them ahead (record-readers.ts). The handle owns the worker's lifetime and what decides which of its
 * answers still count (its pause request, whether it was disposed); the store holds none of it, only what
 * the page shows. `dispose()` ends the handle's hold on its worker: the worker ends (a reader's, once no run
 * of its folder is open), and every later call is refused with a HandleDisposed error.
 */
export interface WorkerHandle {
  /** dispose() has run: the handle takes no more calls. */
  readonly disposed: boolean;
  /** Asks the worker to stop after its current step (a trainer's; a reader has nothing to pause). */
  pause?(): Promise<void>;
  /** Ends the handle's hold on its worker; a second call does nothing. */
  dispose(): void;
}

/** A call on a handle after its dispose(). */
export class HandleDisposed extends Error {
  constructor(what: string) {
    super(`${what} was closed: its worker has ended`);
    this.name = 'HandleDisposed';
  }
}
