/**
 * The worker saves its own run (workers/run-store.ts records), right after its steps, so that a reload
 * mid-training resumes at the last completed step: a save asked for by the page needed a round trip
 * (snapshot to the page, then IndexedDB) that rarely completed while the page unloaded and lagged many
 * steps behind under load.
 *
 * When: after a step whose number is a multiple of the page's "autosave every N steps" (default 1),
 * if the throttle allows; and always when training pauses or ends, after one step, and when the page
 * asks (Save now, a setup change, `pagehide`). Never more than one save holding the loop, and at most
 * MAX_UNCOMMITTED waiting for their commit; a save asked for while one is in flight runs after it
 * (the later state wins).
 *
 * The throttle (SaveThrottle): a save holds the training loop while the weights are read back (the
 * snapshot, with the engine held) and while IndexedDB copies the record (a synchronous `put`); the
 * commit to disk then runs beside the next step. The next automatic save starts only once the time
 * since the last one started is at least that held time divided by SAVE_SHARE, so saving takes at most
 * SAVE_SHARE of the loop's time whatever the model size and step time: on the small models a step
 * takes far longer than ten saves, so every step is saved; a model whose snapshot is slow relative to
 * its step is saved every few steps.
 */
import type { RunSnapshot, SaveCost, SaveTarget, SessionEvent } from './protocol.ts';
import type { StoredRun } from './run-store.ts';

/** The most of the training loop's time automatic saves may hold it for. */
export const SAVE_SHARE = 0.1;
/**
 * Automatic saves handed to IndexedDB but not yet committed, at most: the next one may start while the
 * last ones commit, but no more, so copies of the weights never pile up when storage is slower than
 * training. A commit's completion reaches a worker busy training only between steps, typically one
 * or two steps after the record is on disk (measured on arithmetic-tiny: about two 8 s steps), so
 * with fewer than 3 every third step went unsaved.
 */
export const MAX_UNCOMMITTED = 3;

/** When the next automatic save may start (times in ms, from any monotonic clock). */
export class SaveThrottle {
  private inFlight = false;
  private lastStart = -Infinity;
  private lastHeldMs = 0;

  constructor(readonly share = SAVE_SHARE) {
    if (!(share > 0 && share <= 1)) throw new Error(`save share must be in (0, 1], got ${share}`);
  }

  get busy(): boolean {
    return this.inFlight;
  }

  /** The earliest time the next automatic save may start (it must also wait for the one in flight). */
  nextAt(): number {
    return this.lastStart + this.lastHeldMs / this.share;
  }

  due(now: number): boolean {
    return !this.inFlight && now >= this.nextAt();
  }

  started(now: number): void {
    this.inFlight = true;
    this.lastStart = now;
  }

  /** The save ended; `heldMs`: how long it held the training loop (0 when it failed before holding it). */
  ended(heldMs: number): void {
    this.inFlight = false;
    this.lastHeldMs = Math.max(0, heldMs);
  }
}

export interface SaverDeps {
  /** The run's snapshot, read with the engine held; null when there is no run (or no longer the one asked about). */
  snapshot(): Promise<RunSnapshot | null>;
  /**
   * Writes the record (workers/run-store.ts saveRun in the worker): resolves once committed, with the
   * `put` time; calls `onQueued` once the record is handed over and its commit asked for.
   */
  write(run: StoredRun & { runId: string }, onQueued?: (putMs: number) => void): Promise<{ putMs: number }>;
  emit(e: SessionEvent): void;
  now?: () => number;
}

export interface SavedInfo {
  runId: string;
  step: number;
  savedAt: string;
  ms: SaveCost;
}

export class RunSaver {
  private target: SaveTarget | null = null;
  /** Steps whose number is a multiple of this are saved automatically (0: only on pause, end and request). */
  private everySteps = 1;
  /** The last save failed (storage full or unavailable): no automatic saves until a forced one succeeds. */
  private off = false;
  private readonly throttle: SaveThrottle;
  private inFlight: Promise<SavedInfo | null> | null = null;
  /** Saves handed to storage and not yet committed (at most MAX_UNCOMMITTED: each holds a copy of the weights). */
  private uncommitted = 0;
  /** A save asked for while one was in flight: it runs once that one ends. */
  private queued: Promise<SavedInfo | null> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly deps: SaverDeps,
    share = SAVE_SHARE,
  ) {
    this.throttle = new SaveThrottle(share);
    this.now = deps.now ?? (() => performance.now());
  }

  /** Where to save from now on (null: nowhere, e.g. a new run whose id the page has not sent yet). */
  setTarget(target: SaveTarget | null, everySteps?: number): void {
    this.target = target;
    if (everySteps !== undefined) {
      if (!Number.isInteger(everySteps) || everySteps < 0)
        throw new Error(`autosave interval must be a whole number of steps >= 0, got ${everySteps}`);
      this.everySteps = everySteps;
    }
  }

  get runId(): string | null {
    return this.target?.runId ?? null;
  }

  /** After a completed step: starts a save if this step is one to save and the throttle allows; never waits for it. */
  afterStep(step: number): void {
    if (!this.target || this.off || this.everySteps === 0 || step % this.everySteps !== 0) return;
    if (this.queued || this.uncommitted >= MAX_UNCOMMITTED || !this.throttle.due(this.now())) return;
    void this.save(false);
  }

  /**
   * Saves now, or right after the save in flight. `force` (the page's Save now): saves even after a
   * failure, and rejects with the storage's error; otherwise (pause, end) it resolves null then.
   */
  saveNow(force = false): Promise<SavedInfo | null> {
    if (!this.target || (this.off && !force)) return Promise.resolve(null);
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.save(force);
    const q = this.inFlight
      .catch(() => null)
      .then(() => {
        this.queued = null;
        return this.save(force);
      });
    this.queued = q;
    return q;
  }

  /** Resolves once no save is in flight or queued. */
  async idle(): Promise<void> {
    while (this.inFlight || this.queued) await (this.queued ?? this.inFlight)!.catch(() => null);
  }

  private save(force: boolean): Promise<SavedInfo | null> {
    const target = this.target;
    if (!target) return Promise.resolve(null);
    const t0 = this.now();
    this.throttle.started(t0);
    const p = this.saveTo(target, t0, force);
    this.inFlight = p;
    const clear = () => {
      if (this.inFlight === p) this.inFlight = null;
    };
    p.then(clear, clear);
    return p;
  }

  private async saveTo(target: SaveTarget, t0: number, force: boolean): Promise<SavedInfo | null> {
    let held = 0;
    let released = false;
    // The throttle's slot is free again once the loop is no longer held: the commit runs on its own.
    const release = (ms: number) => {
      if (released) return;
      released = true;
      this.throttle.ended(ms);
    };
    try {
      const snapshot = await this.deps.snapshot().catch(() => null);
      const t1 = this.now();
      held = t1 - t0;
      if (!snapshot) return null; // no run (stopped or replaced meanwhile): nothing of this target to save
      let putMs = 0;
      this.uncommitted++;
      try {
        const rec = {
          snapshot,
          setup: target.setup,
          experiment: target.experiment,
          runId: target.runId,
          tabId: target.tabId,
        };
        ({ putMs } = await this.deps.write(rec, (ms) => {
          putMs = ms;
          release(held + ms);
        }));
      } catch (e) {
        this.off = true;
        const err = e as { name?: string; message?: string } | null;
        this.deps.emit({
          type: 'save-failed',
          runId: target.runId,
          message: err?.message ?? String(e),
          name: err?.name ?? '',
        });
        if (force) throw e;
        return null;
      } finally {
        this.uncommitted--;
      }
      held += putMs;
      this.off = false;
      const info: SavedInfo = {
        runId: target.runId,
        step: snapshot.trainer.step,
        savedAt: snapshot.savedAt,
        ms: { snapshot: t1 - t0, put: putMs, commit: Math.max(0, this.now() - t1 - putMs) },
      };
      this.deps.emit({ type: 'saved', ...info });
      return info;
    } finally {
      release(held);
    }
  }
}
