// The page's record readers (record-readers.ts): run reader workers (workers/run-reader.worker.ts) started
// ahead, each taking one decode and ending when it answers or fails, owned by the session's pool
// (session.recordReaders) and ended by its dispose(). The workers are fakes; Comlink's wrap answers for them.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DecodeResult } from '../../record/run-record.ts';
import { RecordReaders, REFILL_MS, SPARE_READERS } from './record-readers.ts';
import { decodeOffThread, prewarmRecordReader } from './recording-read.ts';
import { resetSession, session } from './session.ts';

const fake = vi.hoisted(() => {
  class FakeWorker {
    static all: FakeWorker[] = [];
    terminated = false;
    readonly url: string;
    readonly name: string;
    readonly listeners = new Map<string, (e: unknown) => void>();
    /** What its decodeRecord answers; null: it never answers (the worker fails instead). */
    answer: DecodeResult | null = { ok: false, error: 'not a readable run record: fake' };
    constructor(url: URL, options: { name: string }) {
      this.url = url.href;
      this.name = options.name;
      FakeWorker.all.push(this);
    }
    terminate() {
      this.terminated = true;
    }
    addEventListener(type: string, f: (e: unknown) => void) {
      this.listeners.set(type, f);
    }
    removeEventListener() {}
    postMessage() {}
  }
  const decoded: number[] = [];
  const api = (w: FakeWorker) => ({
    decodeRecord: (bytes: ArrayBuffer) => {
      decoded.push(bytes.byteLength);
      return w.answer ? Promise.resolve(w.answer) : new Promise(() => undefined);
    },
  });
  return { FakeWorker, api, decoded };
});
vi.mock('comlink', () => ({ wrap: fake.api, transfer: (x: unknown) => x, proxy: (x: unknown) => x }));

const workers = () => fake.FakeWorker.all;

beforeEach(() => {
  fake.FakeWorker.all.length = 0;
  fake.decoded.length = 0;
  resetSession();
  vi.stubGlobal('Worker', fake.FakeWorker);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("the page's record readers", () => {
  it('are run reader workers, started ahead, each ended after its one decode and refilled after', async () => {
    vi.useFakeTimers();
    prewarmRecordReader();
    prewarmRecordReader();
    expect(workers().length).toBe(SPARE_READERS);
    expect(workers().every((w) => w.url.includes('run-reader.worker.ts') && w.name === 'run reader')).toBe(true);
    const results = await Promise.all([1, 2, 3].map((n) => decodeOffThread(new ArrayBuffer(n))));
    expect(results.every((r) => !r.ok)).toBe(true);
    expect(fake.decoded.sort()).toEqual([1, 2, 3]);
    expect(workers().length).toBe(SPARE_READERS); // the three decodes took the spares, started no other
    expect(workers().every((w) => w.terminated)).toBe(true);
    expect(session.recordReaders.waiting).toBe(0);
    vi.advanceTimersByTime(REFILL_MS);
    expect(session.recordReaders.waiting).toBe(SPARE_READERS);
    expect(workers().filter((w) => !w.terminated).length).toBe(SPARE_READERS);
  });

  it('say why when the worker fails instead of answering, and end it', async () => {
    const readers = new RecordReaders();
    readers.prewarm();
    const spare = workers().at(-1)!;
    spare.answer = null;
    const result = decodeWith(readers, 8);
    spare.listeners.get('error')!({ message: 'out of memory', preventDefault() {} });
    expect(await result).toEqual({ ok: false, error: 'the reader stopped: out of memory' });
    expect(spare.terminated).toBe(true);
    readers.dispose();
  });

  it('once disposed end the readers waiting, start no more and refuse a decode', async () => {
    const readers = new RecordReaders();
    readers.prewarm();
    readers.dispose();
    expect(readers.disposed).toBe(true);
    expect(workers().every((w) => w.terminated)).toBe(true);
    readers.prewarm();
    expect(workers().length).toBe(SPARE_READERS);
    await expect(readers.decode(new ArrayBuffer(1))).rejects.toThrow('the record reader pool was closed');
  });
});

const decodeWith = (readers: RecordReaders, n: number) => readers.decode(new ArrayBuffer(n));
