/**
 * UI state (zustand): only what the page shows. The worker owns the training state; this store holds
 * the setup form, the streamed metrics, and what each view has open. Actions that talk to the worker
 * live in controller.ts.
 */
import type { SeedCurves } from '../derive/lesson-seeds.ts';
import type { JobWait } from '../derive/job-progress.ts';
import type { PassKWait } from '../derive/passk-progress.ts';
import { create } from 'zustand';
import type { Manifest } from '../../model/checkpoint.ts';
import type { MeasuredLesson } from '../../lessons/index.ts';
import type { RunRecord } from '../../record/run-record.ts';
import type {
  BackendInfo,
  ModelInfo,
  PassKCurve,
  RunConfig,
  RunState,
  SaveCost,
  StepRollouts,
} from '../../../workers/protocol.ts';
import type { LiveSeries, RunSeries } from '../derive/run-series.ts';
import { emptySetup, type UrlSetup } from '../derive/url-state.ts';
import { loadPace, type Pace } from '../derive/time-estimate.ts';
import { initialViewer, type ViewerState } from './viewer-state.ts';
import { browserStorage } from './browser-storage.ts';

export type View =
  | 'lessons'
  | 'charts'
  | 'rollouts'
  | 'passk'
  | 'compare'
  | 'share'
  | 'bench'
  | 'try'
  | 'data'
  | 'viewer';
export type Channel = 'advantage' | 'logp' | 'ratio' | 'clipped' | 'entropy' | 'kl' | 'loss';

export interface ShippedCheckpoint {
  id: string;
  manifestPath: string;
  /** Tasks the index says it covers (the manifest, once loaded, is the authority). */
  tasks?: string[];
  manifest: Manifest | null;
  error?: string;
}

export interface AppError {
  kind: 'crash' | 'init' | 'step' | 'checkpoint' | 'restore' | 'other';
  title: string;
  message: string;
}

/**
 * The live run's slot: its series (run-series.ts LiveSeries, folded from the worker's events by foldRunEvents in
 * controller.ts) and what the worker's init tells of it. Its `error` stays null: the live run's errors are the
 * page's banner (`error`).
 */
export interface LiveRun extends LiveSeries {
  backend: BackendInfo | null;
  model: ModelInfo | null;
  /** The config the worker runs with (null before init). */
  config: RunConfig | null;
  initSeconds: number;
}

/**
 * What a Compare side is doing: its worker's run state (workers/protocol.ts), or 'recorded' for a
 * recording shown in it (recording.ts), which has no worker and never trains.
 */
export type CompareSideState = RunState | 'recorded';

/** A Compare side: a run series (run-series.ts, folded from its worker's events like the live run's) and its label. */
export interface CompareSide extends RunSeries {
  label: string;
  config: RunConfig | null;
  state: CompareSideState;
  /** The model's parameters and the backend it trains on (known after init): the time estimate's scale. */
  parameters?: number;
  backend?: string;
  /** Held-out pass@1 measured on demand (Compare's "Evaluate both now"); null until then. */
  heldOut?: { passAt1: number; prompts: number; n: number; step: number } | null;
  /** A lesson's recorded arm over several seeds: `metrics` is their mean; each seed's own curves (drawn faintly). */
  seeds?: SeedCurves[];
}

/** Guided experiments (ui/lessons.ts): the gallery's data and the lesson now open. */
export interface LessonState {
  /** The lesson last opened: its runs are the current ones and its charts are highlighted. */
  active: string | null;
  /** Outcomes recorded by `rlvr lesson run` (public/lessons/measured.json); null until read. */
  measured: Record<string, MeasuredLesson> | null;
  /** Why measured.json could not be read (absent is not an error: every lesson says "not measured yet"). */
  measuredNote: string | null;
  /** A message for the gallery (an unknown lesson id in the link). */
  notice: string | null;
  /** Steps per run when opening a lesson from the gallery (0: each lesson's own). */
  steps: number;
  /** The open lesson's runs were started ("Run it live"); false while it shows its recording. */
  live?: boolean;
  /** The parts of the setup the person had before the lesson replaced them: closing it gives them back. */
  setupBefore?: Pick<UrlSetup, 'draft' | 'checkpoint' | 'model' | 'stepBudget'> | null;
  /** The setup form the lesson put in place: any other form means the person edited it. */
  appliedDraft?: UrlSetup['draft'] | null;
}

/**
 * A recorded run open in the page (src/ui/state/recording.ts): the decoded record, and the record opened as a
 * run series up to the step the scrubber is at (kept here so the selectors return stable arrays).
 * Nothing here is the live run's: opening or closing a recording leaves `run` and the autosave as they are.
 */
export interface RecordingState {
  /** What was opened: a file name, a URL or a shipped record's title. */
  name: string;
  record: RunRecord;
  /** What the reader kept but does not understand (metric keys this build does not chart). */
  notes: string[];
  /** Every step the record has metrics for, ascending (the scrubber's stops). */
  steps: number[];
  /** Steps whose rollouts the record holds, ascending. */
  rolloutSteps: number[];
  /**
   * The record up to the scrubbed step, as a run series (run-series.ts recordedSeries): what the charts draw, as
   * they draw the live run's. Its `step` is the scrubbed step (updates done, 0 = the base); its state 'recorded'.
   */
  series: RunSeries;
  histogram: { edges: number[]; counts: number[] } | null;
  /** The page shows the recording (false: it shows the live run; the recording stays open). */
  showing: boolean;
  /** A lesson's recorded arms, opened together (Compare draws them all; the inspector shows `name`'s). */
  arms?: { label: string; name: string }[];
  /** The live run's inspector while the recording is shown: given back when the page shows the live run again. */
  liveInspector?: AppState['inspector'] | null;
}

export interface SavedOffer {
  runId: string;
  kind: 'reset' | 'other';
  task: string;
  step: number;
  savedAt: string;
  /** Another tab has it open: restoring makes a copy. */
  openElsewhere: boolean;
  /** It is the experiment this tab's address names. */
  sameExperiment: boolean;
}

export interface AppState {
  setup: UrlSetup;
  /**
   * The uploaded or imported checkpoint; `files` are its tokenizer's files when it has its own
   * tokenizer (an imported Llama or Qwen2 folder: the manifest's HfTokenizerSpec names them).
   */
  uploaded: { name: string; manifest: Manifest; bytes: Uint8Array; files?: Record<string, Uint8Array> } | null;
  checkpoints: ShippedCheckpoint[];
  urlNotes: string[];

  /** The live run: one slot, a LiveSeries (run-series.ts), as each Compare side is a RunSeries. */
  run: LiveRun;
  /** Edits that wait for a reset (fields that change graph shapes), with the worker's reason. */
  pendingRestart: { field: string; reason: string } | null;
  liveNote: string | null;

  error: AppError | null;
  /**
   * Saved runs offered for restoring, the most recent first: this tab's own after a Reset ('reset'),
   * or, in a tab with no run of its own, the runs other tabs saved in this browser ('other').
   */
  savedRuns: SavedOffer[];
  /**
   * This tab's run as last saved; `ms`: what the worker's save cost (workers/protocol.ts SaveCost), absent for a
   * restored one.
   */
  autosave: { at: string; step: number; ms?: SaveCost } | null;

  /** False until the shipped checkpoints are known (the setup shows its real defaults only then). */
  booted: boolean;
  /** A button's action the worker has not answered yet ("running one step"): the controls wait for it. */
  busy: string | null;
  /** The first-run guide is showing. */
  guideOpen: boolean;

  view: View;
  smoothing: number;
  /**
   * A chart asked for ("Look at" in a lesson: show-chart.ts): the chart that draws `metric` (Compare's
   * when `compare`) scrolls into view, highlighted, and clears it.
   */
  chartFocus: { metric: string; compare: boolean } | null;
  inspector: {
    step: number | null;
    data: StepRollouts | null;
    loading: boolean;
    open: { group: number; index: number } | null;
    token: number | null;
    channel: Channel;
  };
  passk: {
    curve: PassKCurve | null;
    running: boolean;
    error: string | null;
    wait?: PassKWait | null;
    cancelled?: boolean;
    restored?: boolean;
  };
  /** The optional SFT warm start: its last result (losses before/after) while the run lasts. */
  warmStart: {
    running: boolean;
    result: { steps: number; firstLoss: number; lastLoss: number; seconds: number } | null;
    /** While it runs: its one progress line (job-progress.ts); null before the first SFT step reports. */
    wait?: JobWait | null;
    /** Cancel was pressed: the model kept the weights it had. */
    cancelled?: boolean;
    /** Why it stopped: a failure, or the worker's crash in the banner's words. */
    error?: string | null;
  };
  /** c: a third run (lessons with three configs); diff rows: field, then its value in A, B (and C). */
  compare: {
    presetB: string;
    editsB: string;
    steps: number;
    running: boolean;
    evaluating?: boolean;
    a: CompareSide;
    b: CompareSide;
    c: CompareSide | null;
    diff: string[][];
    overSeeds?: { seeds: number[]; shownSeed: number; text: string; pending?: boolean } | null;
  };
  lesson: LessonState;
  /** How fast this device trains (time-estimate.ts), from the latest measured steps; null until a run has one. */
  pace: Pace | null;
  recording: RecordingState | null;
  /**
   * The recordings Compare draws side by side (a lesson's arms, or ones added with "Add to Compare"),
   * decoded: what "inspect this arm" switches between; `mean`, a lesson's arms averaged over its seeds
   * (what Compare draws instead of one seed's), once every seed is read.
   */
  recordedArms: {
    opened: { label: string; name: string; record: RunRecord; notes: string[] }[];
    mean: CompareSide[] | null;
  };
  /** A record being read (what), or why the last one could not be opened. */
  recordingLoad: { loading: string | null; error: string | null };
  /** The run viewer: runs made elsewhere (TRL, veRL, JSONL) or records, opened from a folder or `rlvr view`. */
  viewer: ViewerState;
  /** What the actions know about the live run's loading, pausing and live edits (run-load.ts, live-config.ts). */
  runControl: RunControl;
}

/** The actions' own run state, not shown: kept in the store so no module holds run state of its own. */
export interface RunControl {
  /** Which base checkpoint the current run was built from (changing it needs a reset); null: no run. */
  sourceKey: string | null;
  /**
   * Set when a sync found a config but no ready run: a restored run has its config before the worker's
   * status says it is paused, and the setup it was restored under (this tab's URL, which may be ahead of
   * the autosave) must still be applied live once it is.
   */
  syncOwed: boolean;
  /** The saved run whose restore failed last (the error banner's "Forget the saved run" deletes it). */
  failedRestore: string | null;
}

export const initialRun: LiveRun = {
  metrics: [],
  evals: [],
  summaries: [],
  histogram: null,
  error: null,
  state: 'idle',
  step: 0,
  stepBudget: 0,
  stepsPerMinute: 0,
  lastStepSeconds: 0,
  activity: '',
  rolloutSteps: [],
  backend: null,
  model: null,
  config: null,
  initSeconds: 0,
  progress: null,
};

export const idleSide = (label: string): CompareSide => ({
  label,
  config: null,
  metrics: [],
  evals: [],
  state: 'idle',
  step: 0,
  error: null,
});

/**
 * The slices that belong to the live run, as they are before any run: the store starts from them and
 * reset() (controller.ts) returns to them, so a slice added here is cleared by a reset without a second list.
 */
export function initialRunSlices() {
  return {
    run: initialRun,
    pendingRestart: null,
    liveNote: null,
    error: null,
    passk: { curve: null, running: false, error: null },
    warmStart: { running: false, result: null },
  } satisfies Partial<AppState>;
}

export const useApp = create<AppState>()(() => ({
  setup: emptySetup(),
  uploaded: null,
  checkpoints: [],
  urlNotes: [],
  ...initialRunSlices(),
  savedRuns: [],
  autosave: null,
  booted: false,
  busy: null,
  guideOpen: false,
  view: 'charts',
  smoothing: 0.6,
  chartFocus: null,
  inspector: { step: null, data: null, loading: false, open: null, token: null, channel: 'advantage' },
  compare: {
    presetB: 'dr_grpo',
    editsB: '',
    steps: 20,
    running: false,
    a: idleSide('A'),
    b: idleSide('B'),
    c: null,
    diff: [],
  },
  lesson: { active: null, measured: null, measuredNote: null, notice: null, steps: 0 },
  pace: loadPace(null, browserStorage()),
  recording: null,
  recordedArms: { opened: [], mean: null },
  recordingLoad: { loading: null, error: null },
  viewer: initialViewer,
  runControl: {
    sourceKey: null,
    syncOwed: false,
    failedRestore: null,
  },
}));

export const setState = useApp.setState;
export const getState = useApp.getState;

/** Shallow-merges into one nested slice. */
export function patch<K extends keyof AppState>(key: K, value: Partial<AppState[K]>): void {
  useApp.setState((s) => ({ [key]: { ...(s[key] as object), ...(value as object) } }) as Partial<AppState>);
}

/** A run exists and can take commands (not idle, loading or crashed). */
export function hasRun(): boolean {
  const r = getState().run;
  return r.config !== null && r.state !== 'idle' && r.state !== 'crashed' && r.state !== 'loading';
}

/** A Compare side (compare.ts). */
export type SideId = 'a' | 'b' | 'c';
