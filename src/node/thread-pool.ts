/**
 * `rlvr view`'s worker threads for one kind of job (the search's src/node/search-worker.ts, the findings'
 * src/node/findings-worker.ts): started on first use, one per share up to the cores asked for, kept for
 * `idleMs` after the last job using them ends (starting one, with its TypeScript, takes about a second
 * here), then ended. They never keep the process from exiting.
 */
import { Worker } from 'node:worker_threads';

export class ThreadPool {
  private readonly threads: Worker[] = [];
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private jobs = 0;

  constructor(
    private readonly url: URL,
    private readonly idleMs: number,
  ) {}

  /** `n` threads for a job (started where there are fewer); pair with `done()` when the job ends. */
  take(n: number): Worker[] {
    clearTimeout(this.idleTimer);
    this.jobs++;
    while (this.threads.length < n) {
      const w = new Worker(this.url);
      w.unref(); // an idle pool never keeps `rlvr view` (or a test) from exiting
      w.once('exit', () => {
        if (this.threads.includes(w)) this.threads.splice(this.threads.indexOf(w), 1);
      });
      this.threads.push(w);
    }
    return this.threads.slice(0, n);
  }

  /** A job ended: once none is running, the threads end after `idleMs`. */
  done(): void {
    if (--this.jobs > 0) return;
    this.idleTimer = setTimeout(() => this.end(), this.idleMs);
    this.idleTimer.unref();
  }

  /** Ends the threads now (the server closing, a test's end). */
  end(): void {
    clearTimeout(this.idleTimer);
    for (const w of [...this.threads]) void w.terminate();
  }
}
