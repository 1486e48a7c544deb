// The record's gzip (CompressionStream, in Node and browsers alike), with a cap on what it decompresses to.
import { RunRecordError } from './format.ts';

// ---- gzip ---------------------------------------------------------------------------------------

/**
 * Reads a byte stream to its end, refusing it (cancelled, `refuse(total)` thrown) as soon as it holds
 * more than `limit` bytes: the reader's gzip cap here, a download's size cap in the page
 * (src/ui/state/recording.ts).
 */
export async function readCapped(
  reader: ByteStreamReader,
  limit: number,
  refuse: (total: number) => Error,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw refuse(total);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export async function pipe(stream: ByteTransformStream, input: Uint8Array, maxOut: number): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  const writing = writer.write(input).then(() => writer.close());
  writing.catch(() => undefined); // a failure shows on the reading side
  const out = await readCapped(
    stream.readable.getReader(),
    maxOut,
    () => new RunRecordError(`it decompresses to more than ${mb(maxOut)}; refused`),
  );
  await writing;
  return out;
}

export const gzip = (bytes: Uint8Array) => pipe(new CompressionStream('gzip'), bytes, Number.MAX_SAFE_INTEGER);

/** A byte count in megabytes, as the refusals word it. */
export const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`;
