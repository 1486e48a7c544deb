/**
 * Event batching for the training session: events are queued and sent to the subscribers in batches
 * (every flushMs), so a fast loop never floods the page; only the latest status and the latest
 * progress of each kind are kept.
 */
import type { SessionEvent } from './protocol.ts';

export class EventBatcher {
  private listeners: ((events: SessionEvent[]) => void)[] = [];
  private pending: SessionEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastFlush = 0;

  constructor(private readonly flushMs = 100) {}

  subscribe(cb: (events: SessionEvent[]) => void, first: SessionEvent): void {
    this.listeners.push(cb);
    cb([first]);
  }

  emit(e: SessionEvent): void {
    // Only the latest status and progress of each kind matter: replace rather than queue.
    if (e.type === 'status' || e.type === 'progress') {
      const i = this.pending.findIndex(
        (p) => p.type === e.type && (e.type !== 'progress' || (p as typeof e).what === e.what),
      );
      if (i >= 0) this.pending.splice(i, 1);
    }
    this.pending.push(e);
    // Engine loops can run for minutes without yielding to timers: progress goes out on its own clock.
    if (e.type === 'progress' && performance.now() - this.lastFlush >= this.flushMs) {
      this.flush();
      return;
    }
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), this.flushMs);
  }

  /** Sends what is queued now. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
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
}

/**
 * Steps per minute from the end times of recent steps: the median interval, so one slow step (an evaluation, a graph
 * compile) does not swing it.
 */
export function stepsPerMinute(ends: number[]): number {
  if (ends.length < 2) return 0;
  const gaps = ends
    .slice(1)
    .map((t, i) => t - ends[i]!)
    .sort((a, b) => a - b);
  const spm = 60_000 / gaps[Math.floor(gaps.length / 2)]!;
  return Number.isFinite(spm) ? spm : 0;
}

/** The loop's pace: when recent steps ended (the last 8) and how long the last one took. */
export class StepClock {
  private ends: number[] = [];
  lastStepSeconds = 0;

  /** A new stretch of running: earlier gaps (a pause) do not count. */
  restart(): void {
    this.ends = [];
  }

  stepEnded(seconds: number): void {
    this.lastStepSeconds = seconds;
  }

  loopStepEnded(): void {
    this.ends.push(performance.now());
    if (this.ends.length > 8) this.ends.shift();
  }

  perMinute(): number {
    return stepsPerMinute(this.ends);
  }
}
