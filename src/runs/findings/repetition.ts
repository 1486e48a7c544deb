/**
 * `repetition`: completions dominated by one repeated n-gram: the most frequent word WORD_N-gram (in a
 * completion of at least MIN_WORDS words) or character CHAR_N-gram covers at least COVERAGE of the
 * completion, which is at least MIN_CHARS characters long. The lengths keep the shipped tasks' short
 * answers (a SAT assignment, a sum) out (docs/findings.md).
 */
import { pct } from './numbers.ts';
import { repetitionBounds } from './repetition-bounds.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

export const COVERAGE = 0.5;
export const MIN_CHARS = 100;
export const MIN_WORDS = 24;
export const WORD_N = 4;
export const CHAR_N = 8;

const BASE = 0x01000193;
const FIBONACCI = 0x9e3779b1 | 0;

/** Arrays reused from one completion to the next (a step has hundreds), grown when one is longer. */
const scratch = {
  codes: new Int32Array(256),
  hashes: new Int32Array(256),
  firstAt: new Int32Array(256),
  counts: new Int32Array(256),
  table: new Int32Array(512),
};

function grow(items: number): void {
  if (scratch.codes.length >= items) return;
  const size = 2 ** Math.ceil(Math.log2(items));
  scratch.codes = new Int32Array(size);
  scratch.hashes = new Int32Array(size);
  scratch.firstAt = new Int32Array(size);
  scratch.counts = new Int32Array(size);
  scratch.table = new Int32Array(size * 2);
}

/** Whether the n-grams of `codes` at i and j are equal. */
function same(codes: Int32Array, i: number, j: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (codes[i + k] !== codes[j + k]) return false;
  return true;
}

/**
 * `coverageBySlices` over `length` items whose codes are in scratch.codes (a char's code, a word's id),
 * giving where the most frequent n-gram first occurs (-1: none) instead of the n-gram. The n-grams are
 * counted by a rolling hash in an open-addressed table, each checked against the first n-gram seen with
 * its hash; two different n-grams sharing a hash return null, and the caller counts the strings instead.
 * Counting strings took 5.4 s of the 7 s of a 10 MB TRL run's findings (each n-gram a new string, hashed
 * per Map lookup); this counts numbers in arrays reused between completions, and gives the same answer.
 */
function topCoverage(length: number, n: number): { share: number; at: number } | null {
  if (length < n * 2) return { share: 0, at: -1 };
  const { codes, hashes, firstAt, counts, table } = scratch;
  const grams = length - n + 1;
  let bits = 1;
  while (1 << bits < grams * 2) bits++;
  const mask = (1 << bits) - 1;
  table.fill(0, 0, mask + 1); // a cell holds its n-gram's slot + 1; 0 is empty
  // A rolling polynomial hash: the n-gram at i+1 from the one at i, with the code leaving times BASE^(n-1).
  let high = 1;
  for (let k = 1; k < n; k++) high = Math.imul(high, BASE);
  let h = 0;
  for (let k = 0; k < n - 1; k++) h = (Math.imul(h, BASE) + codes[k]!) | 0;
  let slots = 0;
  let top = -1;
  let topCount = 0;
  for (let i = 0; i < grams; i++) {
    h = (Math.imul(h, BASE) + codes[i + n - 1]!) | 0;
    hashes[i] = h;
    let cell = Math.imul(h, FIBONACCI) >>> (32 - bits); // the product's high bits, which every code stirs
    let slot = -1;
    while (table[cell] !== 0) {
      const s = table[cell]! - 1;
      if (hashes[firstAt[s]!] === h) {
        if (!same(codes, firstAt[s]!, i, n)) return null;
        slot = s;
        break;
      }
      cell = (cell + 1) & mask;
    }
    if (slot < 0) {
      slot = slots++;
      table[cell] = slot + 1;
      firstAt[slot] = i;
      counts[slot] = 0;
    }
    const k = ++counts[slot]!;
    if (k > topCount) {
      top = firstAt[slot]!;
      topCount = k;
    }
    h = (h - Math.imul(codes[i]!, high)) | 0;
  }
  if (topCount < 2) return { share: 0, at: -1 };
  const topHash = hashes[top]!;
  let covered = 0;
  let until = 0;
  for (let i = top; i < grams; i++) {
    if (hashes[i] !== topHash || !same(codes, i, top, n)) continue;
    covered += i + n - Math.max(i, until);
    until = i + n;
  }
  return { share: covered / length, at: top };
}

/**
 * The same measure counted over the n-grams as strings (`gramAt(i)`: the one at i): the plain form of
 * `topCoverage`, used where two n-grams of a completion share a hash.
 */
export function coverageBySlices(length: number, n: number, gramAt: (i: number) => string): CoverageOf {
  if (length < n * 2) return none;
  const counts = new Map<string, number>();
  let top = '';
  let topCount = 0;
  for (let i = 0; i + n <= length; i++) {
    const gram = gramAt(i);
    const k = (counts.get(gram) ?? 0) + 1;
    counts.set(gram, k);
    if (k > topCount) {
      top = gram;
      topCount = k;
    }
  }
  if (topCount < 2) return none;
  let covered = 0;
  let until = 0;
  for (let i = 0; i + n <= length; i++) {
    if (gramAt(i) !== top) continue;
    covered += i + n - Math.max(i, until);
    until = i + n;
  }
  return { share: covered / length, gram: top };
}

type CoverageOf = { share: number; gram: string };
const none: CoverageOf = { share: 0, gram: '' };

function charCoverage(text: string): CoverageOf {
  grow(text.length);
  for (let i = 0; i < text.length; i++) scratch.codes[i] = text.charCodeAt(i);
  const r = topCoverage(text.length, CHAR_N);
  if (!r) return coverageBySlices(text.length, CHAR_N, (i) => text.slice(i, i + CHAR_N));
  return r.at < 0 ? none : { share: r.share, gram: text.slice(r.at, r.at + CHAR_N) };
}

function wordCoverage(words: string[]): CoverageOf {
  grow(words.length);
  const idOf = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    let id = idOf.get(words[i]!);
    if (id === undefined) idOf.set(words[i]!, (id = idOf.size));
    scratch.codes[i] = id;
  }
  const r = topCoverage(words.length, WORD_N);
  if (!r) return coverageBySlices(words.length, WORD_N, (i) => words.slice(i, i + WORD_N).join(' '));
  return r.at < 0 ? none : { share: r.share, gram: words.slice(r.at, r.at + WORD_N).join(' ') };
}

/** How much of a completion its most repeated n-gram covers (0 for one too short to judge). */
export function repetitionOf(text: string): CoverageOf {
  if (text.length < MIN_CHARS) return none;
  const words = text.split(/\s+/).filter((w) => w !== '');
  const byWord = words.length >= MIN_WORDS ? wordCoverage(words) : none;
  const byChar = charCoverage(text);
  return byWord.share >= byChar.share ? byWord : byChar;
}

/**
 * `repetitionOf` wherever it reaches `threshold`, and a lower share (none) elsewhere: the n-grams are counted
 * only on the side (words, characters) whose bound (repetition-bounds.ts) could reach it. Where the true
 * measure reaches `threshold`, the side it takes reaches it, so that side is counted; the other side, if
 * not counted, is below `threshold` and so below it, and would not have been taken.
 */
export function repetitionAtLeast(text: string, threshold: number): CoverageOf {
  if (text.length < MIN_CHARS) return none;
  const b = repetitionBounds(text);
  if (!b) return repetitionOf(text);
  const wordsMay = b.words >= MIN_WORDS && Math.min(b.words, b.wordGramCount * WORD_N) >= threshold * b.words;
  const charsMay = Math.min(text.length, b.charGramCount * CHAR_N) >= threshold * text.length;
  if (!wordsMay && !charsMay) return none;
  const byWord = wordsMay ? wordCoverage(text.split(/\s+/).filter((w) => w !== '')) : none;
  const byChar = charsMay ? charCoverage(text) : none;
  return byWord.share >= byChar.share ? byWord : byChar;
}

/** The measure as first written, n-grams counted as strings: what `repetitionOf` must equal (its test). */
export function repetitionBySlices(text: string): CoverageOf {
  if (text.length < MIN_CHARS) return none;
  const words = text.split(/\s+/).filter((w) => w !== '');
  const byWord =
    words.length >= MIN_WORDS
      ? coverageBySlices(words.length, WORD_N, (i) => words.slice(i, i + WORD_N).join(' '))
      : none;
  const byChar = coverageBySlices(text.length, CHAR_N, (i) => text.slice(i, i + CHAR_N));
  return byWord.share >= byChar.share ? byWord : byChar;
}

interface StepMeasure {
  completions: number;
  rows: number[];
  shares: number[];
  example: { row: number; gram: string; share: number } | null;
}

export const repetition: FindingRule<StepMeasure> = {
  kind: 'repetition',
  measure(step) {
    const m: StepMeasure = { completions: 0, rows: [], shares: [], example: null };
    for (const g of step.groups)
      for (const c of g.completions) {
        m.completions++;
        const r = repetitionAtLeast(c.completion, COVERAGE);
        if (r.share < COVERAGE) continue;
        m.rows.push(c.row);
        m.shares.push(r.share);
        if (!m.example || r.share > m.example.share) m.example = { row: c.row, gram: r.gram, share: r.share };
      }
    return m;
  },
  judge(measured, { name }) {
    const out: Finding[] = [];
    for (const { step, value: m } of measured) {
      if (!m.example) continue;
      const gram = m.example.gram.length > 40 ? `${m.example.gram.slice(0, 37)}...` : m.example.gram;
      out.push({
        run: name,
        kind: 'repetition',
        step,
        group: null,
        rows: m.rows.slice(0, MAX_FINDING_ROWS),
        score: m.example.share * (0.5 + (0.5 * m.rows.length) / m.completions),
        text:
          `Step ${step}: ${m.rows.length} of ${m.completions} completions are mostly one repeated n-gram (row ` +
          `${m.example.row}: ${JSON.stringify(gram)} covers ${pct(m.example.share)} of it; flagged at >= ` +
          `${pct(COVERAGE)} of a completion of >= ${MIN_CHARS} chars): a degenerate loop; check the sampling ` +
          `settings and the length reward.`,
      });
    }
    return out;
  },
};
