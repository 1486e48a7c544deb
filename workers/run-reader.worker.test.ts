// The run reader worker's decode of a `.rlvr.gz` (workers/run-reader.worker.ts decodeRecord): the one reader
// the page's recordings and lessons use (src/ui/state/record-readers.ts), over the same decode as the run
// viewer's record reader (src/record/record-file.ts). Comlink's expose is caught here, so the worker's api is
// called as the page calls it, in Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { decodeRunRecord } from '../src/record/run-record.ts';
import type { RunReaderApi } from './run-reader-protocol.ts';

const exposed = vi.hoisted(() => ({ api: null as unknown }));
vi.mock('comlink', () => ({ expose: (api: unknown) => void (exposed.api = api), proxy: (x: unknown) => x }));

const shipped = readFileSync(join(import.meta.dirname, '..', 'public', 'records', 'sat-grpo-30.rlvr.gz'));
const bufferOf = (b: Uint8Array) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

async function worker(): Promise<RunReaderApi> {
  await import('./run-reader.worker.ts');
  return exposed.api as RunReaderApi;
}

describe("the run reader worker's decodeRecord", () => {
  it('reads a shipped record as decodeRunRecord does', async () => {
    const api = await worker();
    const decoded = await api.decodeRecord(bufferOf(shipped));
    const expected = await decodeRunRecord(new Uint8Array(shipped));
    if (!decoded.ok || !expected.ok) throw new Error('the shipped record did not decode');
    expect(decoded.record.steps.length).toBe(30);
    expect(decoded.record).toEqual(expected.record);
  });

  it('reads a record a server sent with Content-Encoding: gzip (the browser unpacked it on the way)', async () => {
    const api = await worker();
    const decoded = await api.decodeRecord(bufferOf(gunzipSync(shipped)));
    if (!decoded.ok) throw new Error(decoded.error);
    expect(decoded.record.steps.length).toBe(30);
  });

  it('says what is wrong with bytes that are not a record', async () => {
    const api = await worker();
    expect(await api.decodeRecord(bufferOf(new TextEncoder().encode('<html>not found</html>')))).toEqual({
      ok: false,
      error: 'not a readable run record: it is not gzip-compressed (a run record starts with the gzip bytes 1f 8b)',
    });
  });
});
