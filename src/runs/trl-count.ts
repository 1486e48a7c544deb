/**
 * A TRL step's count of rows that a plain-text query matches, made without building its rows: a search
 * past the hits it keeps needs only that count (opened-run.ts, RunSource.countText). The strings are left
 * as UTF-8 bytes (hyparquet's `stringFromBytes` parser, given here) and matched as bytes (text-bytes.ts);
 * a dictionary's value is one object for every row that uses it, so each is matched once. The columns read
 * are those `readRows` reads (the numbers are small beside the text), so a damaged column fails this read
 * where it fails that one. The count is that of the rows trl.ts `readRows` builds, matched by the page's
 * search, whenever this gives one: it gives null (read the rows) where the two could differ or the step
 * has problems to report (a row without a completion), and where the columns are not plain strings (TRL's
 * conversational prompts and completions are lists of messages).
 */
import { type AsyncBuffer, type FileMetaData, parquetReadObjects, parquetSchema } from 'hyparquet';
import { parquetCompressors } from './parquet-codecs.ts';
import { bytesTextMatcher } from './text-bytes.ts';
import type { RunQuery } from './types.ts';

/** A column whose every value hyparquet hands to `stringFromBytes`: a flat, non-repeated BYTE_ARRAY of text. */
function plainText(metadata: FileMetaData, name: string): boolean {
  const column = parquetSchema(metadata).children.find((c) => c.element.name === name);
  if (!column || column.children.length > 0) return false;
  const { type, converted_type, logical_type, repetition_type } = column.element;
  return (
    type === 'BYTE_ARRAY' &&
    repetition_type !== 'REPEATED' &&
    (converted_type === undefined || converted_type === 'UTF8') &&
    (logical_type === undefined || logical_type.type === 'STRING')
  );
}

/**
 * The bytes as they are; a value that is not bytes (a damaged page) fails here as hyparquet's own decoder
 * fails on it in readRows, so the step is read whole and its problem reported (src/runs/fuzz.test.ts found one).
 */
const asBytes = (bytes: Uint8Array) => {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('a text value is not bytes (a damaged page)');
  return bytes;
};

/** How many rows match the query's text (`in` where it says), or null where the rows must be read. */
export async function countTrlTextRows(
  file: AsyncBuffer,
  metadata: FileMetaData,
  columns: string[],
  query: RunQuery,
): Promise<number | null> {
  const match = bytesTextMatcher(query);
  if (!match || !plainText(metadata, 'prompt') || !plainText(metadata, 'completion')) return null;
  const rows = await parquetReadObjects({
    file,
    metadata,
    rowFormat: 'object',
    columns,
    compressors: parquetCompressors(),
    parsers: { stringFromBytes: asBytes },
  });
  const where = query.in ?? 'both';
  const seen = new Map<Uint8Array, boolean>();
  const matches = (v: unknown): boolean => {
    if (!(v instanceof Uint8Array)) return false; // a null prompt is read as '', which holds no text
    let m = seen.get(v);
    if (m === undefined) seen.set(v, (m = match(v)));
    return m;
  };
  let count = 0;
  for (const r of rows) {
    if (!(r.completion instanceof Uint8Array)) return null; // a row without a completion: reported by readRows
    if ((where !== 'completion' && matches(r.prompt)) || (where !== 'prompt' && matches(r.completion))) count++;
  }
  return count;
}
