/**
 * `rlvr view`'s search over every step of a run, near the files (`GET /search.json`,
 * src/node/view-search-route.ts): the steps are cut into shares of SHARE_STEPS and searched by worker
 * threads, one per core (src/node/search-worker.ts), each reading the step files from disk and matching
 * them with the page's own search (src/runs/opened-run.ts), so the hits are the page's. The shares'
 * results are put back in step order, so the hits kept and the count are exactly those of a search one
 * step at a time; a sorted query's shares each send their first `limit` hits in its order, merged here
 * (src/runs/search-query.ts KeptHits) and sent once all are in, and the shares' histograms are merged
 * (src/runs/reward-histogram.ts), which gives the one-pass search's whatever the split. Stopping (the
 * client went away) cancels the workers' shares between steps and gives them no more. The threads stay
 * for IDLE_MS after a search (starting one, with its TypeScript, takes about a second here), then end.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { textMatcher } from '../runs/opened-run.ts';
import { HistogramCounter } from '../runs/reward-histogram.ts';
import { KeptHits } from '../runs/search-query.ts';
import type {
  FindingRows,
  RunProblem,
  RunQuery,
  RunSearchHit,
  RunSearchProgress,
  RunSearchResult,
} from '../runs/types.ts';
import type { CatalogRun } from './run-catalog.ts';
import type { FromSearchWorker, ToSearchWorker } from './search-worker.ts';
import { ThreadPool } from './thread-pool.ts';

/** Steps a worker is given at a time: small enough to share the work evenly, big enough that messages cost little. */
export const SHARE_STEPS = 8;
/** Shares a worker holds at once, so it never waits for the next while a result travels. */
const SHARES_AHEAD = 2;
/** How long idle threads are kept for the next search. */
export const IDLE_MS = 60_000;

const pool = new ThreadPool(new URL('./search-worker.mjs', import.meta.url), IDLE_MS);
let nextSearch = 1;
/** Shares sent to a worker and not yet answered, over every search (the tests check a cancel stops them). */
let sharesOut = 0;
export const searchSharesInFlight = () => sharesOut;

/** Ends the idle threads now (the server closing, a test's end). */
export function endSearchThreads(): void {
  pool.end();
}

export interface ServerSearchOptions {
  limit: number;
  signal?: AbortSignal;
  onProgress?: (p: RunSearchProgress) => void;
  /** Each kept hit, in step order, as soon as the steps before it are searched. */
  onHit?: (h: RunSearchHit) => void;
  /** Called once the query is accepted, before any work (an answer's status can then be sent). */
  onStart?: () => void;
  /** Threads to use; the machine's cores by default. */
  threads?: number;
  /** Count the matches' rewards (RunSearchOptions.histogram). */
  histogram?: boolean;
  /** For RunQuery.finding: the rows the run's findings of that kind point at. */
  findingRows?: FindingRows;
}

/** Searches `steps` of a served run; throws (before any work) a query the page would refuse (a bad regex). */
export async function searchServedRun(
  run: CatalogRun,
  steps: number[],
  query: RunQuery,
  options: ServerSearchOptions,
): Promise<RunSearchResult> {
  textMatcher(query);
  if (query.finding !== undefined && !options.findingRows)
    throw new Error(`finding=${query.finding} filters by the run's findings, which the search was not given`);
  options.onStart?.();
  const shares: number[][] = [];
  for (let i = 0; i < steps.length; i += SHARE_STEPS) shares.push(steps.slice(i, i + SHARE_STEPS));
  let hits: RunSearchHit[] = [];
  type ShareResult = { hits: RunSearchHit[]; count: number; steps: number; problems: RunProblem[] };
  const results: (ShareResult | undefined)[] = [];
  const sorted = query.sort ? new KeptHits(query, options.limit) : null;
  const histogram = options.histogram ? new HistogramCounter() : null;
  const problems: RunProblem[] = [];
  let count = 0;
  let stepsSearched = 0;
  if (shares.length === 0 || options.signal?.aborted)
    return { hits, count, stepsSearched, cancelled: !!options.signal?.aborted, problems };

  const id = nextSearch++;
  const threads = pool.take(Math.max(1, Math.min(options.threads ?? availableParallelism(), shares.length)));
  const start: ToSearchWorker = {
    type: 'search',
    search: id,
    run: {
      root: run.folder.root,
      segments: run.segments,
      only: run.only,
      name: run.found.name,
      found: run.found,
      listing: run.listing(),
    },
    query,
    limit: options.limit,
    histogram: !!options.histogram,
    findingRows: options.findingRows,
  };
  for (const w of threads) w.postMessage(start);
  let next = 0;
  let putBack = 0;
  let stepsDone = 0;
  let countDone = 0;
  const outstanding = new Map<Worker, number>();
  /** Hits each answered share sent, by share. */
  const hitsOf: number[] = [];
  return await new Promise<RunSearchResult>((resolve, reject) => {
    let finished = false;
    const finish = (f: () => void) => {
      if (finished) return;
      finished = true;
      options.signal?.removeEventListener('abort', onAbort);
      for (const w of threads) {
        w.off('message', onMessage.get(w)!);
        w.off('error', onError);
        w.off('exit', onExit);
        w.postMessage({ type: 'cancel', search: id } satisfies ToSearchWorker);
        sharesOut -= outstanding.get(w) ?? 0;
      }
      pool.done();
      f();
    };
    const answer = (cancelled: boolean): RunSearchResult => {
      if (sorted && !cancelled) {
        hits = sorted.result();
        for (const h of hits) options.onHit?.(h);
      }
      return { hits, count, stepsSearched, cancelled, problems, ...(histogram && { histogram: histogram.result() }) };
    };
    const onAbort = () => finish(() => resolve(answer(true)));
    const onError = (e: Error) => finish(() => reject(e));
    const onExit = () => finish(() => reject(new Error('a search thread ended before the search was done')));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const give = (w: Worker) => {
      if (finished || next >= shares.length) return;
      // A share needs no more hits than the shares before it that are done leave to keep: where those
      // already hold `limit`, it only counts, and sends no hits (each a prompt and a completion) back.
      let before = 0;
      for (let k = 0; k < next; k++) before += hitsOf[k] ?? 0;
      const limit = sorted ? options.limit : Math.max(0, options.limit - before);
      w.postMessage({ type: 'share', search: id, id: next, steps: shares[next++]!, limit } satisfies ToSearchWorker);
      outstanding.set(w, (outstanding.get(w) ?? 0) + 1);
      sharesOut++;
    };
    const inOrder = () => {
      while (results[putBack]) {
        const r = results[putBack]!;
        results[putBack++] = undefined;
        for (const h of r.hits) {
          if (sorted) {
            sorted.offer(h);
            continue;
          }
          if (hits.length >= options.limit) break;
          hits.push(h);
          options.onHit?.(h);
        }
        count += r.count;
        stepsSearched += r.steps;
        problems.push(...r.problems);
      }
    };
    const onMessage = new Map<Worker, (m: FromSearchWorker) => void>();
    for (const w of threads) {
      const listener = (m: FromSearchWorker) => {
        if (finished || m.search !== id) return;
        if (m.type === 'error') return finish(() => reject(new Error(m.message)));
        outstanding.set(w, outstanding.get(w)! - 1);
        sharesOut--;
        results[m.id] = { hits: m.hits, count: m.count, steps: m.steps, problems: m.problems };
        if (m.histogram) histogram?.merge(m.histogram);
        hitsOf[m.id] = m.hits.length;
        stepsDone += m.steps;
        countDone += m.count;
        inOrder();
        options.onProgress?.({ done: stepsDone, total: steps.length, hits: countDone });
        if (putBack === shares.length) return finish(() => resolve(answer(false)));
        give(w);
      };
      onMessage.set(w, listener);
      w.on('message', listener);
      w.on('error', onError);
      w.on('exit', onExit);
      for (let k = 0; k < SHARES_AHEAD; k++) give(w);
    }
  });
}
