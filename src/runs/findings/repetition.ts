/**
 * `repetition`: completions dominated by one repeated n-gram: the most frequent word WORD_N-gram (in a
 * completion of at least MIN_WORDS words) or character CHAR_N-gram covers at least COVERAGE of the
 * completion, which is at least MIN_CHARS characters long. The lengths keep the shipped tasks' short
 * answers (a SAT assignment, a sum) out (docs/findings.md).
 */
import { pct } from './numbers.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

export const COVERAGE = 0.5;
export const MIN_CHARS = 100;
export const MIN_WORDS = 24;
export const WORD_N = 4;
export const CHAR_N = 8;

/** The share of `length` items covered by occurrences of the most frequent n-gram (`gramAt(i)`: the one at i). */
function topCoverage(length: number, n: number, gramAt: (i: number) => string): { share: number; gram: string } {
  if (length < n * 2) return { share: 0, gram: '' };
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
  if (topCount < 2) return { share: 0, gram: '' };
  let covered = 0;
  let until = 0;
  for (let i = 0; i + n <= length; i++) {
    if (gramAt(i) !== top) continue;
    covered += i + n - Math.max(i, until);
    until = i + n;
  }
  return { share: covered / length, gram: top };
}

const none = { share: 0, gram: '' };

/** How much of a completion its most repeated n-gram covers (0 for one too short to judge). */
export function repetitionOf(text: string): { share: number; gram: string } {
  if (text.length < MIN_CHARS) return none;
  const words = text.split(/\s+/).filter((w) => w !== '');
  const byWord =
    words.length >= MIN_WORDS ? topCoverage(words.length, WORD_N, (i) => words.slice(i, i + WORD_N).join(' ')) : none;
  const byChar = topCoverage(text.length, CHAR_N, (i) => text.slice(i, i + CHAR_N));
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
        const r = repetitionOf(c.completion);
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
