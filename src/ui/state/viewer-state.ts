/**
 * The run viewer's one slot in the store (src/ui/state/store.ts `viewer`): the runs found in a folder the
 * person opened or that `rlvr view` serves, the one open at a step, and what its panels have asked for.
 * Each run here is an opened run behind the contract of src/runs/types.ts, read in the run reader's
 * worker; nothing in this slot is the live training run's, so opening a bad folder leaves `run` (the live run's
 * slot) and the autosave as they are. Types and the initial value only: the actions that fill it
 * are in viewer-actions.ts.
 */
import type {
  OpenedRun,
  RunFormat,
  RunIndex,
  RunProblem,
  RunQuery,
  RunSearchProgress,
  RunSearchResult,
  RunStep,
} from '../../runs/types.ts';
import type { Finding, FindingKind, FindingsOptions, FindingsResult } from '../../runs/findings/index.ts';
import type { AlignedSteps } from '../../runs/align.ts';
import { emptySearchForm, type SearchForm } from '../derive/search-form.ts';
import type { WorkerHandle } from './worker-handle.ts';

/**
 * An opened run as the viewer holds it (by key, in viewer-handles.ts): the readers' contract, its findings where
 * the source computes them, and its worker's handle (worker-handle.ts): dispose() frees what reading it holds,
 * its reader workers ending once no run of theirs is open (run-sources.ts).
 */
export type RunHandle = OpenedRun &
  WorkerHandle & {
    findings?(options?: FindingsOptions): Promise<FindingsResult>;
  };

/** One run the viewer lists. */
export interface ViewerRun {
  /** Unique in the page: where it came from and its path there. */
  key: string;
  name: string;
  format: RunFormat;
  /** A folder opened in the page (read offline), or a run `rlvr view` serves. */
  origin: 'folder' | 'server';
  /**
   * The reader's worker has opened it: its handle is kept by key in viewer-handles.ts (false until it has, or
   * when it could not).
   */
  opened: boolean;
  index: RunIndex | null;
  /** Steps `rlvr view` says the run has (known before the run is opened). */
  listedSteps?: number;
  /** What `rlvr view` says its readers could not read (runs.json `errors`), before the run is opened. */
  listedErrors?: string[];
  loading: boolean;
  error: string | null;
}

/** A search over every step of the open run, or "this prompt over training" (a search by prompt). */
export interface ViewerSearch {
  running: boolean;
  progress: RunSearchProgress | null;
  result: RunSearchResult | null;
  error: string | null;
  /**
   * The search's id: its canceller is in viewer-handles.ts (the reader stops between steps and answers with
   * what it found); an answer whose id is no longer here is dropped.
   */
  job: number | null;
}

export const idleSearch: ViewerSearch = { running: false, progress: null, result: null, error: null, job: null };

/** The open run's findings (docs/findings.md), computed on request over every step. */
export interface ViewerFindings {
  running: boolean;
  progress: { done: number; total: number } | null;
  /** Highest score first; null until computed. */
  list: Finding[] | null;
  error: string | null;
  /** The findings' id, as a search's (ViewerSearch.job). */
  job: number | null;
}

export const idleFindings: ViewerFindings = { running: false, progress: null, list: null, error: null, job: null };

/** The open run's step beside another run's nearest step, on the prompts both sampled (viewer-align.ts). */
export interface ViewerAligned {
  /** The run compared with (`compareWith`), or the live run's step in its inspector. */
  with: 'compared' | 'live';
  /** The other side's name, as shown. */
  otherName: string;
  loading: boolean;
  error: string | null;
  data: AlignedSteps | null;
}

/** How the viewer colours a completion's tokens (src/ui/derive/token-strip.ts viewerChannels). */
export type TokenColour = 'logprob' | 'advantage' | 'entropy' | 'ratio' | 'clipped';

export interface ViewerState {
  runs: ViewerRun[];
  /** The page is served by `rlvr view` (its /runs.json answered with a list). */
  served: boolean;
  /** What is being read ("Reading the folder my-run…"), or why the last open failed. */
  loading: string | null;
  error: string | null;
  /** What the last folder opened held but no reader took (each with its file), shown under the runs. */
  problems: RunProblem[];
  /** The open run's key. */
  open: string | null;
  /** The page opened from a link to a step: the step view brings itself into view once it shows it. */
  scrollToStep: boolean;
  step: number | null;
  stepData: RunStep | null;
  stepLoading: boolean;
  stepError: string | null;
  /** The completion whose derivation and tokens are shown: its group and its row in the step. */
  selected: { group: number; row: number } | null;
  colour: TokenColour;
  /** The curves drawn, by metric key (null: the defaults for the run). */
  curves: string[] | null;
  /** The search form as typed, and the search it ran. */
  form: SearchForm;
  search: ViewerSearch;
  /** The query the search last ran (its filters and sort, written to a link as `f.*`: url-filter.ts). */
  applied: RunQuery | null;
  /** "This prompt over training": the prompt followed, and its search in the open run. */
  prompt: string | null;
  promptSearch: ViewerSearch;
  /** Compare: the other run's key, and the prompt's search in it. */
  compareWith: string | null;
  comparePromptSearch: ViewerSearch;
  findings: ViewerFindings;
  /** The kind the Findings panel lists (`finding=KIND` in a link), null for every kind. */
  findingKind: FindingKind | null;
  /** The rows of a step a clicked finding is about, marked in the step's table. */
  marked: { step: number; rows: number[] } | null;
  /** Aligned on shared prompts, while shown. */
  aligned: ViewerAligned | null;
}

export const initialViewer: ViewerState = {
  runs: [],
  served: false,
  loading: null,
  error: null,
  problems: [],
  open: null,
  scrollToStep: false,
  step: null,
  stepData: null,
  stepLoading: false,
  stepError: null,
  selected: null,
  colour: 'logprob',
  curves: null,
  form: emptySearchForm,
  search: idleSearch,
  applied: null,
  prompt: null,
  promptSearch: idleSearch,
  compareWith: null,
  comparePromptSearch: idleSearch,
  findings: idleFindings,
  findingKind: null,
  marked: null,
  aligned: null,
};
