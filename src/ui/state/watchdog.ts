import type { TrainerClient } from './worker-client.ts';

/**
 * A worker killed from outside (the browser reclaiming memory, `self.close()`, a hung WASM call)
 * fires no event on the page: pending calls would wait forever. A status ping answers between any
 * two engine calls, so no answer for `ms` means the worker is gone. Generous by default: a false
 * alarm would throw a live run away, and one graph compile on a slow software GPU can take seconds.
 */
export class Watchdog {
  private ms = 120_000;
  private timer: ReturnType<typeof setInterval> | null = null;

  setTimeout(ms: number): void {
    this.ms = ms;
  }

  /** Pings whatever `current()` returns; calls `dead` once it stops answering. */
  start(current: () => TrainerClient | null, dead: (c: TrainerClient, why: string) => void): void {
    if (this.timer) clearInterval(this.timer);
    let pinging = false;
    this.timer = setInterval(
      () => {
        const c = current();
        if (!c || c.dead || pinging) return;
        pinging = true;
        const timer = setTimeout(() => {
          if (current() === c && !c.dead)
            dead(
              c,
              'the training worker stopped responding (no answer ' +
                `for ${Math.round(this.ms / 1000)} s: killed by the ` +
                'browser, out of memory, or stuck)',
            );
        }, this.ms);
        void c
          .call((a) => a.status())
          .catch(() => undefined)
          .finally(() => {
            clearTimeout(timer);
            pinging = false;
          });
      },
      Math.max(250, Math.min(5000, this.ms / 4)),
    );
  }
}
