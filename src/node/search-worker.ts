/**
 * One thread of a server search (src/node/view-search.ts). For each search it opens the run with the
 * readers (src/runs) over its served folder, reading through the same path checks as every other read of
 * `rlvr view` (src/node/served-folder.ts) and starting from the listing the server already has; then it
 * searches the shares of steps it is sent, one after another, with the page's own search
 * (src/runs/opened-run.ts) and the raw-text prefilter (src/runs/raw-prefilter.ts). A cancel stops the
 * search's share between steps and drops its later shares.
 */
import { parentPort } from 'node:worker_threads';
import { openRun } from '../runs/detect.ts';
import type {
  FindingRows,
  FoundRun,
  OpenedRun,
  RewardHistogram,
  RunFileEntry,
  RunProblem,
  RunQuery,
  RunSearchHit,
} from '../runs/types.ts';
import { ServedFolder } from './served-folder.ts';

/** The run a search is over: the served folder's realpath, its folder under it, its files as listed. */
export interface SearchRunSpec {
  root: string;
  segments: string[];
  only?: string;
  name: string;
  found: FoundRun;
  listing: RunFileEntry[];
}

export type ToSearchWorker =
  | {
      type: 'search';
      search: number;
      run: SearchRunSpec;
      query: RunQuery;
      limit: number;
      histogram: boolean;
      findingRows?: FindingRows;
    }
  | { type: 'share'; search: number; id: number; steps: number[]; limit: number }
  | { type: 'cancel'; search: number };
export type FromSearchWorker =
  | {
      type: 'share';
      search: number;
      id: number;
      hits: RunSearchHit[];
      count: number;
      steps: number;
      problems: RunProblem[];
      histogram?: RewardHistogram;
    }
  | { type: 'error'; search: number; message: string };

const port = parentPort!;
const post = (m: FromSearchWorker) => port.postMessage(m);
const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

interface Search {
  run: Promise<OpenedRun>;
  query: RunQuery;
  limit: number;
  histogram: boolean;
  findingRows?: FindingRows;
  abort: AbortController;
}
const searches = new Map<number, Search>();
let queue = Promise.resolve();

async function open(spec: SearchRunSpec): Promise<OpenedRun> {
  const folder = await ServedFolder.open(spec.root);
  const files = folder.runFiles(spec.segments, spec.name, spec.only, true);
  return openRun({ name: files.name, read: files.read, list: async () => spec.listing }, spec.found);
}

port.on('message', (m: ToSearchWorker) => {
  if (m.type === 'search') {
    const run = open(m.run);
    run.catch(() => undefined); // seen by the first share
    const { query, limit, histogram, findingRows } = m;
    searches.set(m.search, { run, query, limit, histogram, findingRows, abort: new AbortController() });
  } else if (m.type === 'cancel') {
    searches.get(m.search)?.abort.abort();
    searches.delete(m.search);
  } else {
    const s = searches.get(m.search);
    if (!s) return;
    queue = queue.then(async () => {
      if (s.abort.signal.aborted) return;
      try {
        const run = await s.run;
        const r = await run.search(s.query, {
          steps: m.steps,
          limit: Math.min(s.limit, m.limit),
          rawPrefilter: true,
          signal: s.abort.signal,
          histogram: s.histogram,
          findingRows: s.findingRows,
        });
        if (!r.cancelled)
          post({
            type: 'share',
            search: m.search,
            id: m.id,
            hits: r.hits,
            count: r.count,
            steps: r.stepsSearched,
            problems: r.problems ?? [],
            histogram: r.histogram,
          });
      } catch (e) {
        post({ type: 'error', search: m.search, message: why(e) });
      }
    });
  }
});
