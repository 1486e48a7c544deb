/**
 * The run reader's worker: the readers of src/runs (TRL, veRL, the documented JSONL, records) run here,
 * off the page's thread and apart from the trainer worker, so a huge or broken folder can neither hold
 * the page nor touch a live run. The page (src/ui/state/run-sources.ts) starts one per folder or
 * served run and talks to it through Comlink (workers/run-reader-protocol.ts). The page's recordings and
 * lessons decode their `.rlvr.gz` records here as well (decodeRecord; src/ui/state/record-readers.ts keeps
 * such readers started ahead and ends each after its one decode), so a record file has one reader.
 */
import * as Comlink from 'comlink';
import { decodeRecordFile } from '../src/record/run-record.ts';
import { measureSteps } from '../src/runs/findings/index.ts';
import { detectRuns, openRun } from '../src/runs/index.ts';
import type { OpenedRun, RunFileEntry, RunFiles, RunSearchProgress, RunSearchResult } from '../src/runs/types.ts';
import { runFilesOf } from './browser-run-files.ts';
import type { RunFilesSpec, RunReaderApi } from './run-reader-protocol.ts';

/** The runs opened here, by id; a closed one's slot is emptied (its reader and its index freed). */
const opened: (OpenedRun | undefined)[] = [];
const searches = new Map<number, { abort: AbortController; result: Promise<RunSearchResult> }>();
let searchIds = 0;

const runOf = (id: number) => {
  const run = opened[id];
  if (!run) throw new Error(`no run ${id} is open in this reader (closed, or never opened)`);
  return run;
};

/**
 * The listing detectRuns just read, handed to the openRun that follows it (the page detects, then opens):
 * a served run's listing is one request that walks its folder on the server, so it is read once for both.
 * Only the first list() of the opened run takes it; refreshes list again.
 */
let detected: { spec: RunFilesSpec; listing: Promise<RunFileEntry[]> } | null = null;

function reusingDetected(spec: RunFilesSpec): RunFiles {
  const files = runFilesOf(spec);
  const given = detected?.spec === spec || (detected && sameSpec(detected.spec, spec)) ? detected!.listing : null;
  detected = null;
  if (!given) return files;
  let first: Promise<RunFileEntry[]> | null = given;
  return {
    ...files,
    list() {
      const listing = first ?? files.list();
      first = null;
      return listing;
    },
  };
}

const sameSpec = (a: RunFilesSpec, b: RunFilesSpec) =>
  a.kind === 'http' && b.kind === 'http' && a.base === b.base && a.name === b.name;

/**
 * How often a search's progress goes to the page at most: each report is a message and a redraw there (at
 * 100 ms the page spent about 3 s of CPU redrawing during a 26 s TRL search, CPU the reader's worker lacked).
 */
const PROGRESS_MS = 250;

/** `report`, passed on at most every PROGRESS_MS, the last one (all steps searched) always. */
function throttled(report?: (p: RunSearchProgress) => void): ((p: RunSearchProgress) => void) | undefined {
  if (!report) return undefined;
  let last = 0;
  return (p) => {
    const now = performance.now();
    if (p.done < p.total && now - last < PROGRESS_MS) return;
    last = now;
    report(p);
  };
}

const api: RunReaderApi = {
  detectRuns(spec, given) {
    const files = runFilesOf(spec);
    const listing = given ? Promise.resolve(given) : files.list();
    listing.catch(() => undefined); // detectRuns below sees the failure
    detected = { spec, listing };
    return detectRuns({ ...files, list: () => listing });
  },
  async openRun(spec, found, firstStep) {
    const run = await openRun(reusingDetected(spec), found, { firstStep });
    opened.push(run);
    return { id: opened.length - 1, index: run.index };
  },
  readStep: (id, step) => runOf(id).readStep(step),
  async startSearch(id, query, options, onProgress?: (p: RunSearchProgress) => void) {
    const searchId = ++searchIds;
    const abort = new AbortController();
    const result = runOf(id).search(query, { ...options, signal: abort.signal, onProgress: throttled(onProgress) });
    // Kept until the page asks for it; a failure is the page's to report then, not an unhandled rejection.
    result.catch(() => undefined);
    searches.set(searchId, { abort, result });
    return searchId;
  },
  async searchResult(searchId) {
    const s = searches.get(searchId);
    if (!s) throw new Error(`no search ${searchId} in this reader`);
    try {
      return await s.result;
    } finally {
      searches.delete(searchId);
    }
  },
  cancelSearch(searchId) {
    searches.get(searchId)?.abort.abort();
  },
  refresh: (id) => runOf(id).refresh(),
  closeRun(id) {
    opened[id] = undefined;
  },
  async measureSteps(id, steps) {
    const { measures, problems } = await measureSteps(runOf(id), steps);
    return { measures, problems };
  },
  decodeRecord: (bytes) => decodeRecordFile(new Uint8Array(bytes)),
};

Comlink.expose(api);
