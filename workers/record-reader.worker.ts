/**
 * Decodes a run record off the page's thread (src/ui/state/recording.ts starts one per file and ends it
 * after): gunzip, the header's JSON and the per-token channels of a large record would otherwise hold
 * the page for seconds. A thin shell over decodeRunRecord (src/record/run-record.ts), which names what is
 * wrong with a bad file. It has nothing to do with the trainer worker: opening a record never touches
 * the live run.
 */
import { decodeRunRecord, type DecodeResult } from '../src/record/run-record.ts';

export type RecordReaderReply = DecodeResult;

/** The record's own first bytes once gunzipped (src/record/run-record.ts MAGIC). */
const UNPACKED_START = new TextEncoder().encode('rlvr-run-record\n');

/**
 * A server that sends a .gz file with `Content-Encoding: gzip` (vite preview does, as do many static
 * hosts) has the browser unpack it on the way: such bytes are packed again, so the one reader reads them.
 */
async function asRecordFile(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.length < UNPACKED_START.length || UNPACKED_START.some((b, i) => bytes[i] !== b)) return bytes;
  const packed = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(packed).arrayBuffer());
}

self.addEventListener('message', (e: MessageEvent<ArrayBuffer>) => {
  void asRecordFile(new Uint8Array(e.data))
    .then((bytes) => decodeRunRecord(bytes))
    .then(
      (r) => self.postMessage(r satisfies RecordReaderReply),
      (err: unknown) =>
        self.postMessage({
          ok: false,
          error: `not a readable run record: ${err instanceof Error ? err.message : String(err)}`,
        } satisfies RecordReaderReply),
    );
});
