/**
 * Upper bounds on a completion's repetition (repetition.ts), from one scan of its characters, so the
 * n-grams are counted only where the completion could be flagged. Most are not: in a 10 MB TRL run,
 * counting every completion's n-grams was 1.2 s of the 1.7 s of its findings (scripts/profile-findings.ts).
 *
 * Why they hold. Take the most frequent character n-gram G (n = CHAR_N = 8) and an occurrence of it at s.
 * Of the positions s … s+3 exactly one, p, is a multiple of PREFIX_N = 4, and the run of 4 characters
 * there is G's own run j = p - s (G[j … j+4], inside G as j + 4 <= 8). Two occurrences give two different
 * pairs (p, j), as s = p - j. So G occurs at most as often as the four runs G[0…4] … G[3…7] occur, together,
 * at multiples of 4: at most 4 times the most frequent run of 4 counted there; its occurrences cover at
 * most n characters each. Every occurrence of the most frequent word n-gram starts with its first word, so
 * it occurs at most as often as the most frequent word. Runs are counted by a hash, words by a hash of their
 * length and last 4 characters: two sharing a cell are counted together, which can only raise the count, so
 * the bounds still hold. Words are the runs
 * between JavaScript's `\s` characters, as `text.split(/\s+/)` cuts them (repetition.ts `repetitionOf`).
 * Runs of 4, not pairs: a text of few words (the bench's dumps, bench/viewer/make_dumps.py) has a character
 * pair in more than 1 of 16 places, so pairs bound nothing; counted at a quarter of the positions, the
 * table takes a quarter of the scan's loads and stores.
 */

/** Characters counted together for the character bound (at most 4: they are packed into 32 bits). */
export const PREFIX_N = 4;
const PREFIX_BITS = 14;
const WORD_BITS = 12;
/**
 * Counts by cell, each cell `stamp << 16 | count`: a cell stamped by another scan holds nothing yet, so
 * nothing is cleared between scans. A stamp comes back after 65,536 scans, and a cell left by that older
 * scan then adds its count: that only raises a count, and the bounds hold. A text of 65,535 or more
 * characters, whose counts could carry into the stamp, has no bounds (`repetitionBounds` says so).
 */
const prefixCells = new Int32Array(1 << PREFIX_BITS);
const wordCells = new Int32Array(1 << WORD_BITS);
const scan = { stamp: 0 };
/** The longest text `repetitionBounds` bounds. */
export const MAX_BOUNDED = 0xfffe;

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

/** The bounds of `text`'s repetition, from one scan of it; null for a text longer than MAX_BOUNDED. */
export function repetitionBounds(text: string): RepetitionBounds | null {
  if (text.length > MAX_BOUNDED) return null;
  scan.stamp = (scan.stamp + 1) & 0xffff;
  const tag = scan.stamp << 16;
  const prefixes = prefixCells;
  let maxPrefix = 0;
  let words = 0;
  let maxWord = 0;
  // The last PREFIX_N code units, 8 bits each (a wider one's bits mix in: a hash, not a key), counted
  // where they start at a multiple of PREFIX_N.
  let packed = 0;
  let wordLength = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    const before = packed;
    packed = (packed << 8) ^ c;
    if ((i & (PREFIX_N - 1)) === PREFIX_N - 1) {
      const cell = Math.imul(packed, 0x9e3779b1) >>> (32 - PREFIX_BITS);
      const v = prefixes[cell]!;
      const n = (v & 0xffff0000) === tag ? (v & 0xffff) + 1 : 1;
      prefixes[cell] = tag | n;
      if (n > maxPrefix) maxPrefix = n;
    }
    if (c > 0x20 ? c < 0xa0 || !isRegexSpace(c) : !(c === 0x20 || (c >= 0x09 && c <= 0x0d))) wordLength++;
    else if (wordLength > 0) {
      const k = countWord(before, wordLength, tag);
      if (k > maxWord) maxWord = k;
      words++;
      wordLength = 0;
    }
  }
  if (wordLength > 0) {
    maxWord = Math.max(maxWord, countWord(packed, wordLength, tag));
    words++;
  }
  return { words, wordGramCount: maxWord, charGramCount: Math.min(PREFIX_N * maxPrefix, length) };
}

/**
 * Counts a word in this scan (`tag`) by its length and its last characters (`last`: the packed code units
 * up to its end, of which the low 8 bits a character, up to 4, are its own: an earlier character's bits all
 * lie higher), so equal words share a cell; returns its count so far.
 */
function countWord(last: number, wordLength: number, tag: number): number {
  const own = wordLength >= PREFIX_N ? last : last & ((1 << (8 * wordLength)) - 1);
  const cell = Math.imul(own ^ Math.imul(wordLength, 0x27d4eb2d), 0x9e3779b1) >>> (32 - WORD_BITS);
  const v = wordCells[cell]!;
  const n = (v & 0xffff0000) === tag ? (v & 0xffff) + 1 : 1;
  wordCells[cell] = tag | n;
  return n;
}
