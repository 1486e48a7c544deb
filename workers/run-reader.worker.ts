/**
 * The run reader's worker: a thin Comlink shell over the run readers (src/runs), so indexing a folder of
 * gigabytes, reading a step and searching every step happen off the page's thread. The page names where
 * the files are (workers/run-files.ts RunFilesSpec); an opened run is then named by its id. A search runs
 * here and is cancelled by its id, since an AbortSignal cannot cross to a worker. Nothing here touches
 * the trainer worker or a live run.
 */
import * as Comlink from 'comlink';
import { detectRuns, openRun } from '../src/runs/detect.ts';
import type {
  FoundRun,
  OpenedRun,
  RunIndex,
  RunProblem,
  RunQuery,
  RunSearchProgress,
  RunSearchResult,
  RunStep,
} from '../src/runs/types.ts';
import { runFilesFrom, type RunFilesSpec } from './run-files.ts';

const runs = new Map<number, OpenedRun>();
const searches = new Map<number, { abort: AbortController; result: Promise<RunSearchResult> }>();
let nextId = 1;

function runOf(id: number): OpenedRun {
  const run = runs.get(id);
  if (!run) throw new Error(`run ${id} is not open in the run reader`);
  return run;
}

const api = {
  /** Every run under the folder, and what was passed over (each problem names its file). */
  detect: (spec: RunFilesSpec): Promise<{ runs: FoundRun[]; problems: RunProblem[] }> => detectRuns(runFilesFrom(spec)),
  /** The runs only (the problems are in `detect`). */
  async detectRuns(spec: RunFilesSpec): Promise<FoundRun[]> {
    return (await detectRuns(runFilesFrom(spec))).runs;
  },
  async openRun(spec: RunFilesSpec, found: FoundRun): Promise<{ id: number; index: RunIndex }> {
    const run = await openRun(runFilesFrom(spec), found);
    const id = nextId++;
    runs.set(id, run);
    return { id, index: run.index };
  },
  readStep: (id: number, step: number): Promise<RunStep> => runOf(id).readStep(step),
  startSearch(
    id: number,
    query: RunQuery,
    options: { limit?: number },
    onProgress?: (p: RunSearchProgress) => void,
  ): number {
    const abort = new AbortController();
    const searchId = nextId++;
    const result = runOf(id).search(query, { ...options, signal: abort.signal, ...(onProgress ? { onProgress } : {}) });
    result.catch(() => undefined); // seen by searchResult's caller
    searches.set(searchId, { abort, result });
    return searchId;
  },
  async searchResult(searchId: number): Promise<RunSearchResult> {
    const s = searches.get(searchId);
    if (!s) throw new Error(`search ${searchId} is not known to the run reader`);
    try {
      return await s.result;
    } finally {
      searches.delete(searchId);
    }
  },
  cancelSearch(searchId: number): void {
    searches.get(searchId)?.abort.abort();
  },
  refresh: (id: number): Promise<RunIndex> => runOf(id).refresh(),
  /** Forgets an opened run (its index and cached footers). */
  close(id: number): void {
    runs.delete(id);
  },
};

export type RunReaderWorkerApi = typeof api;

Comlink.expose(api);
