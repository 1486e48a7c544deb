// A `.rlvr.gz` file's bytes as they reach a reader, to a RunRecord: the one place the page's recordings
// (src/ui/state/recording-read.ts, through workers/run-reader.worker.ts decodeRecord) and the run viewer's
// record reader (src/runs/record.ts) turn a served or opened file into a record.
import { MAGIC } from './format.ts';
import { gzip } from './gzip.ts';
import { type DecodeLimits, type DecodeResult, decodeRunRecord } from './reader.ts';

/** The record's own first bytes once gunzipped (format.ts MAGIC). */
const UNPACKED_START = new TextEncoder().encode(MAGIC);

/** Whether `bytes` are a record already gunzipped: they start with the record's MAGIC, not gzip's 1f 8b. */
export const isUnpackedRecord = (bytes: Uint8Array): boolean =>
  bytes.length >= UNPACKED_START.length && UNPACKED_START.every((b, i) => bytes[i] === b);

/**
 * Reads a record file's bytes, or says what is wrong (decodeRunRecord). A server that sends a .gz file
 * with `Content-Encoding: gzip` (vite preview does, as do many static hosts) has the browser unpack it on
 * the way: such bytes are packed again first, so the one reader (reader.ts) reads them under its caps.
 */
export async function decodeRecordFile(bytes: Uint8Array, limits: DecodeLimits = {}): Promise<DecodeResult> {
  try {
    return await decodeRunRecord(isUnpackedRecord(bytes) ? await gzip(bytes) : bytes, limits);
  } catch (e) {
    return { ok: false, error: `not a readable run record: ${e instanceof Error ? e.message : String(e)}` };
  }
}
