/**
 * The part shared by the readers of frameworks that write JSON lines in files named by step (NeMo-RL,
 * prime-rl, ROLL, AReaL): the step files are found by their names when the folder is listed, a step's
 * files are scanned in chunks when the step is read (lines.ts), and each parsed line becomes rows through
 * the format's own mapping. A file that grows (prime-rl and AReaL append as episodes complete) is read to
 * the size it had at the last listing, so refresh() shows the lines and steps added since; a last line
 * with no newline that is not whole JSON is one still being written, and becomes a problem only when the
 * file has stopped growing between two listings.
 */
import { RunReadError, why } from './files.ts';
import { firstJsonLine, scanJsonLines } from './lines.ts';
import { missingSteps, type RunSource, type StepRows } from './opened-run.ts';
import type {
  MetricPoint,
  RunCompletion,
  RunFileEntry,
  RunFiles,
  RunFormat,
  RunIndex,
  RunProblem,
  TokenChannels,
} from './types.ts';

/** A row a line gives, before its position in the step is known; `group` keeps writer-numbered groups apart. */
export interface LineRow {
  completion: Omit<RunCompletion, 'row'>;
  group?: string;
}

/** What a format supplies. */
export interface StepLinesFormat {
  format: RunFormat;
  /** The step a listed file belongs to, and its order among the step's files; null for other files. */
  stepOf(path: string): { step: number; order: number } | null;
  /** The rows of one parsed line, or what is wrong with it (the caller adds the file and line). */
  rowsOf(value: unknown, file: string): LineRow[] | string;
  /** Reward names a first line shows, to list before any step is read. */
  rewardNamesOf?(value: Record<string, unknown>): string[];
  /** Which of a step's files to read, where a step has alternatives (prime-rl's effective over all). */
  chooseFiles?(paths: string[]): string[];
  notes: string[];
  /** Curves the run logged elsewhere (prime-rl's metrics.jsonl); problems go to the list given. */
  metrics?(files: RunFiles, listed: RunFileEntry[], problems: RunProblem[]): Promise<MetricPoint[]>;
  maxLineBytes?: number;
  /** A token id's text, where the run's tokenizer is known (token-pieces.ts). */
  tokenText?: (ids: number[]) => string[];
  /** Problems found before the source was made (an unusable tokenizer.json), listed in every index. */
  problems?: RunProblem[];
}

/** A list of numbers, or undefined where the value is not one. */
export const numberList = (v: unknown): number[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined;

/** Token ids as text where no tokenizer is given: each id in brackets (docs/run-formats.md). */
export const idsAsText = (ids: number[]): string[] => ids.map((id) => `[${id}]`);

/** The channels of a completion's tokens, the texts from the tokenizer when one is given. */
export function tokenChannels(
  ids: number[],
  text: ((ids: number[]) => string[]) | undefined,
  more: Omit<TokenChannels, 'text' | 'ids'> = {},
): TokenChannels {
  return { text: text ? text(ids) : idsAsText(ids), ids, ...more };
}

export function stepLinesSource(files: RunFiles, name: string, format: StepLinesFormat): RunSource {
  let byStep = new Map<number, { path: string; size: number; order: number }[]>();
  const rewardNames: string[] = [];
  /** Files whose last line was not complete when read: their size then, and the line. */
  const pending = new Map<string, { size: number; line: number }>();
  let peeked = false;

  async function index(): Promise<RunIndex> {
    const problems: RunProblem[] = [...(format.problems ?? [])];
    const listed = await files.list();
    const next = new Map<number, { path: string; size: number; order: number }[]>();
    for (const f of listed) {
      const at = format.stepOf(f.path);
      if (!at) continue;
      next.set(at.step, [...(next.get(at.step) ?? []), { path: f.path, size: f.size, order: at.order }]);
    }
    for (const [step, list] of next) {
      list.sort((a, b) => a.order - b.order || a.path.localeCompare(b.path));
      const chosen = format.chooseFiles ? format.chooseFiles(list.map((f) => f.path)) : null;
      if (chosen)
        next.set(
          step,
          list.filter((f) => chosen.includes(f.path)),
        );
    }
    byStep = next;
    for (const list of byStep.values()) {
      for (const f of list) {
        const p = pending.get(f.path);
        if (p && p.size === f.size)
          problems.push({
            file: f.path,
            line: p.line,
            message:
              `${f.path} line ${p.line}: the last line has no newline and is not whole JSON, and the file ` +
              `has stopped growing; expected one JSON object per line`,
          });
      }
    }
    const steps = [...byStep.keys()].sort((a, b) => a - b);
    for (const s of missingSteps(steps))
      problems.push({ file: name, message: `${name}: no files for step ${s}, between the steps before and after it` });
    if (!peeked && steps.length && format.rewardNamesOf) {
      const first = byStep.get(steps[0]!)![0]!;
      try {
        const line = await firstJsonLine(files, first.path, first.size);
        if (line) for (const k of format.rewardNamesOf(line)) if (!rewardNames.includes(k)) rewardNames.push(k);
        peeked = true;
      } catch (e) {
        problems.push({ file: first.path, message: why(e) });
      }
    }
    const metrics = format.metrics ? await format.metrics(files, listed, problems) : [];
    return { name, format: format.format, steps, metrics, rewardNames, problems, notes: [...format.notes] };
  }

  async function readRows(step: number): Promise<StepRows> {
    const list = byStep.get(step);
    if (!list) throw new RunReadError(name, `${name}: no files for step ${step}`);
    const rows: RunCompletion[] = [];
    const groupOf: number[] = [];
    const groupIds = new Map<string, number>();
    const problems: RunProblem[] = [];
    let numbered = false;
    for (const file of list) {
      const result = await scanJsonLines(
        files,
        file.path,
        { end: file.size, ...(format.maxLineBytes ? { maxLineBytes: format.maxLineBytes } : {}) },
        ({ line, value }) => {
          let got: LineRow[] | string;
          try {
            got = format.rowsOf(value, file.path);
          } catch (e) {
            got = why(e);
          }
          if (typeof got === 'string') {
            problems.push({ file: file.path, line, message: `${file.path} line ${line}: ${got}` });
            return;
          }
          for (const r of got) {
            for (const k of Object.keys(r.completion.rewards)) if (!rewardNames.includes(k)) rewardNames.push(k);
            if (r.group !== undefined) numbered = true;
            const key = `${file.path}\u0000${r.group ?? ''}`;
            if (!groupIds.has(key)) groupIds.set(key, groupIds.size);
            groupOf.push(groupIds.get(key)!);
            rows.push({ ...r.completion, row: rows.length });
          }
        },
        (p) => problems.push(p),
      );
      if (result.pending) pending.set(file.path, { size: file.size, line: result.pending.line });
      else pending.delete(file.path);
    }
    // Where the writer numbers no groups, consecutive rows sharing a prompt are one (opened-run.ts).
    return numbered ? { rows, groupOf, problems } : { rows, problems };
  }

  return { index, readRows };
}
