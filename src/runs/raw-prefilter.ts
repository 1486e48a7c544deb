/**
 * A test on a JSONL step file's raw bytes that says when no line of it can match a plain-text query, so
 * a search can pass the file over without decoding or parsing it (a server search, src/node/search.ts).
 * It is used only where it is provably equivalent to parsing every line and matching (opened-run.ts
 * `textMatcher`): veRL's dump, whose `input` and `output` must be JSON strings (verl.ts `readRows`).
 *
 * Why it is safe. The page's plain-text match is `field.toLowerCase().includes(text.toLowerCase())`.
 * Let N be the lowered text. The filter is used only when N is printable ASCII without `"`, `\` or `/`
 * (`rawTextFilter` returns null otherwise, and the search parses every line). Then:
 * - Every ASCII character of `field.toLowerCase()` comes from an ASCII character of the field lowered by
 *   the ASCII rule, except the lowercase of U+0130 (`i̇`) and U+212A (`k`): the only non-ASCII code
 *   points whose lowercase holds ASCII (raw-prefilter.test.ts enumerates them). A file holding either
 *   one's UTF-8 bytes is parsed.
 * - A JSON string's characters stand for themselves in the raw line (UTF-8 bytes, an ASCII character
 *   as its own byte), except escapes: `\"`, `\\`, `\/` and the control characters' `\b \f \n \r \t`
 *   stand for characters N does not hold, and `\uXXXX` can stand for any character, so a file with a
 *   `\u` anywhere is parsed. Bytes of a multi-byte UTF-8 character are all ≥ 0x80, never ASCII.
 * So where a field matches, the line's bytes, ASCII-lowered, hold N's bytes; a file whose lowered bytes
 * hold neither N nor any of those marks has no matching line. N holds no newline, so a match in the
 * file's bytes lies within one line; a file that passes is read and matched exactly as before.
 */
import type { RunQuery } from './types.ts';

export interface RawTextFilter {
  /** False only when no line of these bytes can match the query's text. */
  mayMatch(bytes: Uint8Array): boolean;
}

const BACKSLASH_U = [0x5c, 0x75];
/** UTF-8 of U+0130 and U+212A, whose lowercase holds an ASCII letter. */
const LOWERS_TO_ASCII = [
  [0xc4, 0xb0],
  [0xe2, 0x84, 0xaa],
];

/** Where `needle` first occurs in `hay`, or -1 (the first byte found natively, the rest compared). */
export function indexOfBytes(hay: Uint8Array, needle: readonly number[]): number {
  const first = needle[0]!;
  for (let i = hay.indexOf(first); i >= 0 && i + needle.length <= hay.length; i = hay.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

const fold = (b: number) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/**
 * Whether the bytes, ASCII letters lowered, hold `needle` (lowercase ASCII): each place where its first
 * byte is, in either case, is found natively and the rest compared, so no lowered copy is made.
 */
export function holdsFolded(hay: Uint8Array, needle: readonly number[]): boolean {
  const first = needle[0]!;
  for (const variant of new Set([first, first >= 0x61 && first <= 0x7a ? first - 0x20 : first])) {
    for (let i = hay.indexOf(variant); i >= 0 && i + needle.length <= hay.length; i = hay.indexOf(variant, i + 1)) {
      let k = 1;
      while (k < needle.length && fold(hay[i + k]!) === needle[k]) k++;
      if (k === needle.length) return true;
    }
  }
  return false;
}

/** The filter for a query's text, or null where none is provably safe (a regex, no text, other characters). */
export function rawTextFilter(query: RunQuery): RawTextFilter | null {
  if (query.regex || query.text === undefined || query.text === '') return null;
  const lowered = query.text.toLowerCase();
  // Printable ASCII but `"` (0x22), `/` (0x2f) and `\` (0x5c): see the comment at the top.
  if (!/^[\x20-\x21\x23-\x2e\x30-\x5b\x5d-\x7e]+$/.test(lowered)) return null;
  const needle = [...lowered].map((c) => c.charCodeAt(0));
  return {
    mayMatch(bytes) {
      if (indexOfBytes(bytes, BACKSLASH_U) >= 0) return true;
      if (LOWERS_TO_ASCII.some((mark) => indexOfBytes(bytes, mark) >= 0)) return true;
      return holdsFolded(bytes, needle);
    },
  };
}
