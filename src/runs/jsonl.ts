/**
 * The documented JSONL (docs/run-formats.md): one line per completion,
 *   {"step", "prompt", "completion", "rewards": {name: number}, "reward"?, "advantage"?, "truncated"?,
 *    "tokens"?: [string, ...] | {"text": [...], "ids"?: [...], "logprobs"?: [...], "newLogprobs"?: [...],
 *    "refLogprobs"?: [...], "entropy"?: [...]}, "logprobs"?: [...]}
 * A step's lines are consecutive; a completion's group is the consecutive lines sharing its prompt.
 *
 * Indexing scans the file once in chunks and keeps, per step, the byte ranges of its lines; a step is
 * read again from those ranges when asked. A file that grows is scanned on from where the last complete
 * line ended.
 */
import { asText, isRecord, RunReadError, toNumber } from './files.ts';
import { scanJsonLines } from './lines.ts';
import { missingSteps, type RunSource, type StepRows } from './opened-run.ts';
import type { RunCompletion, RunFiles, RunIndex, RunProblem, TokenChannels } from './types.ts';

/** Whether a parsed first line is the documented JSONL. */
export const isDocumentedLine = (v: Record<string, unknown> | null): boolean =>
  v !== null && 'step' in v && 'prompt' in v && 'completion' in v && 'rewards' in v;

const known = new Set([
  'step',
  'prompt',
  'completion',
  'rewards',
  'reward',
  'advantage',
  'truncated',
  'tokens',
  'logprobs',
]);
const expected =
  'expected {"step": number, "prompt": text, "completion": text, "rewards": {name: number}} (docs/run-formats.md)';

const numbers = (v: unknown): number[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined;

/** The `tokens` field (a list of token texts, or {text, ids?, logprobs?, …}) and a top-level `logprobs`. */
function tokenChannels(line: Record<string, unknown>): TokenChannels | undefined {
  const t = line.tokens;
  let channels: TokenChannels | undefined;
  if (Array.isArray(t) && t.every((x) => typeof x === 'string')) channels = { text: t as string[] };
  else if (isRecord(t) && Array.isArray(t.text) && t.text.every((x) => typeof x === 'string')) {
    channels = { text: t.text as string[] };
    const ids = numbers(t.ids);
    const logprobs = numbers(t.logprobs);
    if (ids) channels.ids = ids;
    if (logprobs) channels.logprobs = logprobs;
    // The trainer's log-probs, the reference's and the entropy per token (docs/run-formats.md).
    for (const k of ['newLogprobs', 'refLogprobs', 'entropy'] as const) {
      const xs = numbers(t[k]);
      if (xs) channels[k] = xs;
    }
  }
  const top = numbers(line.logprobs);
  if (channels && top && !channels.logprobs) channels.logprobs = top;
  return channels;
}

/** One documented line as a completion, or why it is not one. */
export function documentedCompletion(path: string, line: number, row: number, v: unknown): RunCompletion | RunProblem {
  if (!isRecord(v)) return { file: path, line, message: `${path} line ${line}: not an object; ${expected}` };
  const bad = (what: string): RunProblem => ({
    file: path,
    line,
    message: `${path} line ${line}: ${what}; ${expected}`,
  });
  if (typeof v.completion !== 'string') return bad('"completion" is missing or not text');
  if (v.prompt === undefined) return bad('"prompt" is missing');
  if (!isRecord(v.rewards)) return bad('"rewards" is missing or not an object');
  const rewards: Record<string, number> = {};
  for (const [k, x] of Object.entries(v.rewards)) {
    const n = toNumber(x);
    if (n === undefined && x !== null) return bad(`reward "${k}" is ${JSON.stringify(x)}, not a number`);
    rewards[k] = n ?? Number.NaN;
  }
  const finite = Object.values(rewards).filter((x) => !Number.isNaN(x));
  const reward = toNumber(v.reward) ?? (finite.length ? finite.reduce((a, b) => a + b, 0) : Number.NaN);
  const tokens = tokenChannels(v);
  const extra: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!known.has(k)) extra[k] = x;
  const advantage = toNumber(v.advantage);
  return {
    row,
    prompt: asText(v.prompt),
    completion: v.completion,
    rewards,
    reward,
    ...(advantage !== undefined ? { advantage } : {}),
    length: tokens ? tokens.text.length : v.completion.length,
    lengthUnit: tokens ? 'tokens' : 'chars',
    ...(typeof v.truncated === 'boolean' ? { truncated: v.truncated } : {}),
    ...(tokens ? { tokens } : {}),
    extra,
  };
}

interface Range {
  start: number;
  end: number;
  firstLine: number;
}

/** The documented-JSONL reader over one file (`path` in `files`). */
export function jsonlSource(files: RunFiles, path: string, name: string): RunSource {
  let ranges = new Map<number, Range[]>();
  let scanned = { next: 0, nextLine: 1, size: -1 };
  let lastStep: number | null = null;
  let problems: RunProblem[] = [];
  let notes: string[] = [];
  const rewardNames: string[] = [];

  async function index(): Promise<RunIndex> {
    const entry = (await files.list()).find((f) => f.path === path);
    if (!entry) throw new RunReadError(path, `${path}: the file is no longer there`);
    if (entry.size < scanned.size) {
      // Rewritten shorter: start over.
      ranges = new Map();
      scanned = { next: 0, nextLine: 1, size: -1 };
      lastStep = null;
      problems = [];
    }
    notes = [];
    if (entry.size !== scanned.size) {
      const result = await scanJsonLines(
        files,
        path,
        { start: scanned.next, firstLine: scanned.nextLine, end: entry.size },
        ({ line, start, end, value }) => {
          const step = isRecord(value) ? toNumber(value.step) : undefined;
          if (step === undefined || !Number.isInteger(step)) {
            problems.push({ file: path, line, message: `${path} line ${line}: no whole-number "step"; ${expected}` });
            return;
          }
          if (isRecord(value) && isRecord(value.rewards))
            for (const k of Object.keys(value.rewards)) if (!rewardNames.includes(k)) rewardNames.push(k);
          const list = ranges.get(step) ?? [];
          const last = list[list.length - 1];
          if (last && lastStep === step) last.end = end;
          else {
            if (list.length) {
              problems.push({
                file: path,
                line,
                message:
                  `${path} line ${line}: step ${step} again, after lines of step ${lastStep}; a step's ` +
                  `lines are expected together (read as part of step ${step})`,
              });
            }
            list.push({ start, end, firstLine: line });
            ranges.set(step, list);
          }
          lastStep = step;
        },
        (p) => problems.push(p),
      );
      scanned = { next: result.next, nextLine: result.nextLine, size: entry.size };
      if (result.pending) {
        notes.push(
          `${path} line ${result.pending.line} is not complete yet (no newline, not whole JSON); it is read ` +
            `once the writer finishes it.`,
        );
      }
    }
    const steps = [...ranges.keys()].sort((a, b) => a - b);
    const all = [...problems];
    for (const s of missingSteps(steps))
      all.push({ file: path, message: `${path}: no lines for step ${s}, between the steps before and after it` });
    return { name, format: 'jsonl', steps, metrics: [], rewardNames, problems: all, notes };
  }

  async function readRows(step: number): Promise<StepRows> {
    const list = ranges.get(step);
    if (!list) throw new RunReadError(path, `${path}: no lines for step ${step}`);
    const rows: RunCompletion[] = [];
    const found: RunProblem[] = [];
    for (const r of list) {
      await scanJsonLines(
        files,
        path,
        { start: r.start, firstLine: r.firstLine, end: r.end },
        ({ line, value }) => {
          if (isRecord(value) && value.step !== step) return; // a line skipped at indexing (no step) is not this step's
          const c = documentedCompletion(path, line, rows.length, value);
          if ('message' in c) found.push(c);
          else rows.push(c);
        },
        (p) => found.push(p),
      );
    }
    return { rows, problems: found };
  }

  return { index, readRows };
}
