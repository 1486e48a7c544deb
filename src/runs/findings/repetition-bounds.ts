/**
 * Upper bounds on a completion's repetition (repetition.ts), from one scan of its characters, so the
 * n-grams are counted only where the completion could be flagged. Most are not: in a 10 MB TRL run,
 * counting every completion's n-grams was 1.2 s of the 1.7 s of its findings (scripts/profile-findings.ts).
 *
 * Why they hold. Every occurrence of the most frequent character n-gram starts with an occurrence of its
 * first PREFIX_N characters, at a position of its own, so it occurs at most as often as the most frequent
 * run of PREFIX_N characters; its occurrences cover at most n characters each. Likewise every occurrence
 * of the most frequent word n-gram starts with its first word, so it occurs at most as often as the most
 * frequent word. Both are counted by a hash: two sharing a cell are counted together, which can only raise
 * the count, so the bounds still hold. Words are the runs between JavaScript's `\s` characters, as
 * `text.split(/\s+/)` cuts them (repetition.ts `repetitionOf`). PREFIX_N is 4, not 2: a text of few words
 * (the bench's dumps, bench/viewer/make_dumps.py) has a character pair in more than 1 of 16 places, so
 * pairs bound nothing, where runs of 4 do.
 */

/** Characters counted together for the character bound (at most 4: they are packed into 32 bits). */
export const PREFIX_N = 4;
const PREFIX_BITS = 14;
const WORD_CELLS = 1 << 12;
/** Counts by cell; a cell whose stamp is not the current scan's holds nothing yet (no clearing between scans). */
const prefixes = { counts: new Int32Array(1 << PREFIX_BITS), stamps: new Int32Array(1 << PREFIX_BITS) };
const wordCells = { counts: new Int32Array(WORD_CELLS), stamps: new Int32Array(WORD_CELLS) };
const scan = { stamp: 0 };

/** Whether the UTF-16 code unit `c` is one of JavaScript's `\s` (WhiteSpace and LineTerminator, ECMA-262). */
export function isRegexSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

export interface RepetitionBounds {
  /** Words, exactly (`text.split(/\s+/)` without the empty ones). */
  words: number;
  /** The most frequent word n-gram (of `wordN` words) occurs at most this often. */
  wordGramCount: number;
  /** The most frequent character n-gram occurs at most this often. */
  charGramCount: number;
}

/** The bounds of `text`'s repetition, from one scan of it. */
export function repetitionBounds(text: string): RepetitionBounds {
  scan.stamp = (scan.stamp + 1) | 0;
  const stamp = scan.stamp;
  const { counts: prefixCounts, stamps: prefixStamps } = prefixes;
  const { counts: wordCounts, stamps: wordStamps } = wordCells;
  let maxPrefix = text.length >= PREFIX_N ? 1 : 0;
  let words = 0;
  let maxWord = 0;
  let h = 0;
  let inWord = false;
  let packed = 0; // the last PREFIX_N code units, 8 bits each (a wider one's bits mix in: a hash, not a key)
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x20; // a space after the end closes the last word
    if (i < text.length) {
      packed = (packed << 8) ^ c;
      if (i >= PREFIX_N - 1) {
        const cell = Math.imul(packed, 0x9e3779b1) >>> (32 - PREFIX_BITS);
        if (prefixStamps[cell] !== stamp) {
          prefixStamps[cell] = stamp;
          prefixCounts[cell] = 1;
        } else if (++prefixCounts[cell]! > maxPrefix) maxPrefix = prefixCounts[cell]!;
      }
    }
    if (c === 0x20 || isRegexSpace(c)) {
      if (!inWord) continue;
      inWord = false;
      words++;
      const cell = h & (WORD_CELLS - 1);
      if (wordStamps[cell] !== stamp) {
        wordStamps[cell] = stamp;
        wordCounts[cell] = 1;
        if (maxWord < 1) maxWord = 1;
      } else if (++wordCounts[cell]! > maxWord) maxWord = wordCounts[cell]!;
      continue;
    }
    h = Math.imul((inWord ? h : 0x811c9dc5) ^ c, 0x01000193);
    inWord = true;
  }
  return { words, wordGramCount: maxWord, charGramCount: maxPrefix };
}
