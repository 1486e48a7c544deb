/**
 * The run reader workers (workers/run-reader.worker.ts) that decode the page's recordings and a lesson's
 * arms (recording-read.ts decodeOffThread): each record is decoded by decodeRecord in a reader of its own,
 * which ends when it answers, so a huge or hostile file cannot hold the page or outlive its open. The pool
 * (RecordReaders, the session's `recordReaders`, session.ts) keeps readers started ahead while an opener is
 * on screen, so an open does not wait for a worker's script: as many as a lesson opens at once (its arms,
 * up to three, are decoded in parallel).
 */
import * as Comlink from 'comlink';
import type { DecodeResult } from '../../record/run-record.ts';
import type { RunReaderApi } from '../../../workers/run-reader-protocol.ts';
import { newReaderWorker } from './reader-worker.ts';
import { HandleDisposed, type WorkerHandle } from './worker-handle.ts';

/** How many readers are kept started ahead: a lesson's arms at most. */
export const SPARE_READERS = 3;
/** How long after an open settles the spares are started again (another lesson, another arm). */
export const REFILL_MS = 2000;

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** One reader worker for one decode (worker-handle.ts): it ends once it has answered, failed, or on dispose(). */
export class RecordReader implements WorkerHandle {
  private readonly worker = newReaderWorker();
  private readonly api = Comlink.wrap<RunReaderApi>(this.worker);
  private ended = false;
  /** Settles with why, when the worker fails instead of answering (even before a decode is asked of it). */
  private readonly failed: Promise<DecodeResult>;

  constructor() {
    this.failed = new Promise((settle) => {
      this.worker.addEventListener('error', (e: ErrorEvent) => {
        e.preventDefault();
        settle({ ok: false, error: `the reader stopped: ${e.message || 'it ran out of memory or failed to load'}` });
      });
      this.worker.addEventListener('messageerror', () =>
        settle({ ok: false, error: 'the decoded record could not be passed to the page' }),
      );
    });
  }

  get disposed(): boolean {
    return this.ended;
  }

  /** The record in `bytes` (transferred to the worker), or what is wrong with it; the worker ends after. */
  async decode(bytes: ArrayBuffer): Promise<DecodeResult> {
    if (this.ended) throw new HandleDisposed('the record reader');
    try {
      return await Promise.race([this.api.decodeRecord(Comlink.transfer(bytes, [bytes])), this.failed]);
    } catch (e) {
      return { ok: false, error: `the reader stopped: ${why(e)}` };
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.worker.terminate();
  }
}

/** The readers started ahead, each taken by one decode; dispose() ends those not taken and starts no more. */
export class RecordReaders implements WorkerHandle {
  private readonly spare: RecordReader[] = [];
  private refill: ReturnType<typeof setTimeout> | undefined;
  private ended = false;

  get disposed(): boolean {
    return this.ended;
  }

  /** How many readers wait, started (tests). */
  get waiting(): number {
    return this.spare.length;
  }

  /** Starts readers until SPARE_READERS wait. */
  prewarm(): void {
    if (this.ended) return;
    while (this.spare.length < SPARE_READERS) this.spare.push(new RecordReader());
  }

  /** Decodes in a reader of its own (a spare, if one waits), ended when it answers; the spares are refilled after. */
  async decode(bytes: ArrayBuffer): Promise<DecodeResult> {
    if (this.ended) throw new HandleDisposed('the record reader pool');
    const reader = this.spare.pop() ?? new RecordReader();
    try {
      return await reader.decode(bytes);
    } finally {
      clearTimeout(this.refill);
      this.refill = setTimeout(() => this.prewarm(), REFILL_MS);
    }
  }

  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.refill);
    for (const r of this.spare.splice(0)) r.dispose();
  }
}
