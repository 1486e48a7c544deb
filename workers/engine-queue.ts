import { SessionError } from './session-types.ts';

/**
 * Runs engine operations one at a time, in call order: WebGPU sessions reject overlapping runs and
 * the trainer's state is not re-entrant. Once the device is lost, every later operation fails at once.
 */
export class EngineQueue {
  private tail: Promise<unknown> = Promise.resolve();
  lost = false;

  /** `afterEach` runs after every operation, failed or not. */
  constructor(private readonly afterEach: () => void) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      if (this.lost)
        throw new SessionError(
          'the WebGPU device was lost: restart the worker (the page does this and resumes on WASM)',
        );
      try {
        return await fn();
      } finally {
        this.afterEach();
      }
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}
