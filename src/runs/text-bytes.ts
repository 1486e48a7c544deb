/**
 * The page's plain-text match (opened-run.ts `textMatcher`: `s.toLowerCase().includes(text.toLowerCase())`)
 * made on a string's UTF-8 bytes, so a search that only counts (a TRL step past the hits it keeps,
 * trl-count.ts) need not decode every string of a step.
 *
 * Why it gives the same answer. It is used only where N, the lowered text, is ASCII (else
 * `bytesTextMatcher` returns null and the strings are decoded). The string is what `TextDecoder` (hyparquet's
 * `stringFromBytes`) makes of the bytes: each ASCII byte becomes its own character, and the other bytes
 * become non-ASCII characters (a replacement character where they are not UTF-8); a leading byte order mark
 * is dropped, which joins no two ASCII characters. `toLowerCase` lowers ASCII by the ASCII rule and gives
 * non-ASCII for every non-ASCII character but U+0130 (to `i` and U+0307) and U+212A (to `k`);
 * raw-prefilter.test.ts enumerates them. So where the bytes, ASCII letters lowered, hold N's bytes, the
 * lowered string holds N (adjacent ASCII bytes are adjacent ASCII characters); and where they do not, the
 * lowered string can hold N only through one of those two, so bytes holding either one's UTF-8 are then
 * decoded and matched as the page matches.
 */
import { holdsFolded, indexOfBytes } from './raw-prefilter.ts';
import type { RunQuery } from './types.ts';

/** UTF-8 of U+0130 and U+212A, whose lowercase holds an ASCII letter. */
const LOWERS_TO_ASCII = [
  [0xc4, 0xb0],
  [0xe2, 0x84, 0xaa],
];
const decoder = new TextDecoder();

/** Whether a string's UTF-8 bytes match the query's plain text; null for a regex, an empty or a non-ASCII text. */
export function bytesTextMatcher(query: RunQuery): ((bytes: Uint8Array) => boolean) | null {
  if (query.regex || query.text === undefined || query.text === '') return null;
  const lowered = query.text.toLowerCase();
  if (!/^[\x00-\x7f]+$/.test(lowered)) return null;
  const needle = [...lowered].map((c) => c.charCodeAt(0));
  // Bytes that hold N (ASCII letters lowered) match whatever else they hold; only a text with an `i` or a `k`
  // can be matched through U+0130 or U+212A, so only then are the bytes that do not hold N looked at again.
  const viaMarks = lowered.includes('i') || lowered.includes('k');
  return (bytes) => {
    if (holdsFolded(bytes, needle)) return true;
    if (viaMarks && LOWERS_TO_ASCII.some((mark) => indexOfBytes(bytes, mark) >= 0))
      return decoder.decode(bytes).toLowerCase().includes(lowered);
    return false;
  };
}
