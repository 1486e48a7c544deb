/**
 * Completion format: splits a completion into its thinking and answer parts and decides the
 * format component. Scans with indexOf only, over a capped length, so any input is cheap.
 */

export interface FormatSpec {
  thinkTag: string;
  answerTag: string;
  /** When false a bare <answer>…</answer> is well-formed too. */
  requireThink: boolean;
}

export const DEFAULT_FORMAT: FormatSpec = { thinkTag: 'think', answerTag: 'answer', requireThink: true };

/** Completions longer than this are judged "too long" without being scanned further. */
export const MAX_COMPLETION_CHARS = 4096;

/** The special tokens of the tokenizer: each counts as one token. */
export const SPECIAL_TAGS = ['<think>', '</think>', '<answer>', '</answer>'] as const;

export interface ParsedCompletion {
  /** Follows the spec exactly (optional surrounding whitespace aside). */
  wellFormed: boolean;
  /** Body of the first think block, when there is one. */
  think: string | null;
  /** Body of the first complete answer block, trimmed; null when there is none. */
  answer: string | null;
  /** Why it is not well-formed, or "ok". */
  reason: string;
  tooLong: boolean;
}

function tags(spec: FormatSpec) {
  return {
    thinkOpen: `<${spec.thinkTag}>`,
    thinkClose: `</${spec.thinkTag}>`,
    answerOpen: `<${spec.answerTag}>`,
    answerClose: `</${spec.answerTag}>`,
  };
}

export function formatCompletion(think: string, answer: string, spec: FormatSpec = DEFAULT_FORMAT): string {
  const t = tags(spec);
  return `${t.thinkOpen}${think}${t.thinkClose}${t.answerOpen}${answer}${t.answerClose}`;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function trimAscii(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

function countOf(s: string, needle: string): number {
  let n = 0;
  for (let i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function parseCompletion(text: string, spec: FormatSpec = DEFAULT_FORMAT): ParsedCompletion {
  if (typeof text !== 'string')
    return { wellFormed: false, think: null, answer: null, reason: 'completion is not text', tooLong: false };
  if (text.length > MAX_COMPLETION_CHARS) {
    return {
      wellFormed: false,
      think: null,
      answer: null,
      reason: `too long (${text.length} chars > ${MAX_COMPLETION_CHARS})`,
      tooLong: true,
    };
  }
  const t = tags(spec);
  const s = trimAscii(text);

  let answer: string | null = null;
  const ao = s.indexOf(t.answerOpen);
  const ac = ao >= 0 ? s.indexOf(t.answerClose, ao + t.answerOpen.length) : -1;
  if (ao >= 0 && ac >= 0) answer = trimAscii(s.slice(ao + t.answerOpen.length, ac));

  let think: string | null = null;
  const to = s.indexOf(t.thinkOpen);
  const tc = to >= 0 ? s.indexOf(t.thinkClose, to + t.thinkOpen.length) : -1;
  if (to >= 0 && tc >= 0) think = s.slice(to + t.thinkOpen.length, tc);

  const fail = (reason: string): ParsedCompletion => ({ wellFormed: false, think, answer, reason, tooLong: false });
  if (ao < 0) return fail(`no ${t.answerOpen} tag`);
  if (ac < 0) return fail(`unclosed ${t.answerOpen}`);

  const all = [t.thinkOpen, t.thinkClose, t.answerOpen, t.answerClose];
  const hasThink = to >= 0 || s.indexOf(t.thinkClose) >= 0;
  if (!hasThink && spec.requireThink) return fail(`missing ${t.thinkOpen}…${t.thinkClose} block`);
  for (const tag of all) {
    const expected = tag === t.answerOpen || tag === t.answerClose ? 1 : hasThink ? 1 : 0;
    const n = countOf(s, tag);
    if (n > expected) return fail(n > 1 ? `more than one ${tag}` : `stray ${tag}`);
    if (n < expected) return fail(`missing ${tag}`);
  }
  let pos = 0;
  if (hasThink) {
    if (to !== 0) return fail(`text before ${t.thinkOpen}`);
    if (tc < 0 || tc > ao) return fail(`${t.thinkClose} must come before ${t.answerOpen}`);
    pos = tc + t.thinkClose.length;
    if (trimAscii(s.slice(pos, ao)) !== '') return fail(`text between ${t.thinkClose} and ${t.answerOpen}`);
  } else if (ao !== 0) {
    return fail(`text before ${t.answerOpen}`);
  }
  if (ac + t.answerClose.length !== s.length) return fail(`text after ${t.answerClose}`);
  return { wellFormed: true, think, answer, reason: 'ok', tooLong: false };
}

/** Token count under the playground tokenizer: one per character, one per special tag. */
export function countTokens(text: string): number {
  let n = text.length;
  for (const tag of SPECIAL_TAGS) n -= countOf(text, tag) * (tag.length - 1);
  return n;
}

/** True when every character is printable ASCII or '\n' (what the tokenizer knows). */
export function isTokenizable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && (c < 32 || c > 126)) return false;
  }
  return true;
}

/** Quotes a snippet of untrusted text for a verdict reason: short and printable. */
export function quote(text: string, max = 24): string {
  let out = '';
  for (let i = 0; i < text.length && out.length < max; i++) {
    const c = text.charCodeAt(i);
    out += c >= 32 && c <= 126 ? text[i] : '?';
  }
  return JSON.stringify(text.length > max ? out + '…' : out);
}
