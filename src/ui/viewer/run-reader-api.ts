/**
 * What the page asks of the run reader's worker (workers/run-reader.worker.ts), as the viewer uses it
 * through Comlink: runs are found and opened from a description of where their files are, and an
 * opened run is then named by its id. A search runs in the worker and is cancelled by its id (an
 * AbortSignal cannot cross to a worker).
 */
import type { FoundRun, RunIndex, RunQuery, RunSearchProgress, RunSearchResult, RunStep } from '../../runs/types.ts';
import type { PickedFile } from './folder-files.ts';

/** Where a run's files are: a folder given to the page, or a run `rlvr view` serves at `base`. */
export type RunFilesSpec =
  | { kind: 'files'; name: string; files: PickedFile[] }
  | { kind: 'http'; name: string; base: string };

export interface RunReaderApi {
  detectRuns(spec: RunFilesSpec): Promise<FoundRun[]>;
  openRun(spec: RunFilesSpec, found: FoundRun): Promise<{ id: number; index: RunIndex }>;
  readStep(id: number, step: number): Promise<RunStep>;
  startSearch(
    id: number,
    query: RunQuery,
    options: { limit?: number },
    onProgress?: (p: RunSearchProgress) => void,
  ): Promise<number>;
  searchResult(searchId: number): Promise<RunSearchResult>;
  cancelSearch(searchId: number): void;
  refresh(id: number): Promise<RunIndex>;
}
