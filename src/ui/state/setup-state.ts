/**
 * The setup as the rest of the page reads it: which checkpoint and model the run starts from, the
 * difficulty it was measured at, every error of the form (including the checks Start would fail on),
 * the config the draft would run with, and the worker's init request.
 */
import { useDataset } from './dataset-import.ts';
import { recommendedDifficulty, type Manifest } from '../../model/checkpoint.ts';
import { modelPresets } from '../../model/config.ts';
import { parameterCount } from '../../model/transformer.ts';
import { runWasmThreads } from '../../engine/wasm-threads.ts';
import type { ResolvedConfig } from '../../rl/resolve-config.ts';
import type { RunConfig } from '../../rl/config.ts';
import type { CheckpointSource, InitRequest } from '../../../workers/protocol.ts';
import {
  appDefaults,
  draftOverrides,
  resolveDraft,
  safeFamily,
  validateDraft,
  type SetupDraft,
} from '../derive/config-form.ts';
import { getState, setState, type ShippedCheckpoint } from './store.ts';
import type { UrlSetup } from '../derive/url-state.ts';

const DEFAULT_CHECKPOINT = 'arithmetic-tiny';

/** The shipped checkpoint a task starts from: the first whose manifest lists it (as `rlvr train` picks). */
export function defaultCheckpointFor(task: string, checkpoints: ShippedCheckpoint[]): string {
  return (
    checkpoints.find((c) => c.manifest?.tasks.some((t) => t.task === task))?.id ??
    checkpoints.find((c) => c.manifest && c.tasks?.includes(task))?.id ??
    checkpoints.find((c) => c.manifest)?.id ??
    DEFAULT_CHECKPOINT
  );
}

/** The shipped checkpoint id in use (null setup.checkpoint = the task's default). */
export function selectedCheckpoint(s = getState()): string {
  return s.setup.checkpoint ?? defaultCheckpointFor(s.setup.draft.task, s.checkpoints);
}

/** The manifest of the checkpoint the run would start from (null for a fresh model or while loading). */
export function selectedManifest(s = getState()): Manifest | null {
  if (s.setup.model) return null;
  return (
    (s.setup.checkpoint === 'upload'
      ? s.uploaded?.manifest
      : s.checkpoints.find((c) => c.id === selectedCheckpoint(s))?.manifest) ?? null
  );
}

/**
 * The difficulty the selected checkpoint recommends for the selected task (its recipe's, else where it was measured):
 * the knobs' starting values.
 */
export function measuredDifficulty(s = getState()): Record<string, number | string> {
  const manifest = selectedManifest(s);
  return (manifest && recommendedDifficulty(manifest, s.setup.draft.task)) ?? {};
}

/** The context length of the model the run would start from (undefined until its manifest is known). */
export function modelContextLength(s = getState()): number | undefined {
  if (s.setup.model) return modelPresets[s.setup.model as keyof typeof modelPresets]?.contextLength;
  const manifest =
    s.setup.checkpoint === 'upload'
      ? s.uploaded?.manifest
      : s.checkpoints.find((c) => c.id === selectedCheckpoint(s))?.manifest;
  return manifest?.model.contextLength;
}

// Memo caches, not run state: each answer is a pure function of the store's draft (kept by identity), so
// forgetting one only computes it again (module-state.test.ts allows them).
let validationMemo: { draft: unknown; key: string; result: ReturnType<typeof validateDraft> } | null = null;

/**
 * Every error of the setup form, including the checks Start would fail on (memoised: components call this on each store
 * change).
 */
export function draftValidation(s = getState()): ReturnType<typeof validateDraft> {
  const measured = measuredDifficulty(s);
  const context = modelContextLength(s);
  const key = JSON.stringify([measured, context]);
  if (validationMemo && validationMemo.draft === s.setup.draft && validationMemo.key === key)
    return validationMemo.result;
  const result = validateDraft(s.setup.draft, measured, context);
  validationMemo = { draft: s.setup.draft, key, result };
  return result;
}

const resolveMemo = new Map<string, { draft: SetupDraft; manifest: Manifest | null; result: ResolvedConfig }>();

function memoResolve(kind: string, draft: SetupDraft, manifest: Manifest | null): ResolvedConfig {
  const hit = resolveMemo.get(kind);
  if (hit && hit.draft === draft && hit.manifest === manifest) return hit.result;
  const result = resolveDraft(draft, manifest);
  resolveMemo.set(kind, { draft, manifest, result });
  return result;
}

/**
 * The draft over the selected checkpoint, through the one resolver: the config, each field's source and every error
 * (memoised: each field reads it).
 */
export function resolvedDraft(s = getState()): ResolvedConfig {
  return memoResolve('draft', s.setup.draft, selectedManifest(s));
}

// A memo too: the base draft made from the store's draft, kept by identity so that memoResolve finds it again.
let baseDraft: { from: SetupDraft; draft: SetupDraft } | null = null;

/**
 * What the fields hold before the person's own layers (link, saved config, edits): defaults ← app defaults ← recipe ←
 * preset.
 */
export function resolvedBase(s = getState()): ResolvedConfig {
  const d = s.setup.draft;
  if (baseDraft?.from !== d)
    baseDraft = { from: d, draft: { task: d.task, presetId: d.presetId, edits: {}, knobs: {}, origins: {} } };
  return memoResolve('base', baseDraft.draft, selectedManifest(s));
}

/**
 * The config the draft would run with: the person's choices over the checkpoint's recipe, as the worker resolves it.
 */
export function effectiveDraftConfig(s = getState()): RunConfig | null {
  const { config } = draftValidation(s);
  if (!config || !safeFamily(s.setup.draft.task)) return null;
  const r = resolvedDraft(s);
  return r.errors.length ? null : r.config;
}

export function updateSetup(fn: (s: UrlSetup) => UrlSetup): void {
  setState((st) => ({ setup: fn(st.setup) }));
}

export function checkpointSource(s = getState()): CheckpointSource {
  if (s.setup.model) return { kind: 'fresh', model: s.setup.model as 'nano', seed: 0 };
  if (s.setup.checkpoint === 'upload' && s.uploaded) {
    const { name, manifest, bytes, files } = s.uploaded;
    const utf8 = new TextDecoder();
    const tokenizerFiles = files && Object.fromEntries(Object.entries(files).map(([f, b]) => [f, utf8.decode(b)]));
    return { kind: 'upload', name, manifest, bytes, ...(tokenizerFiles ? { tokenizerFiles } : {}) };
  }
  const id = selectedCheckpoint(s);
  const c = s.checkpoints.find((x) => x.id === id);
  const path = c?.manifestPath ?? `checkpoints/${id}/manifest.json`;
  return { kind: 'shipped', id, manifestUrl: new URL(path, document.baseURI).href };
}

/**
 * The run's WASM threads: `?threads=N` where the link sets it, else by the model's size and this machine's cores
 * (src/engine/wasm-threads.ts); nothing when the backend's own choice applies.
 */
function threadsFor(s = getState()): { threads?: number } {
  const preset = s.setup.model ? modelPresets[s.setup.model as keyof typeof modelPresets] : undefined;
  return threadsForModel(preset ? parameterCount(preset) : (selectedManifest(s)?.parameters ?? null), s);
}

/** The WASM threads for a run of a model of `parameters` (a restored run's too): the link's, else the rule's. */
export function threadsForModel(parameters: number | null, s = getState()): { threads?: number } {
  const threads = s.setup.threads ?? runWasmThreads(parameters, globalThis.navigator?.hardwareConcurrency || 1);
  return threads ? { threads } : {};
}

export function initRequest(s = getState()): InitRequest {
  // Only what the person chose (preset + edits + knobs): the worker fills the difficulty in from the manifest.
  const dataset = s.setup.draft.task === 'custom' ? useDataset.getState().payload : null;
  return {
    config: draftOverrides(s.setup.draft) as Partial<RunConfig>,
    appDefaults,
    preset: s.setup.draft.presetId,
    checkpoint: checkpointSource(s),
    backend: s.setup.backend,
    ...threadsFor(s),
    stepBudget: s.setup.stepBudget,
    ...(dataset ? { dataset } : {}),
  };
}
