/**
 * Opening and saving the worker's run: where its base weights come from (shipped and fetched,
 * uploaded, or freshly initialised), the run built over them (src/rl/run.ts), and what a saved
 * checkpoint or a snapshot adds to the pipeline's own (where the base came from).
 */
import type { Backend } from '../src/engine/backend.ts';
import type { SessionBackend } from './session-types.ts';
import { CheckpointError, loadWeights, validateManifest, type Manifest } from '../src/model/checkpoint.ts';
import { modelPresets } from '../src/model/config.ts';
import { parameterCount } from '../src/model/transformer.ts';
import { ConfigError, type RunConfig } from '../src/rl/config.ts';
import { resolveConfig, type ResolvedConfig } from '../src/rl/resolve-config.ts';
import { checkPromptsFit, loadTrainingDataset, type LoadedDataset } from '../src/tasks/dataset-load.ts';
import { bindCustomFamily } from '../src/tasks/registry.ts';
import { freshBase, loadBase, TrainingRun, type RunBase } from '../src/rl/run.ts';
import { RunRecorder } from '../src/record/run-record.ts';
import type {
  BackendInfo,
  CheckpointSource,
  InitRequest,
  InitResult,
  ObjectiveSettings,
  RunSnapshot,
  SavedCheckpoint,
} from './protocol.ts';

/** A base plus where it came from (kept in snapshots, named in saved manifests). */
export interface SourcedBase extends RunBase {
  source: RunSnapshot['base']['source'];
  id: string;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The manifest a source names: given with an upload, fetched for a shipped checkpoint, none for a fresh model. */
async function sourceManifest(
  src: CheckpointSource,
  fetchBytes: (url: string) => Promise<Uint8Array>,
): Promise<{ manifestJson: unknown; manifest: Manifest } | null> {
  if (src.kind === 'fresh') return null;
  if (src.kind === 'upload') return { manifestJson: src.manifest, manifest: validateManifest(src.manifest) };
  try {
    const manifestJson: unknown = JSON.parse(new TextDecoder().decode(await fetchBytes(src.manifestUrl)));
    return { manifestJson, manifest: validateManifest(manifestJson) };
  } catch (e) {
    throw new CheckpointError(`cannot load the manifest of checkpoint "${src.id}" (${src.manifestUrl}): ${message(e)}`);
  }
}

/**
 * Loads a base whose manifest is already read; `config` gives the task and difficulty a fresh model's layout is sized
 * for.
 */
async function loadSource(
  src: CheckpointSource,
  read: { manifestJson: unknown; manifest: Manifest } | null,
  config: RunConfig,
  fetchBytes: (url: string) => Promise<Uint8Array>,
): Promise<SourcedBase> {
  if (src.kind === 'fresh' || !read) {
    if (src.kind !== 'fresh') throw new CheckpointError('no manifest');
    if (!(src.model in modelPresets))
      throw new CheckpointError(`unknown model preset "${src.model}" (known: ${Object.keys(modelPresets).join(', ')})`);
    return {
      ...freshBase(src.model, src.seed, config.task, config.difficulty),
      source: 'fresh',
      id: `${src.model}:${src.seed}`,
    };
  }
  if (src.kind === 'upload')
    return { ...loadBase(src.manifest, src.bytes, src.tokenizerFiles), source: 'upload', id: src.name };
  const weightsUrl = new URL(read.manifest.weights, src.manifestUrl).href;
  let bytes: Uint8Array;
  try {
    bytes = await fetchBytes(weightsUrl);
  } catch (e) {
    throw new CheckpointError(`cannot download the weights of checkpoint "${src.id}" (${weightsUrl}): ${message(e)}`);
  }
  return { ...loadBase(read.manifestJson, bytes), source: 'shipped', id: src.id };
}

/**
 * An init request's config through the one resolver (src/rl/resolve-config.ts): the page's app
 * defaults under the checkpoint's recipe, the preset over it, then the person's choices (req.config:
 * link or saved config and edits). The boundary where the page's config enters the worker: it is
 * validated here, once.
 */
export function resolveInitRequest(
  req: Pick<InitRequest, 'config' | 'appDefaults' | 'preset'>,
  manifest: Manifest | null,
): ResolvedConfig {
  return resolveConfig({
    manifest,
    ...(req.appDefaults ? { appDefaults: req.appDefaults } : {}),
    ...(req.preset ? { preset: req.preset } : {}),
    layers: [{ source: { kind: 'edited' }, values: req.config as Record<string, unknown> }],
  });
}

/** The config an init request runs with, or a ConfigError naming the first bad field. */
export function resolveInitConfig(
  req: Pick<InitRequest, 'config' | 'appDefaults' | 'preset'>,
  manifest: Manifest | null,
): RunConfig {
  const r = resolveInitRequest(req, manifest);
  const first = r.errors[0];
  if (first) throw new ConfigError(first.field, first.message);
  return r.config;
}

/** Where a run's base came from. */
export type Origin = Pick<SourcedBase, 'source' | 'id'>;

/** An opened run with what the session keeps beside it. */
export interface OpenedRun {
  run: TrainingRun;
  origin: Origin;
  /** The request to repeat for a reset: the restore dropped, the dataset kept. */
  request: InitRequest;
  /** The custom task's dataset (null for the generated families). */
  dataset: LoadedDataset | null;
}

/**
 * A new run for an init request: restored from its snapshot, or over the requested base checkpoint.
 * A custom-task run's dataset is bound first and its prompts checked against the base's context
 * before any graph is built, so the error names the line.
 */
export async function openRun(
  req: InitRequest,
  backend: Backend,
  fetchBytes: (url: string) => Promise<Uint8Array>,
): Promise<OpenedRun> {
  const payload = req.restore ? req.restore.dataset : req.dataset;
  const dataset = (req.restore ? req.restore.config : req.config).task === 'custom' ? bindDataset(payload) : null;
  const check = (manifest: Manifest, config: RunConfig) => {
    if (dataset) checkPromptsFit(dataset.dataset, manifest.model.contextLength, config.max_completion_length);
  };
  const request = { ...req, restore: undefined, ...(payload ? { dataset: payload } : {}) };
  if (req.restore) {
    check(req.restore.base.manifest, req.restore.config);
    return {
      run: await TrainingRun.restore(backend, req.restore),
      origin: { source: req.restore.base.source, id: req.restore.base.id },
      request,
      dataset,
    };
  }
  // The manifest first (it is small): the config is resolved once over its recipe, before the weights are downloaded.
  const read = await sourceManifest(req.checkpoint, fetchBytes);
  const config = resolveInitConfig(req, read?.manifest ?? null);
  const base = await loadSource(req.checkpoint, read, config, fetchBytes);
  check(base.manifest, config);
  return {
    run: await TrainingRun.create(backend, base, config),
    origin: { source: base.source, id: base.id },
    request,
    dataset,
  };
}

/** The loaded run plus what only the session needs: where its base came from and inspection caches. */
export interface SessionRun extends Origin {
  request: InitRequest;
  run: TrainingRun;
  /** The objective settings each kept step ran with (settings can change live between steps). */
  settings: Map<number, ObjectiveSettings>;
  passkBaseCache: Map<string, Record<string, number>>;
  /** The custom task's dataset (null for the generated families). */
  dataset: LoadedDataset | null;
  /**
   * The run record Keep & share downloads (src/record/run-record.ts, the writer `rlvr train --record` uses): fed every
   * step.
   */
  recorder: RunRecorder;
}

export function sessionRun(o: OpenedRun): SessionRun {
  return {
    request: o.request,
    run: o.run,
    ...o.origin,
    settings: new Map(),
    passkBaseCache: new Map(),
    dataset: o.dataset,
    recorder: recorderFor(o.run, o.origin),
  };
}

/**
 * A run record for the session's run; a run resumed from an autosave brings its metrics and evaluations, not its
 * earlier rollouts.
 */
function recorderFor(run: TrainingRun, origin: Origin): RunRecorder {
  const m = run.base.manifest;
  const c = run.config;
  const rec = new RunRecorder(c, {
    writer: 'playground',
    command:
      `RLVR Playground (browser), base ${origin.id}; rlvr train --task ${c.task} --config config.json ` +
      `--seed ${c.seed} repeats it headlessly`,
    created: new Date().toISOString(),
    base: { name: m.name, manifest: m },
  });
  if (run.step > 0) {
    rec.addMetrics(run.metrics);
    rec.update(c, `resumed from an autosave at step ${run.step}: steps up to ${run.step} have metrics but no rollouts`);
  }
  for (const e of run.evals) rec.addEval(e);
  return rec;
}

export function initResult(run: TrainingRun, backend: BackendInfo, initSeconds: number): InitResult {
  const m = run.base.manifest;
  return {
    backend,
    config: run.config,
    model: { name: m.name, parameters: parameterCount(m.model), model: m.model, layout: run.policy.layout },
    baseManifest: m,
    step: run.step,
    metrics: run.metrics.slice(),
    evals: run.evals.slice(),
    initSeconds,
  };
}

/**
 * The current weights with a manifest in the shipped checkpoints' format (its command says how to repeat the run
 * headlessly).
 */
export async function savedCheckpoint(run: TrainingRun, origin: Origin): Promise<SavedCheckpoint> {
  const c = run.config;
  const name = `${run.base.manifest.name}+rl${run.step}`;
  const manifest = run.trainedManifest(
    name,
    `RLVR Playground (browser), base ${origin.id}; rlvr train --task ${c.task} --config config.json ` +
      `--steps ${run.step} --seed ${c.seed}`,
  );
  return { manifest, bytes: await run.weightBytes(name) };
}

/** The pipeline's snapshot plus where the base came from and the step budget. */
export async function snapshotOf(run: TrainingRun, origin: Origin, stepBudget: number): Promise<RunSnapshot> {
  const s = await run.snapshot();
  return {
    version: 1,
    savedAt: new Date().toISOString(),
    stepBudget,
    ...s,
    base: { ...s.base, source: origin.source, id: origin.id },
  };
}

export function backendInfo(b: SessionBackend): BackendInfo {
  return {
    kind: b.kind,
    description: b.description,
    reason: b.reason,
    threads: b.threads ?? 1,
    crossOriginIsolated: b.crossOriginIsolated ?? false,
    adapter: b.adapter ?? null,
  };
}

/** An uploaded checkpoint as a source, checked first: a bad file throws here and changes nothing. */
export function uploadSource(bytes: Uint8Array, manifestJson: unknown, name: string): CheckpointSource {
  const manifest = validateManifest(manifestJson);
  loadWeights(manifest, bytes);
  return { kind: 'upload', name, manifest, bytes };
}

/** Checks a custom task's dataset and makes it the custom family of this worker. */
function bindDataset(payload: InitRequest['dataset']): LoadedDataset {
  if (!payload) throw new ConfigError('task', 'the custom task trains on a JSONL dataset: import one first');
  const loaded = loadTrainingDataset(payload);
  bindCustomFamily(loaded.family);
  return loaded;
}
