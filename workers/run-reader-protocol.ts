/**
 * What the page asks of the run reader's worker (workers/run-reader.worker.ts) through Comlink: runs
 * are found and opened from a description of where their files are (RunFilesSpec), and an opened run
 * is then named by its id. A search runs in the worker and is cancelled by its id (an AbortSignal
 * cannot cross to a worker); its progress comes back through a Comlink-proxied callback. A recording the page
 * shows (src/ui/state/recording-read.ts) is decoded here too, by decodeRecord.
 */
import type {
  FoundRun,
  RunFileEntry,
  RunIndex,
  RunProblem,
  RunQuery,
  RunSearchOptions,
  RunSearchProgress,
  RunSearchResult,
  RunStep,
} from '../src/runs/types.ts';
import type { StepMeasures } from '../src/runs/findings/index.ts';
import type { DecodeResult } from '../src/record/run-record.ts';

/** One file of a folder given to the page, with its path under the folder. */
export interface GivenFile {
  path: string;
  file: File;
}

/** Where a run's files are: a folder given to the page, or a run `rlvr view` serves under `base`. */
export type RunFilesSpec =
  | { kind: 'files'; name: string; files: GivenFile[] }
  | { kind: 'http'; name: string; base: string };

export interface RunReaderApi {
  /**
   * Every run under the root, and what was seen but not taken (a folder of nothing known says why).
   * `listing`: the root's files, where the page has listed them already (a served run's files.json, asked
   * for while this worker starts); else the worker lists them.
   */
  detectRuns(spec: RunFilesSpec, listing?: RunFileEntry[]): Promise<{ runs: FoundRun[]; problems: RunProblem[] }>;
  /**
   * `firstStep`: the step the page will show first (a link's, or -Infinity for the first step); the
   * nearest one is read as soon as the index is, and the first readStep of it takes that read.
   */
  openRun(spec: RunFilesSpec, found: FoundRun, firstStep?: number): Promise<{ id: number; index: RunIndex }>;
  readStep(id: number, step: number): Promise<RunStep>;
  /** `steps`: only these (a share of a search over several readers, src/runs/step-shares.ts); else every step. */
  startSearch(
    id: number,
    query: RunQuery,
    options: Pick<RunSearchOptions, 'limit' | 'histogram' | 'findingRows' | 'steps'>,
    onProgress?: (p: RunSearchProgress) => void,
  ): Promise<number>;
  searchResult(searchId: number): Promise<RunSearchResult>;
  cancelSearch(searchId: number): void;
  /** Frees run `id` (its searches already asked for still answer); a call on it after this is an error. */
  closeRun(id: number): void;
  refresh(id: number): Promise<RunIndex>;
  /**
   * Every finding rule's measure of `steps`: a share of the run's findings, which the page shares over
   * several readers and judges (src/runs/step-shares.ts, src/ui/state/run-sources.ts).
   */
  measureSteps(id: number, steps: number[]): Promise<{ measures: StepMeasures[]; problems: RunProblem[] }>;
  /**
   * A `.rlvr.gz` file's bytes (downloaded or picked; transferred, so the page keeps none) as a RunRecord, or
   * what is wrong with them: the one decode of a record file (decodeRecordFile, src/record/record-file.ts).
   */
  decodeRecord(bytes: ArrayBuffer): Promise<DecodeResult>;
}
