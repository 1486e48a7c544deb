/**
 * Reading an imported text file (dataset, config, manifest) as UTF-8, strictly: a file in another
 * encoding (Latin-1 or Windows-1252, whose curly quotes and accents are bytes UTF-8 does not allow) is
 * refused as "not UTF-8", naming the line and the byte, instead of being decoded with replacement
 * characters and failing later as "not valid JSON". Pure TypeScript (text-import.test.ts).
 */
import { wrongFileMessage } from '../../util/file-kind.ts';

export class NotUtf8Error extends Error {}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let j = 1; j <= need; j++) {
      const c = bytes[i + j];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    // Overlong three/four-byte forms, surrogates and code points past U+10FFFF (TextDecoder's rules).
    const c1 = bytes[i + 1] ?? 0;
    if (
      (b === 0xe0 && c1 < 0xa0) ||
      (b === 0xed && c1 > 0x9f) ||
      (b === 0xf0 && c1 < 0x90) ||
      (b === 0xf4 && c1 > 0x8f)
    )
      return i;
    i += need + 1;
  }
  return -1;
}

/** UTF-8 text of `bytes` (a leading BOM dropped); throws NotUtf8Error naming the file, the line and the byte. */
export function decodeUtf8(bytes: Uint8Array, name: string): string {
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    let line = 1;
    for (let i = 0; i < bad; i++) if (bytes[i] === 0x0a) line++;
    const hex = bytes[bad]!.toString(16).toUpperCase().padStart(2, '0');
    throw new NotUtf8Error(
      `${name} is not UTF-8 text: line ${line} has the ` +
        `byte 0x${hex}, which UTF-8 does not allow (a ` +
        'Latin-1 or Windows-1252 file, e.g. with accents or ' +
        'curly quotes?). Save it as UTF-8 and import it ' +
        'again',
    );
  }
  return new TextDecoder('utf-8').decode(bytes);
}

/**
 * A chosen file's text, read as strict UTF-8. `expected` says what the place that reads it takes
 * ("a dataset (JSONL or CSV text)"): a file recognised by its content as something else (Parquet,
 * gzip, TRL's trainer_state.json, ...) is refused naming what it is and where it opens (file-kind.ts).
 */
export async function readUtf8File(
  file: Blob & { name?: string },
  expected: string,
  name = file.name ?? 'the file',
): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const wrong = wrongFileMessage(name, bytes, expected);
  if (wrong) throw new WrongFileError(wrong);
  return decodeUtf8(bytes, name);
}

export class WrongFileError extends Error {}
