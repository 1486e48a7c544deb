/**
 * A run's steps worked on by several readers at once (one per core), each given a share of STEP_SHARE
 * steps at a time, as `rlvr view` shares them over worker threads (src/node/view-search.ts,
 * src/node/view-findings.ts): the page's reader workers for a folder opened with no server
 * (src/ui/state/run-sources.ts). The shares' answers are put back in step order, so a search's hits and
 * count, and the findings' per-step measures, are exactly those of one reader going one step at a time.
 */
import type { FindingsProgress, StepMeasures } from './findings/find.ts';
import { HistogramCounter } from './reward-histogram.ts';
import { KeptHits } from './search-query.ts';
import type { FindingRows, RunProblem, RunQuery, RunSearchHit, RunSearchProgress, RunSearchResult } from './types.ts';

/** Steps a reader is given at a time: small enough to share the work evenly, big enough that messages cost little. */
export const STEP_SHARE = 8;
/** Shares a reader holds at once, so it never waits for the next while an answer travels. */
const SHARES_AHEAD = 2;

/** One reader of the run (a worker), able to search or measure a share of its steps. */
export interface StepReader {
  /** `signal`: the whole search's; a reader may stop its share between steps when it aborts. */
  search(steps: number[], query: RunQuery, options: ShareSearchOptions): Promise<RunSearchResult>;
  measure(steps: number[]): Promise<{ measures: StepMeasures[]; problems: RunProblem[] }>;
}

/** What a share's search is asked beyond its steps and query. */
export interface ShareSearchOptions {
  /** Hits to send back (a sorted query's share sends its best `limit` in the query's order). */
  limit: number;
  /** The whole search's; a reader may stop its share between steps when it aborts. */
  signal?: AbortSignal;
  /** Count the matches' rewards (merged here, the same whatever the split: reward-histogram.ts). */
  histogram?: boolean;
  findingRows?: FindingRows;
}

/** `steps` cut into shares of STEP_SHARE, in order. */
export function shareSteps(steps: readonly number[], size = STEP_SHARE): number[][] {
  const shares: number[][] = [];
  for (let i = 0; i < steps.length; i += size) shares.push(steps.slice(i, i + size));
  return shares;
}

/**
 * Gives each reader SHARES_AHEAD shares, then the next as each answers; `work(reader, id)` does share `id`.
 * Stops giving shares once `signal` aborts (the shares already given finish), or once one fails (and rejects
 * with its error). Resolves false when stopped.
 */
async function share(
  count: number,
  readers: readonly StepReader[],
  work: (reader: StepReader, id: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<boolean> {
  let next = 0;
  let failed = false;
  const lane = async (reader: StepReader) => {
    while (next < count && !signal?.aborted && !failed) {
      try {
        await work(reader, next++);
      } catch (e) {
        failed = true; // the other readers take no more shares
        throw e;
      }
    }
  };
  await Promise.all(readers.flatMap((r) => Array.from({ length: SHARES_AHEAD }, () => lane(r))));
  return !signal?.aborted;
}

export interface SharedSearchOptions {
  limit: number;
  histogram?: boolean;
  findingRows?: FindingRows;
  /** Steps a share (STEP_SHARE by default). */
  shareSize?: number;
  signal?: AbortSignal;
  onProgress?: (p: RunSearchProgress) => void;
}

/** A search over `steps` shared by `readers`: the hits kept and the count are those of one search in order. */
export async function searchShared(
  steps: readonly number[],
  query: RunQuery,
  readers: readonly StepReader[],
  options: SharedSearchOptions,
): Promise<RunSearchResult> {
  const shares = shareSteps(steps, options.shareSize);
  const answers: (RunSearchResult | undefined)[] = [];
  const hitsOf: number[] = [];
  let hits: RunSearchHit[] = [];
  // A sorted query keeps the best `limit` of every share's best `limit` (search-query.ts KeptHits), as
  // rlvr view's threads do (src/node/view-search.ts); the histograms of the shares are merged.
  const sorted = query.sort ? new KeptHits(query, options.limit) : null;
  const histogram = options.histogram ? new HistogramCounter() : null;
  const problems: RunProblem[] = [];
  let count = 0;
  let stepsSearched = 0;
  let putBack = 0;
  let stepsDone = 0;
  let countDone = 0;
  const inOrder = () => {
    for (; answers[putBack]; putBack++) {
      const r = answers[putBack]!;
      answers[putBack] = undefined;
      for (const h of r.hits)
        if (sorted) sorted.offer(h);
        else if (hits.length < options.limit) hits.push(h);
      count += r.count;
      stepsSearched += r.stepsSearched;
      problems.push(...(r.problems ?? []));
    }
  };
  const finished = await share(
    shares.length,
    readers,
    async (reader, id) => {
      // A share needs no more hits than the shares before it that are done leave to keep.
      let before = 0;
      for (let k = 0; k < id; k++) before += hitsOf[k] ?? 0;
      const r = await reader.search(shares[id]!, query, {
        limit: sorted ? options.limit : Math.max(0, options.limit - before),
        signal: options.signal,
        histogram: !!histogram,
        findingRows: options.findingRows,
      });
      if (r.histogram) histogram?.merge(r.histogram);
      answers[id] = r;
      hitsOf[id] = r.hits.length;
      stepsDone += r.stepsSearched;
      countDone += r.count;
      inOrder();
      options.onProgress?.({ done: stepsDone, total: steps.length, hits: countDone });
    },
    options.signal,
  );
  if (sorted) hits = sorted.result();
  return {
    hits,
    count,
    stepsSearched,
    cancelled: !finished,
    problems,
    ...(histogram && { histogram: histogram.result() }),
  };
}

/** Every step's finding measures, in step order, from shares measured by `readers`. */
export async function measureShared(
  steps: readonly number[],
  readers: readonly StepReader[],
  options: { signal?: AbortSignal; onProgress?: (p: FindingsProgress) => void; shareSize?: number } = {},
): Promise<{ measures: StepMeasures[]; problems: RunProblem[]; cancelled: boolean }> {
  const shares = shareSteps(steps, options.shareSize);
  const answers: { measures: StepMeasures[]; problems: RunProblem[] }[] = [];
  let done = 0;
  const finished = await share(
    shares.length,
    readers,
    async (reader, id) => {
      answers[id] = await reader.measure(shares[id]!);
      done += shares[id]!.length;
      options.onProgress?.({ done, total: steps.length });
    },
    options.signal,
  );
  return {
    measures: answers.flatMap((a) => a.measures),
    problems: answers.flatMap((a) => a.problems),
    cancelled: !finished,
  };
}
