/**
 * What crosses the boundary between the UI and the trainer worker (structured-clone data only).
 * Type-only: the UI imports this file without pulling any engine code into the page bundle.
 */
import type { AdapterSummary, WebBackendKind } from '../src/engine/select-backend.ts';
import type { Manifest } from '../src/model/checkpoint.ts';
import type { ModelConfig, ModelPresetId } from '../src/model/config.ts';
import type { Layout } from '../src/model/layout.ts';
import type { RunConfig } from '../src/rl/config.ts';
import type { ObjectiveSettings } from '../src/rl/objective-form.ts';
import type { RolloutRecord } from '../src/rl/rollout.ts';
import type { EvalPoint, RunSnapshotCore } from '../src/rl/run.ts';
import type { StepMetrics } from '../src/rl/trainer.ts';
import type { DatasetPayload } from '../src/tasks/dataset-load.ts';
import type { TriedPolicy } from '../src/rl/try-prompt.ts';

export type { StepMetrics, RunConfig, RolloutRecord, Manifest, EvalPoint };

/** Where the run's base weights come from. */
export type CheckpointSource =
  /** A checkpoint shipped under public/checkpoints/ (manifestUrl absolute; weights beside it). */
  | { kind: 'shipped'; id: string; manifestUrl: string }
  /**
   * Files a person uploaded (manifest JSON as parsed, safetensors bytes) and, for a model with its own
   * tokenizer (an imported Llama or Qwen2 folder), its tokenizer files as text (src/model/text-codec.ts).
   */
  | { kind: 'upload'; name: string; manifest: unknown; bytes: Uint8Array; tokenizerFiles?: Record<string, string> }
  /**
   * A freshly, randomly initialised model (initParams(modelPresets[model], seed)): tests and demos only, it gets no
   * reward.
   */
  | { kind: 'fresh'; model: ModelPresetId; seed: number };

export interface InitRequest {
  /**
   * The person's choices over the checkpoint's recipe and the preset (the page flattens its link or saved config and
   * edits into it: `draftOverrides`); resolved and validated by the worker (`resolveInitConfig`, workers/open-run.ts).
   */
  config: Partial<RunConfig>;
  /** The page's own starting values (appDefaults, src/ui/derive/config-form.ts): under the checkpoint's recipe. */
  appDefaults?: Partial<RunConfig>;
  /** A preset id: over the checkpoint's recipe, under `config`. */
  preset?: string;
  checkpoint: CheckpointSource;
  /** `?backend=` forced choice, or null to let select-backend decide. */
  backend: WebBackendKind | null;
  /** Stop after this many steps (0: no budget). */
  stepBudget?: number;
  /** Resume a run saved with `snapshot()` instead of starting at step 0. */
  restore?: RunSnapshot;
  /** The JSONL dataset of a `custom` task run (checked again in the worker). */
  dataset?: DatasetPayload;
  /**
   * WASM threads for this worker (default: the backend's own choice). Compare's workers split the
   * cores between them: two workers each spinning a full-width thread pool would leave the page none.
   */
  threads?: number;
}

export interface BackendInfo {
  kind: string;
  description: string;
  /** Why this backend (and not WebGPU) was chosen. */
  reason: string;
  threads: number;
  crossOriginIsolated: boolean;
  adapter: AdapterSummary | null;
}

export interface ModelInfo {
  name: string;
  parameters: number;
  model: ModelConfig;
  layout: Layout;
}

export interface InitResult {
  backend: BackendInfo;
  /** The validated config the trainer runs with (difficulty resolved against the checkpoint's manifest). */
  config: RunConfig;
  model: ModelInfo;
  /** The base checkpoint's manifest (for pass@k figures and the saved manifest). */
  baseManifest: Manifest;
  step: number;
  metrics: StepMetrics[];
  evals: EvalPoint[];
  /** Seconds spent choosing the backend, loading the weights and compiling nothing yet. */
  initSeconds: number;
}

export type RunState = 'idle' | 'loading' | 'ready' | 'running' | 'pausing' | 'paused' | 'done' | 'error';

export interface SessionStatus {
  state: RunState;
  step: number;
  stepBudget: number;
  /** Over the recent steps of the running loop (0 until two steps are done). */
  stepsPerMinute: number;
  lastStepSeconds: number;
  /** Steps whose rollouts are kept in full (getRollouts works for these). */
  rolloutSteps: number[];
  /** What the worker is doing right now, for the status bar ("sampling step 12", "held-out eval"). */
  activity: string;
}

/** A short per-step account of the rollouts (the full records are fetched on demand). */
export interface RolloutSummary {
  /** The update's number (updates done after it: the first update is step 1). */
  step: number;
  rollouts: number;
  groups: number;
  meanReward: number;
  accuracy: number;
  /** Groups whose completions all got exactly the same reward (isZeroVariance in src/rl/metrics.ts). */
  zeroStdGroups: number;
  hinted: number;
  flips: number;
}

export type SessionEvent =
  | {
      type: 'step';
      metrics: StepMetrics;
      difficulty: Record<string, number | string>;
      histogram: { edges: number[]; counts: number[] };
      summary: RolloutSummary;
      skipped: boolean;
    }
  | { type: 'eval'; point: EvalPoint }
  | { type: 'status'; status: SessionStatus }
  /** 'step': inside one training step; `phase` says which part (sampling tokens, scoring, update minibatches). */
  | {
      type: 'progress';
      what: 'eval' | 'passk-base' | 'passk-current' | 'init' | 'warm-start' | 'step';
      done: number;
      total: number;
      phase?: string;
    }
  | { type: 'error'; message: string; fatal: boolean; code?: SessionErrorCode }
  /** The worker saved the run under `runId` (workers/run-saver.ts); `ms`: what the save cost. */
  | { type: 'saved'; runId: string; step: number; savedAt: string; ms: SaveCost }
  /** A save failed (storage full or unavailable): the worker saves no more by itself until a saveNow succeeds. */
  | { type: 'save-failed'; runId: string; message: string; name: string };

/**
 * Where the worker saves its run (workers/run-store.ts): this tab's run id and tab, and the page's
 * setup (src/ui/derive/url-state.ts UrlSetup, opaque to the worker) with its experiment key. The page sets
 * it at init and restore, and again when the setup changes; the worker writes no other record.
 */
export interface SaveTarget {
  runId: string;
  tabId: string;
  setup: unknown;
  experiment: string;
}

/**
 * What one save cost (ms): `snapshot` reading the weights back with the engine held (training waits),
 * `put` the synchronous copy of the record into IndexedDB (the worker's thread waits), `commit` until
 * the write was on disk (training goes on meanwhile).
 */
export interface SaveCost {
  snapshot: number;
  put: number;
  commit: number;
}

/**
 * Errors the page reacts to beyond showing them: 'non-finite' (the loop paused itself after
 * NON_FINITE_LIMIT skipped steps in a row), 'device-lost' (the WebGPU device is gone: the page falls
 * back to WASM from the last autosave).
 */
export type SessionErrorCode = 'non-finite' | 'device-lost';

/** The objective knobs in force when a step ran (derived from RunConfig in src/rl/objective-form.ts). */
export type { ObjectiveSettings };

/** A rollout record as the inspector shows it: it already carries the graph's per-token objective terms. */
export type InspectRollout = RolloutRecord;

export interface StepRollouts {
  step: number;
  settings: ObjectiveSettings;
  records: InspectRollout[];
}

export interface PassKCurve {
  ks: number[];
  base: Record<string, number>;
  current: Record<string, number>;
  /** Steps done when "current" was measured. */
  step: number;
  prompts: number;
  n: number;
  difficulty: Record<string, number | string>;
  seconds: number;
}

export interface SavedCheckpoint {
  bytes: Uint8Array;
  manifest: Manifest;
}

/**
 * Everything needed to resume a run after a reload (kept in IndexedDB by the UI): the run pipeline's snapshot
 * (src/rl/run.ts) plus where its base came from.
 */
export interface RunSnapshot extends Omit<RunSnapshotCore, 'base'> {
  version: 1;
  savedAt: string;
  stepBudget: number;
  base: RunSnapshotCore['base'] & { source: 'shipped' | 'upload' | 'fresh'; id: string };
  /** The dataset a `custom` task run trains on (absent for the generated task families). */
  dataset?: DatasetPayload;
}

export type UpdateResult =
  | { ok: true; changed: string[]; config: RunConfig }
  | { ok: false; field: string; reason: string };

export type { DatasetPayload, TriedPolicy };

/**
 * Score a text (an imported model's card in Keep & share): each line's tokens and their log-probs under
 * an uploaded checkpoint, as `rlvr score` prints them (src/model/score-lines.ts). Needs no run.
 */
export interface ScoreTextRequest {
  /** The checkpoint as uploaded (manifest JSON as parsed, safetensors bytes). */
  manifest: unknown;
  bytes: Uint8Array;
  /** Its tokenizer's files (HfTokenizerSpec names them), for a checkpoint with its own tokenizer. */
  files: Record<string, Uint8Array>;
  /** One line per scored line (a final newline ends the last line). */
  text: string;
  /** `?backend=`: used only when the worker has no backend yet. */
  backend: WebBackendKind | null;
}

export interface ScoreTextResult {
  lines: { ids: number[]; tokens: string[]; logprobs: (number | null)[] }[];
  seconds: number;
}

/** "Try the policy": one typed prompt for the base and the current policy. */
export interface TryRequest {
  prompt: string;
  /** Sampled completions per policy (0..8). */
  samples: number;
  temperature: number;
  greedy: boolean;
}

export interface TryResult {
  prompt: string;
  promptTokens: number;
  /** The longest prompt this run's layout holds. */
  promptLen: number;
  /** Steps done when "current" answered. */
  step: number;
  base: TriedPolicy;
  current: TriedPolicy;
  /** The task instance the prompt matched (its reference completion), when it is one of the task's prompts. */
  instance: { reference: string; where: string } | null;
  seconds: number;
}
