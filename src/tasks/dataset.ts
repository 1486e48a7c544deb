/**
 * "Your own data": JSONL files of {"prompt": ..., "answer": ...} lines, one record per line.
 * Malformed lines are reported by line number and skipped; the rest load. The streaming parser
 * takes chunks of text (e.g. from File.stream() through a TextDecoderStream, or fs streams) and
 * holds at most one line in memory, so a 50 MB file does not need to be read whole.
 */
import type { AnswerCheck } from './verdict.ts';

export interface DatasetRecord {
  /** 1-based line number in the file. */
  line: number;
  prompt: string;
  answer: string;
  /** Regex verifier only: the pattern the answer must match in full (defaults to `answer`). */
  pattern?: string;
}

export interface DatasetLineError {
  line: number;
  reason: string;
}

export interface Dataset {
  records: DatasetRecord[];
  /** The first `maxErrors` malformed lines. */
  errors: DatasetLineError[];
  /** All malformed lines, including those not kept in `errors`. */
  errorCount: number;
  /** Lines read, blank ones included. */
  lines: number;
  /** True when the file had more than `maxRecords` good records and the rest were skipped. */
  truncated: boolean;
}

export interface DatasetOptions {
  maxRecords?: number;
  maxLineChars?: number;
  maxErrors?: number;
  maxPromptChars?: number;
}

const DEFAULTS: Required<DatasetOptions> = {
  maxRecords: 200_000,
  maxLineChars: 65_536,
  maxErrors: 100,
  maxPromptChars: 4096,
};

export const MAX_PATTERN_CHARS = 200;
/** Longest answer a pattern is run on: bounds the work of an author's pattern. */
export const MAX_TESTED_CHARS = 200;

export class DatasetError extends Error {}

/** Validates one line; blank lines return null. */
export function parseDatasetLine(
  text: string,
  line: number,
  opts: DatasetOptions = {},
): DatasetRecord | DatasetLineError | null {
  const maxPrompt = opts.maxPromptChars ?? DEFAULTS.maxPromptChars;
  if (text.trim() === '') return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { line, reason: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { line, reason: 'not a JSON object' };
  const o = v as Record<string, unknown>;
  if (typeof o.prompt !== 'string') return { line, reason: 'missing "prompt" (a string)' };
  if (o.prompt.length === 0) return { line, reason: '"prompt" is empty' };
  if (o.prompt.length > maxPrompt) return { line, reason: `"prompt" is longer than ${maxPrompt} chars` };
  let answer: string;
  if (typeof o.answer === 'string') answer = o.answer;
  else if (typeof o.answer === 'number' && Number.isFinite(o.answer)) answer = String(o.answer);
  else return { line, reason: 'missing "answer" (a string or number)' };
  if (answer.trim() === '') return { line, reason: '"answer" is empty' };
  if (answer.length > 200) return { line, reason: '"answer" is longer than 200 chars' };
  const rec: DatasetRecord = { line, prompt: o.prompt, answer };
  if (o.pattern !== undefined) {
    if (typeof o.pattern !== 'string') return { line, reason: '"pattern" must be a string' };
    const err = regexError(o.pattern);
    if (err) return { line, reason: `"pattern": ${err}` };
    rec.pattern = o.pattern;
  }
  return rec;
}

/** Collects records and errors with the caps from the options. */
class Collector {
  readonly ds: Dataset = { records: [], errors: [], errorCount: 0, lines: 0, truncated: false };
  private readonly opts: Required<DatasetOptions>;
  constructor(opts: DatasetOptions) {
    this.opts = { ...DEFAULTS, ...opts };
  }
  error(line: number, reason: string) {
    this.ds.errorCount++;
    if (this.ds.errors.length < this.opts.maxErrors) this.ds.errors.push({ line, reason });
  }
  line(text: string, overlong: boolean) {
    const n = ++this.ds.lines;
    if (overlong) return this.error(n, `line longer than ${this.opts.maxLineChars} chars`);
    const r = parseDatasetLine(n === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, n, this.opts);
    if (r === null) return;
    if ('reason' in r) return this.error(r.line, r.reason);
    if (this.ds.records.length >= this.opts.maxRecords) {
      this.ds.truncated = true;
      return;
    }
    this.ds.records.push(r);
  }
  finish(): Dataset {
    if (this.ds.records.length === 0) {
      if (this.ds.errorCount === 0)
        throw new DatasetError('dataset is empty: expected one {"prompt": ..., "answer": ...} JSON object per line');
      const first = this.ds.errors
        .slice(0, 3)
        .map((e) => `line ${e.line}: ${e.reason}`)
        .join('; ');
      throw new DatasetError(`dataset has no valid records (${this.ds.errorCount} malformed lines; ${first})`);
    }
    return this.ds;
  }
  get maxLineChars() {
    return this.opts.maxLineChars;
  }
}

/** Splits chunked text into lines without ever holding more than one (capped) line. */
class LineSplitter {
  private buf = '';
  private overlong = false;
  constructor(
    private readonly maxLineChars: number,
    private readonly onLine: (text: string, overlong: boolean) => void,
  ) {}
  push(chunk: string) {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      this.append(chunk.slice(start, nl));
      this.emit();
      start = nl + 1;
    }
    this.append(chunk.slice(start));
  }
  end() {
    if (this.buf !== '' || this.overlong) this.emit();
  }
  private append(s: string) {
    if (this.overlong) return;
    if (this.buf.length + s.length > this.maxLineChars + 1) {
      this.overlong = true;
      this.buf = '';
    } else this.buf += s;
  }
  private emit() {
    const text = this.buf.endsWith('\r') ? this.buf.slice(0, -1) : this.buf;
    this.onLine(text, this.overlong || text.length > this.maxLineChars);
    this.buf = '';
    this.overlong = false;
  }
}

/** Parses a whole JSONL text. Throws DatasetError when nothing loads (empty file, all lines bad). */
export function parseDataset(text: string, opts: DatasetOptions = {}): Dataset {
  const c = new Collector(opts);
  const split = new LineSplitter(c.maxLineChars, (t, o) => c.line(t, o));
  split.push(text);
  split.end();
  return c.finish();
}

/** Same as parseDataset, over chunks of text arriving one at a time. */
export async function parseDatasetStream(
  chunks: AsyncIterable<string> | Iterable<string>,
  opts: DatasetOptions = {},
): Promise<Dataset> {
  const c = new Collector(opts);
  const split = new LineSplitter(c.maxLineChars, (t, o) => c.line(t, o));
  for await (const chunk of chunks) split.push(chunk);
  split.end();
  return c.finish();
}

// ---- answer checks -------------------------------------------------------------------------------

export type VerifierKind = 'exact' | 'numeric' | 'regex';
export const VERIFIER_KINDS: VerifierKind[] = ['exact', 'numeric', 'regex'];

export interface CustomVerifierSpec {
  kind: VerifierKind;
  /** Numeric: accepted when |got - want| <= tolerance * max(1, |want|). Default 1e-6. */
  tolerance?: number;
}

function regexError(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_CHARS) return `longer than ${MAX_PATTERN_CHARS} chars`;
  try {
    new RegExp(pattern);
  } catch (err) {
    return `not a valid regular expression (${err instanceof Error ? err.message : String(err)})`;
  }
  return backtrackingRisk(pattern);
}

/**
 * Most unbounded quantifiers (*, +, {n,}) a pattern may have: n^k backtracking on a 200-char answer stays small for k
 * <= 3.
 */
export const MAX_UNBOUNDED_QUANTIFIERS = 3;

/**
 * JavaScript regexes backtrack: a dataset pattern like `(a+)+b` takes seconds on 28 characters of
 * completion text (exponential), `\d*\d*\d*\d*x` grows as n^4. Verifiers must answer in bounded time,
 * so a pattern is refused at load, with the reason, when it repeats a group that contains a variable
 * quantifier or an alternation (`(a+)+`, `(a|ab)*`, `(\d{1,3})+`), or has more than
 * MAX_UNBOUNDED_QUANTIFIERS unbounded quantifiers. Exact counts (`(,\d{3})*`) are fine.
 */
export function backtrackingRisk(pattern: string): string | null {
  // Per open group: does it contain a variable quantifier or an alternation?
  const stack: boolean[] = [false];
  let unbounded = 0;
  let closedRisky = false; // the atom just before is a group that contains one
  let atom = false; // there is an atom a quantifier could apply to
  const mark = () => (stack[stack.length - 1] = true);
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    // What quantifier (if any) starts here: variable (may match different counts) and unbounded?
    let q: { variable: boolean; unbounded: boolean; len: number } | null = null;
    if (ch === '*' || ch === '+') q = { variable: true, unbounded: true, len: 1 };
    else if (ch === '?') q = atom ? { variable: true, unbounded: false, len: 1 } : null;
    else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (m) {
        const lo = Number(m[1]);
        const hi = m[2] === undefined ? lo : m[3] === '' ? Infinity : Number(m[3]);
        q = { variable: hi !== lo, unbounded: hi === Infinity, len: m[0].length };
      }
    }
    if (q && atom) {
      const once = ch === '?' || /^\{[01](,1)?\}/.test(pattern.slice(i)); // at most one repetition
      if (closedRisky && !once)
        return (
          'repeats a group that itself contains a quantifier or an alternation (catastrophic backtracking: ' +
          'some completions would make the verifier hang); simplify the pattern'
        );
      if (q.unbounded && ++unbounded > MAX_UNBOUNDED_QUANTIFIERS)
        return (
          `has more than ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers (* + {n,}): backtracking could ` +
          'make the verifier slow; simplify the pattern'
        );
      if (q.variable) mark();
      i += q.len - 1;
      if (pattern[i + 1] === '?') i++; // lazy
      atom = false;
      closedRisky = false;
      continue;
    }
    closedRisky = false;
    if (ch === '\\') {
      i++;
      atom = true;
    } else if (ch === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      atom = true;
    } else if (ch === '(') {
      stack.push(false);
      if (pattern[i + 1] === '?')
        i +=
          pattern[i + 2] === '<' && pattern[i + 3] !== '=' && pattern[i + 3] !== '!' ? pattern.indexOf('>', i) - i : 2;
      atom = false;
    } else if (ch === ')') {
      const risky = stack.length > 1 ? stack.pop()! : false;
      if (risky) mark();
      closedRisky = risky;
      atom = true;
    } else if (ch === '|') {
      mark();
      atom = false;
    } else atom = true;
  }
  return null;
}

const regexCache = new Map<string, RegExp>();

/** Compiles a dataset author's pattern (never completion text), anchored to match the whole answer. */
function authorRegex(pattern: string): RegExp | string {
  const err = regexError(pattern);
  if (err) return err;
  let re = regexCache.get(pattern);
  if (!re) {
    re = new RegExp(`^(?:${pattern})$`);
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** Decimal, scientific or a/b fraction; spaces and 1,000-style separators allowed. */
export function parseNumber(s: string): number | null {
  let t = s.replace(/\s+/g, '');
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(t)) t = t.replace(/,/g, '');
  if (t.length > 64) return null;
  const frac = /^([+-]?\d+)\/(\d+)$/.exec(t);
  if (frac) {
    const d = Number(frac[2]);
    return d === 0 ? null : Number(frac[1]) / d;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

/** Tested strings are already capped at 200 chars by the verdict plumbing. */
export function checkCustomAnswer(
  spec: CustomVerifierSpec,
  expected: string,
  pattern: string | undefined,
  got: string,
): AnswerCheck {
  const short = JSON.stringify(got.length > 24 ? got.slice(0, 24) + '…' : got);
  switch (spec.kind) {
    case 'exact': {
      const norm = (s: string) => s.trim().replace(/\s+/g, ' ');
      return norm(got) === norm(expected)
        ? { correct: true, reason: 'correct' }
        : { correct: false, reason: `${short} does not match the expected answer` };
    }
    case 'numeric': {
      const want = parseNumber(expected);
      if (want === null) return { correct: false, reason: 'the dataset answer is not a number' };
      const v = parseNumber(got);
      if (v === null) return { correct: false, reason: `${short} is not a number` };
      const tol = spec.tolerance ?? 1e-6;
      return Math.abs(v - want) <= tol * Math.max(1, Math.abs(want))
        ? { correct: true, reason: 'correct (within tolerance)' }
        : { correct: false, reason: `${short} is not within tolerance of the expected value` };
    }
    case 'regex': {
      const re = authorRegex(pattern ?? expected);
      if (typeof re === 'string') return { correct: false, reason: `dataset pattern ${re}` };
      if (got.length > MAX_TESTED_CHARS)
        return { correct: false, reason: `answer longer than ${MAX_TESTED_CHARS} chars` };
      return re.test(got.trim())
        ? { correct: true, reason: 'correct (matches the pattern)' }
        : { correct: false, reason: `${short} does not match the pattern` };
    }
    default:
      return { correct: false, reason: `unknown verifier kind ${JSON.stringify(spec.kind)}` };
  }
}
