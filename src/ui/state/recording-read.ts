/**
 * Reading run records for the page (recording.ts shows them, recorded-arms.ts opens a lesson's arms):
 * each record is decoded in a short-lived run reader worker of its own (record-readers.ts, the pool the session
 * keeps; workers/run-reader.worker.ts decodeRecord, the viewer's reader of a record too), a URL
 * is downloaded with its size capped, and each open gets a number so that a slower earlier open is
 * dropped when it finishes.
 */
import { mb, readCapped, RUN_RECORD_MAX_BYTES, type DecodeResult } from '../../record/run-record.ts';
import { patch } from './store.ts';
import { session } from './session.ts';

export const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export const appUrl = (path: string) => new URL(path, new URL(import.meta.env.BASE_URL || '/', location.href)).href;

// Each open gets a number (session.recordOpening); a slower earlier open that finishes later is dropped.

/** A new open's number: every earlier open still being read is dropped when it finishes. */
export const newOpen = (): number => ++session.recordOpening;
/** Whether open `ticket` is still the latest (its result is shown). */
export const isLatestOpen = (ticket: number): boolean => ticket === session.recordOpening;

/**
 * Drops an open still being read (its result is not shown): "Run it live" pressed before a lesson's records arrived.
 */
export function cancelRecordOpen(): void {
  session.recordOpening++;
  patch('recordingLoad', { loading: null, error: null });
}

export function failed(name: string, why: string): void {
  patch('recordingLoad', { loading: null, error: `Could not open ${name}: ${why}` });
}

/** Starts the record readers ahead (an opener is on screen), so an open does not wait for a worker's script. */
export function prewarmRecordReader(): void {
  session.recordReaders.prewarm();
}

/** Decodes in a run reader worker of its own, ended when it answers: a huge or hostile file cannot hold the page. */
export function decodeOffThread(bytes: ArrayBuffer): Promise<DecodeResult> {
  return session.recordReaders.decode(bytes);
}

export function sizeRefusal(bytes: number): string {
  return (
    `not a readable run record: the file is ${mb(bytes)}` +
    `; records of ${mb(RUN_RECORD_MAX_BYTES)} or more ` +
    'are refused'
  );
}

/** Reads a response body, refusing it as soon as it reaches the size limit. */
async function readResponseCapped(res: Response): Promise<ArrayBuffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared >= RUN_RECORD_MAX_BYTES) throw new Error(sizeRefusal(declared));
  if (!res.body) return res.arrayBuffer();
  const bytes = await readCapped(
    res.body.getReader(),
    RUN_RECORD_MAX_BYTES - 1,
    (total) => new Error(sizeRefusal(total)),
  );
  return bytes.buffer as ArrayBuffer;
}

/** An http(s) URL against the page, or why it cannot be read. */
export function recordHref(url: string): URL | string {
  let href: URL;
  try {
    href = new URL(url, location.href);
  } catch {
    return 'it is not a URL';
  }
  if (href.protocol !== 'http:' && href.protocol !== 'https:')
    return `only http(s) addresses can be opened, not ${href.protocol}`;
  return href;
}

/** A record's bytes from a URL, refused with the reason (a failed download, an error page, too large). */
export async function download(href: URL): Promise<ArrayBuffer> {
  let res: Response;
  try {
    res = await fetch(href.href, { cache: 'no-cache' });
  } catch (e) {
    const other =
      href.origin !== location.origin
        ? ` (this page may read only its own site, ${location.origin}: put the record beside the page)`
        : '';
    throw new Error(`the download failed: ${message(e)}${other}`);
  }
  if (!res.ok) throw new Error(`the server answered HTTP ${res.status}${res.status === 404 ? ' (no such file)' : ''}`);
  if (/text\/html/i.test(res.headers.get('content-type') ?? ''))
    throw new Error('the server answered with a web page, not a record (is the address right?)');
  return readResponseCapped(res);
}
