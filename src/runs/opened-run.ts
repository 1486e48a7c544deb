/**
 * The part of an opened run that is the same for every format: a step's rows grouped (consecutive rows
 * sharing a prompt), each group's mean and std, search over every step one step at a time, and refresh.
 * A format's reader supplies only a RunSource: its index and one step's rows.
 */
import { RunReadError, why } from './files.ts';
import { nearestStep } from './nearest-step.ts';
import { type RawTextFilter, rawTextFilter } from './raw-prefilter.ts';
import { HistogramCounter } from './reward-histogram.ts';
import { findingRowSet, KeptHits, passes } from './search-query.ts';
import type {
  OpenedRun,
  RunCompletion,
  RunGroup,
  RunIndex,
  RunProblem,
  RunQuery,
  RunSearchHit,
  RunSearchOptions,
  RunSearchResult,
  RunStep,
} from './types.ts';

export interface StepRows {
  rows: RunCompletion[];
  /** Where the writer numbers its groups (a record): each row's group, so two groups of one prompt stay apart. */
  groupOf?: number[];
  problems: RunProblem[];
}

/** What a format's reader provides. */
export interface RunSource {
  /** Reads (first call) or updates (later calls: files listed again, only what is new read) the index. */
  index(): Promise<RunIndex>;
  /**
   * One step's rows in file order. Throws RunReadError when the step's file cannot be read at all. With
   * `filter` (a search's raw-text prefilter, raw-prefilter.ts), a reader that can apply it may answer no
   * rows for a step whose bytes cannot match; a reader that cannot ignores it.
   */
  readRows(step: number, filter?: RawTextFilter): Promise<StepRows>;
  /**
   * These steps will be read next (a search): the source may start reading their files together
   * (RunFiles.readMany). Optional; a failed prefetch leaves each step to its own read.
   */
  prefetch?(steps: number[]): void;
  /**
   * For a search that keeps no more hits and whose query is plain text alone (`countsByText`): how many
   * of the step's rows the page's search would count, without building them; or, where the reader cannot
   * be sure of that (or the step has problems to report), the step's rows as readRows gives them. Optional.
   */
  countText?(step: number, query: RunQuery): Promise<number | StepRows>;
}

/** Whether a query is a plain text and nothing else: a step's count then needs only its text (RunSource.countText). */
export const countsByText = (query: RunQuery): boolean =>
  !query.regex &&
  !!query.text &&
  Object.entries(query).every(([k, v]) => v === undefined || k === 'text' || k === 'in' || k === 'regex');

/** Mean and sample (n − 1) std of the finite values; NaN rewards (every function returned None) are left out. */
export function meanStd(values: number[]): { mean: number; std: number } {
  const xs = values.filter((v) => Number.isFinite(v));
  if (xs.length === 0) return { mean: Number.NaN, std: Number.NaN };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { mean, std: 0 };
  const ss = xs.reduce((a, b) => a + (b - mean) * (b - mean), 0);
  return { mean, std: Math.sqrt(ss / (xs.length - 1)) };
}

/**
 * Consecutive rows sharing a prompt form a group (TRL writes num_generations rows per prompt; veRL repeats
 * each prompt rollout.n times, interleaved). Where the writer does not number its groups (`groupOf`), a run
 * of one prompt that is a whole multiple (2 or more) of the usual group size is two groups of a prompt the
 * dataset holds twice, sampled back to back, and is split so.
 */
export function groupRows(rows: RunCompletion[], groupOf?: number[]): RunGroup[] {
  const runs: RunCompletion[][] = [];
  rows.forEach((row, i) => {
    const last = runs[runs.length - 1];
    if (last && last[0]!.prompt === row.prompt && (!groupOf || groupOf[i] === groupOf[i - 1])) last.push(row);
    else runs.push([row]);
  });
  const size = groupOf ? 0 : usualSize(runs.map((r) => r.length));
  const groups: RunGroup[] = [];
  for (const run of runs) {
    const parts = size > 0 && run.length > size && run.length % size === 0 ? run.length / size : 1;
    for (let k = 0; k < parts; k++) {
      const completions = run.slice((k * run.length) / parts, ((k + 1) * run.length) / parts);
      groups.push({
        index: groups.length,
        prompt: run[0]!.prompt,
        completions,
        ...meanStd(completions.map((c) => c.reward)),
      });
    }
  }
  return groups;
}

/** The most common run length, when at least half the runs have it (else 0: no usual size to split by). */
function usualSize(lengths: number[]): number {
  const counts = new Map<number, number>();
  for (const n of lengths) counts.set(n, (counts.get(n) ?? 0) + 1);
  const [size, count] = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] ?? [0, 0];
  return size > 1 && count * 2 >= lengths.length ? size : 0;
}

/** Adds problems not already listed (the same file, place and message). */
export function addProblems(into: RunProblem[], found: RunProblem[]): void {
  const seen = new Set(into.map(problemKey));
  for (const p of found) {
    if (!seen.has(problemKey(p))) {
      seen.add(problemKey(p));
      into.push(p);
    }
  }
}
const problemKey = (p: RunProblem) => `${p.file}\u0000${p.line ?? ''}\u0000${p.row ?? ''}\u0000${p.message}`;

/** Notes missing steps where the steps are evenly spaced but for a few gaps (veRL 1, 2, 4: step 3 is missing). */
export function missingSteps(steps: number[]): number[] {
  if (steps.length < 3) return [];
  const diffs = new Map<number, number>();
  for (let i = 1; i < steps.length; i++) {
    const d = steps[i]! - steps[i - 1]!;
    diffs.set(d, (diffs.get(d) ?? 0) + 1);
  }
  const stride = [...diffs.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  if (stride <= 0) return [];
  const missing: number[] = [];
  for (let i = 1; i < steps.length && missing.length < 1000; i++) {
    const d = steps[i]! - steps[i - 1]!;
    if (d > stride && d % stride === 0)
      for (let s = steps[i - 1]! + stride; s < steps[i]! && missing.length < 1000; s += stride) missing.push(s);
  }
  return missing;
}

/** A matcher for a query's text, or a thrown Error naming what is wrong with the regular expression. */
export function textMatcher(query: RunQuery): ((s: string) => boolean) | null {
  if (query.text === undefined || query.text === '') return null;
  if (query.regex) {
    let re: RegExp;
    try {
      re = new RegExp(query.text, 'u');
    } catch (e) {
      throw new Error(`not a valid regular expression: /${query.text}/ (${why(e)})`);
    }
    return (s) => re.test(s);
  }
  const needle = query.text.toLowerCase();
  return (s) => s.toLowerCase().includes(needle);
}

/** Hits a search keeps when not told how many (RunSearchOptions.limit). */
export const DEFAULT_SEARCH_LIMIT = 1000;
/** How many steps a search reads at once (a browser opens at most 6 connections to one server). */
export const SEARCH_READS_IN_FLIGHT = 6;
/** How many steps a search asks its source to prefetch together (RunSource.prefetch): one request. */
export const SEARCH_PREFETCH_STEPS = 32;
/**
 * How many batches of SEARCH_PREFETCH_STEPS are asked for ahead of the steps being read, so the next
 * batches' requests are under way while one is decoded (with one batch ahead, the reader waited on each
 * request in turn: about 40% of a TRL search at 100 MB was the worker idle).
 */
export const SEARCH_PREFETCH_BATCHES = 3;

/** How a run is opened. */
export interface OpenOptions {
  /**
   * The step the page will show first (a link's step, or -Infinity for the run's first step): the step
   * nearest to it is read as soon as the index is, and the page's readStep of it takes that read, instead
   * of waiting until the page has taken in the index and asked (a link's first view, docs/viewer.md).
   */
  firstStep?: number;
}

/** Wraps a source into an OpenedRun; the index object is the one the source keeps up to date. */
export async function openSource(source: RunSource, options: OpenOptions = {}): Promise<OpenedRun> {
  let index = await source.index();
  // Problems found while reading steps stay listed after a refresh rebuilds the index.
  const readProblems: RunProblem[] = [];
  // The index's steps as a set (a run of 15,000 steps was searched a scan of its steps a step).
  let known = { steps: index.steps, set: new Set(index.steps) };
  const hasStep = (step: number): boolean => {
    if (known.steps !== index.steps) known = { steps: index.steps, set: new Set(index.steps) };
    return known.set.has(step);
  };
  async function readStep(step: number): Promise<RunStep> {
    if (first?.step === step) {
      const taken = first.read;
      first = null;
      return taken;
    }
    return stepOf(step, await readStepRows(step));
  }
  /** The first step's read, begun before the page asks for it (OpenOptions.firstStep); taken once. */
  let first: { step: number; read: Promise<RunStep> } | null = null;
  const firstStep = options.firstStep === undefined ? null : nearestStep(index.steps, options.firstStep);
  if (firstStep !== null) {
    first = { step: firstStep, read: readStepRows(firstStep).then((rows) => stepOf(firstStep, rows)) };
    first.read.catch(() => undefined); // the page's readStep sees a failure
  }
  /** A step's rows, a failed read turned into a problem; nothing is added to the index yet. */
  async function readStepRows(step: number, filter?: RawTextFilter): Promise<StepRows> {
    if (!hasStep(step)) {
      const shown = index.steps.length > 8 ? `${index.steps.slice(0, 8).join(', ')}, …` : index.steps.join(', ');
      const range = index.steps.length ? `its steps are ${shown}` : 'it has no steps';
      throw new RunReadError(index.name, `${index.name}: there is no step ${step} (${range})`);
    }
    let rows: StepRows;
    try {
      rows = await source.readRows(step, filter);
    } catch (e) {
      const file = e instanceof RunReadError ? e.file : index.name;
      rows = { rows: [], problems: [{ file, message: why(e) }] };
    }
    return rows;
  }
  /** A step's groups; its problems join the index's (in step order, however many steps are read at once). */
  function stepOf(step: number, rows: StepRows): RunStep {
    addProblems(readProblems, rows.problems);
    addProblems(index.problems, rows.problems);
    return { step, groups: groupRows(rows.rows, rows.groupOf), problems: rows.problems };
  }
  async function search(query: RunQuery, options: RunSearchOptions = {}): Promise<RunSearchResult> {
    const match = textMatcher(query);
    const where = query.in ?? 'both';
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    const filter = options.rawPrefilter ? (rawTextFilter(query) ?? undefined) : undefined;
    const steps = options.steps ? options.steps.filter(hasStep) : [...index.steps];
    if (query.finding !== undefined && !options.findingRows)
      throw new Error(`finding=${query.finding} filters by the run's findings, which the search was not given`);
    const marked = options.findingRows && query.finding !== undefined ? findingRowSet(options.findingRows) : undefined;
    // Sorted, the hits kept are the first `limit` in the query's order, from every match; else the first found.
    const sorted = query.sort ? new KeptHits(query, limit) : null;
    let hits: RunSearchHit[] = [];
    const histogram = options.histogram ? new HistogramCounter() : null;
    const answer = (cancelled: boolean): RunSearchResult => {
      if (sorted) hits = sorted.result();
      return {
        hits,
        count,
        stepsSearched: done,
        cancelled,
        problems,
        ...(histogram && { histogram: histogram.result() }),
      };
    };
    const problems: RunProblem[] = [];
    let count = 0;
    let done = 0;
    // Once the hits kept are full, a step of a plain-text query is only counted, where its reader can (not
    // when the matches' rewards are counted too: that needs their rows).
    const countText = countsByText(query) && !histogram ? source.countText : undefined;
    const readCount = async (step: number): Promise<number | StepRows> => {
      try {
        return await countText!(step, query);
      } catch {
        return readStepRows(step); // the failure, read again, becomes the step's problem
      }
    };
    // Steps are read a few at a time (reads are mostly waiting: a served run answers each over HTTP) and
    // matched in step order, so hits, counts and progress come out as a one-at-a-time search gives them.
    const reading: Promise<number | StepRows>[] = [];
    let next = 0;
    let prefetched = 0;
    const readAhead = () => {
      // Where each read is a request, the next steps' files come together, a batch at a time.
      const ahead = next + SEARCH_READS_IN_FLIGHT + (SEARCH_PREFETCH_BATCHES - 1) * SEARCH_PREFETCH_STEPS;
      while (source.prefetch && prefetched < Math.min(ahead, steps.length) && !options.signal?.aborted) {
        source.prefetch(steps.slice(prefetched, prefetched + SEARCH_PREFETCH_STEPS));
        prefetched += SEARCH_PREFETCH_STEPS;
      }
      while (next < steps.length && reading.length < SEARCH_READS_IN_FLIGHT && !options.signal?.aborted) {
        const s = countText && hits.length >= limit ? readCount(steps[next++]!) : readStepRows(steps[next++]!, filter);
        s.catch(() => undefined); // awaited in order below; a failure is seen there
        reading.push(s);
      }
    };
    for (const step of steps) {
      if (options.signal?.aborted) return answer(true);
      readAhead();
      const read = await reading.shift()!;
      if (typeof read === 'number') {
        count += read;
        done++;
        options.onProgress?.({ done, total: steps.length, hits: count });
        continue;
      }
      const s = stepOf(step, read);
      problems.push(...s.problems);
      for (const g of s.groups) {
        for (const c of g.completions) {
          if (!passes(query, g, c)) continue;
          if (marked && !marked.get(step)?.has(c.row)) continue;
          if (match && !((where !== 'completion' && match(c.prompt)) || (where !== 'prompt' && match(c.completion))))
            continue;
          count++;
          histogram?.add(c.reward);
          if (sorted || hits.length < limit) {
            const hit: RunSearchHit = {
              step,
              group: g.index,
              row: c.row,
              prompt: c.prompt,
              completion: c.completion,
              reward: c.reward,
              advantage: c.advantage,
              length: c.length,
              rewards: c.rewards,
              ...(c.truncated !== undefined && { truncated: c.truncated }),
            };
            if (sorted) sorted.offer(hit);
            else hits.push(hit);
          }
        }
      }
      done++;
      options.onProgress?.({ done, total: steps.length, hits: count });
    }
    return answer(false);
  }
  return {
    get index() {
      return index;
    },
    readStep,
    search,
    async refresh() {
      index = await source.index();
      addProblems(index.problems, readProblems);
      return index;
    },
  };
}
