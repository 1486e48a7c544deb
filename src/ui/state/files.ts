/**
 * Files in and out of the page: checkpoints (ours and the Hugging Face export), config files,
 * metrics and rollouts. Each action reports a bad file by name and leaves the current run as it was.
 */
import { loadWeights, saveWeights, validateManifest, type Manifest } from '../../model/checkpoint.ts';
import type { HfFolder } from '../../model/hf-import.ts';
import { hfImportPaths, nestedCheckpoints } from '../derive/hf-folder-paths.ts';
import { unzip } from '../derive/unzip.ts';
import type { RolloutRecord } from '../../../workers/protocol.ts';
import { checkpointWarning, huggingFaceFolder } from '../derive/hf-download.ts';
import { zipStore } from '../../util/zip.ts';
import { parseConfigFile } from '../derive/config-file.ts';
import { parseRunConfigFile } from '../../rl/config-file.ts';
import { adoptDataset, useDataset } from './dataset-import.ts';
import { setupFileText } from '../derive/config-save.ts';
import { applyInit } from './run-load.ts';
import { showError } from './errors.ts';
import { hasRun } from './store.ts';
import { client } from './worker-link.ts';
import { download, metricsCsv, metricsJsonl, rolloutsJsonl } from './exporters.ts';
import { checkImportSize, IMPORT_LIMITS } from '../derive/import-limits.ts';
import { checkpointParts, savedTokenizer, tokenizerParts } from '../derive/checkpoint-files.ts';
import { readUtf8File } from '../derive/text-import.ts';
import { measuredDifficulty, updateSetup } from './setup-state.ts';
import { getState, setState } from './store.ts';
import { setNotices } from './notices.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The current policy as Save checkpoint names it: "<base>-step<N>" says which run and how far, and two
 * downloads of one run do not collide. The Hugging Face export records this same manifest, so
 * importing the export gives back exactly the checkpoint Save checkpoint writes.
 */
async function savedCheckpoint(): Promise<{ base: string; manifest: Manifest; bytes: Uint8Array }> {
  const c = await client().call((a) => a.saveCheckpoint());
  const base = `${c.manifest.name.replace(/\+rl\d+$/, '').replace(/[^\w.+-]+/g, '_')}-step${getState().run.step}`;
  return { base, manifest: { ...c.manifest, weights: `${base}.safetensors` }, bytes: c.bytes };
}

/** The tokenizer files of the model this run was built from (a model imported since has its own). */
function runTokenizerFiles(): Record<string, Uint8Array> {
  const s = getState();
  return (s.uploaded && s.runControl.sourceKey === `upload:${s.uploaded.name}` ? s.uploaded.files : undefined) ?? {};
}

export async function downloadCheckpoint(): Promise<void> {
  try {
    const { base, manifest: saved, bytes } = await savedCheckpoint();
    setNotices({ exportWarning: checkpointWarning(saved, bytes) });
    let manifest = saved;
    // A Llama or Qwen2 run's checkpoint is not whole without its tokenizer (Load checkpoint asks for it).
    if (saved.tokenizer.kind === 'hf') {
      const t = savedTokenizer(saved.tokenizer, base, runTokenizerFiles());
      manifest = { ...saved, tokenizer: t.spec };
      for (const [name, data] of t.files) download(name, data);
    }
    download(`${base}.safetensors`, bytes);
    download(`${base}.manifest.json`, JSON.stringify(manifest, null, 2) + '\n', 'application/json');
  } catch (e) {
    showError('checkpoint', 'Could not save the checkpoint', e);
  }
}

/**
 * The current policy as a Hugging Face folder in one zip (GPT-2, or the Llama or Qwen2 it was imported as,
 * LoRA merged): the files `rlvr export --format hf` writes.
 */
export async function downloadHuggingFace(): Promise<void> {
  try {
    const c = await savedCheckpoint();
    const dir = `${c.manifest.name}-hf`;
    const { files, warning } = huggingFaceFolder(c.manifest, c.bytes, runTokenizerFiles());
    setNotices({ exportWarning: warning });
    download(
      `${dir}.zip`,
      zipStore(
        [...files].map(([name, data]) => ({ name: `${dir}/${name}`, data })),
        new Date(),
      ),
      'application/zip',
    );
  } catch (e) {
    showError('checkpoint', 'Could not export for Hugging Face', e);
  }
}

/**
 * Reads an uploaded manifest.json + .safetensors pair and loads it (into the run if there is one). A
 * checkpoint with its own tokenizer (a Llama or Qwen2) also needs the tokenizer files its manifest names;
 * it becomes the setup's checkpoint, as Import Hugging Face makes such a model, and Start trains it.
 */
export async function uploadCheckpoint(files: File[]): Promise<void> {
  try {
    const { manifest: mf, weights: wf } = checkpointParts(files);
    checkImportSize('manifest', mf.name, mf.size);
    checkImportSize('checkpoint', wf.name, wf.size);
    const text = await readUtf8File(mf, "a checkpoint's manifest.json");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${mf.name} is not valid JSON`);
    }
    const manifest: Manifest = validateManifest(json);
    if (manifest.tokenizer.kind === 'hf') {
      const own: Record<string, Uint8Array> = {};
      for (const [name, f] of tokenizerParts(manifest.tokenizer, mf.name, files)) {
        checkImportSize('checkpoint', f.name, f.size);
        own[name] = new Uint8Array(await f.arrayBuffer());
      }
      const bytes = new Uint8Array(await wf.arrayBuffer());
      loadWeights(manifest, bytes); // every tensor checked against the manifest before anything changes
      setState({ uploaded: { name: manifest.name, manifest, bytes, files: own }, error: null });
      updateSetup((s) => ({ ...s, checkpoint: 'upload', model: null }));
      return;
    }
    await switchToCheckpoint(wf.name.replace(/\.safetensors$/, ''), manifest, new Uint8Array(await wf.arrayBuffer()));
  } catch (e) {
    showError('checkpoint', 'Could not load the checkpoint', `${message(e)}. The current model is unchanged.`);
  }
}

/** Makes a checkpoint the setup's (and, with a run, the run's) model, as Load checkpoint does. */
async function switchToCheckpoint(name: string, manifest: Manifest, bytes: Uint8Array): Promise<void> {
  if (hasRun()) {
    const keep = bytes.slice(); // the worker call transfers nothing, but keep our own copy for the next reset
    const r = await client().call((a) => a.loadCheckpoint(bytes, manifest, name));
    setState({ uploaded: { name, manifest, bytes: keep } });
    updateSetup((s) => ({ ...s, checkpoint: 'upload', model: null }));
    applyInit(r);
  } else {
    // Checked in the worker when the run starts; keep it as the setup's checkpoint meanwhile.
    setState({ uploaded: { name, manifest, bytes } });
    updateSetup((s) => ({ ...s, checkpoint: 'upload', model: null }));
  }
  setState({ error: null });
}

/** A file chosen in a folder picker carries its path; a plain file only its name. */
const pathOf = (f: File) => (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;

/**
 * The files of a Hugging Face folder, relative to the folder that holds config.json (the shallowest
 * one): from a zip (as Export for Hugging Face downloads it, or zipped by hand) or from a folder.
 */
async function hfFolderOf(files: File[]): Promise<{ folder: HfFolder; source: string }> {
  let all = new Map<string, Uint8Array>();
  let source: string;
  let checkpoints: string[] = [];
  const zip = files.length === 1 && files[0]!.name.toLowerCase().endsWith('.zip') ? files[0]! : null;
  if (zip) {
    checkImportSize('checkpoint', zip.name, zip.size);
    all = await unzip(new Uint8Array(await zip.arrayBuffer()), IMPORT_LIMITS.checkpoint);
    source = zip.name;
  } else {
    const read = new Set(hfImportPaths(files.map(pathOf)));
    const wanted = files.filter((f) => read.has(pathOf(f)));
    checkpoints = nestedCheckpoints(files.map(pathOf));
    // A real model's tokenizer.json is several MB (Qwen2's ~7 MB): it is held to the weights' cap.
    const big = (f: File) => f.name.endsWith('.safetensors') || f.name === 'tokenizer.json';
    for (const f of wanted) checkImportSize(big(f) ? 'checkpoint' : 'manifest', pathOf(f), f.size);
    for (const f of wanted) all.set(pathOf(f), new Uint8Array(await f.arrayBuffer()));
    source = pathOf(files[0]!).split('/')[0] || files[0]!.name;
  }
  const configs = [...all.keys()]
    .filter((p) => p === 'config.json' || p.endsWith('/config.json'))
    .sort((a, b) => a.split('/').length - b.split('/').length);
  if (!configs.length && checkpoints.length) {
    const list = checkpoints.join(', ');
    throw new Error(
      `${source} has no config.json of its own, only the ` +
        `checkpoint folders ${list}: choose one of them ` +
        '(the highest step is the latest)',
    );
  }
  if (!configs.length)
    throw new Error(
      `${source} has no config.json: choose the Hugging ` +
        'Face folder (or its zip) that rlvr export --format ' +
        'hf or TRL wrote',
    );
  const dir = configs[0]!.slice(0, -'config.json'.length);
  const folder: HfFolder = new Map();
  for (const [p, data] of all)
    if (p.startsWith(dir) && !p.slice(dir.length).includes('/')) folder.set(p.slice(dir.length), data);
  return { folder, source };
}

/**
 * Imports a Hugging Face folder or zip (rlvr import --format hf in the page, through the same code:
 * importAnyHuggingFace in src/model/hf-import-llama.ts). A GPT-2 folder holding a playground checkpoint
 * becomes the model, as Load checkpoint does. A LlamaForCausalLM or Qwen2ForCausalLM folder becomes the
 * uploaded checkpoint with its own tokenizer (shown in Base checkpoint and in Keep & share, where Score
 * a text runs it); Start trains it (the run in progress, if any, is left as it is until then). A folder the playground
 * cannot run is refused with the reason and the current
 * model stays: everything is checked before anything changes.
 */
export async function importHuggingFaceFiles(files: File[]): Promise<void> {
  try {
    if (!files.length) return;
    const { folder, source } = await hfFolderOf(files);
    const { importAnyHuggingFace } = await import('../../model/hf-import-llama.ts');
    const { manifest, weights, files: own } = importAnyHuggingFace(folder, { source });
    const bytes = saveWeights(manifest.model, weights, { name: manifest.name });
    if (manifest.tokenizer.kind === 'hf') {
      setState({
        uploaded: { name: manifest.name, manifest, bytes, files: Object.fromEntries(own ?? []) },
        error: null,
      });
      updateSetup((s) => ({ ...s, checkpoint: 'upload', model: null }));
      return;
    }
    await switchToCheckpoint(manifest.name, manifest, bytes);
  } catch (e) {
    showError(
      'checkpoint',
      'Could not import the Hugging Face model',
      `${message(e)}. The current model is unchanged.`,
    );
  }
}

/**
 * Loads a run config from a JSON file into the setup form (as a shared link would). A bad file is
 * reported and changes nothing; a good one changes the form, and the run as the form always does
 * (knobs that apply live go to the running trainer, the rest wait for a reset).
 */
export async function importConfigFile(file: File): Promise<boolean> {
  // A custom-task config carries its dataset: it is adopted first (the draft is checked against it)
  // and put back as it was if anything in the file is refused.
  const kept = useDataset.getState();
  try {
    checkImportSize('config', file.name, file.size);
    const text = await readUtf8File(file, 'a run config');
    const carried = parseRunConfigFile(text, file.name).dataset;
    if (carried && carried.text === undefined && kept.payload?.name !== carried.name) {
      throw new Error(
        `${file.name} trains on ${carried.name}, which it ` +
          `names but does not embed${carried.note ? ` (${carried.note})` : ''}` +
          `: import ${carried.name} on the Your data tab ` +
          'first, then load this config',
      );
    }
    if (carried?.text !== undefined)
      adoptDataset({ name: carried.name, text: carried.text, verifier: carried.verifier });
    const draft = parseConfigFile(text, file.name);
    updateSetup((s) => ({ ...s, draft, dataset: carried?.name ?? null }));
    const notes = [`settings loaded from ${file.name}`];
    if (carried?.text !== undefined)
      notes.push(`its dataset ${carried.name} (embedded in the file) is now the one in use: see the Your data tab`);
    else if (carried)
      notes.push(
        `it trains on ${carried.name}, which it names but ` +
          `does not embed${carried.note ? ` (${carried.note})` : ''}` +
          ': import that file on the Your data tab',
      );
    setState({ error: null, urlNotes: notes });
    return true;
  } catch (e) {
    useDataset.setState({ payload: kept.payload, summary: kept.summary });
    if (kept.payload) adoptDataset(kept.payload);
    showError('other', 'Could not load the config file', `${message(e)}. Nothing was changed.`);
    return false;
  }
}

/**
 * Downloads the setup as a config file (what Load config and `rlvr train --config` read); an invalid setup is refused,
 * naming its fields.
 */
export function downloadConfigFile(): boolean {
  const s = getState();
  try {
    download(
      `rlvr-config-${s.setup.draft.presetId}-${s.setup.draft.task}.json`,
      setupFileText(s.setup.draft, measuredDifficulty(s), useDataset.getState().payload),
      'application/json',
    );
    return true;
  } catch (e) {
    showError('other', 'Could not save the config file', e);
    return false;
  }
}

export function exportMetrics(kind: 'csv' | 'jsonl'): void {
  const { metrics, evals } = getState().run;
  if (kind === 'csv') download('metrics.csv', metricsCsv(metrics, evals), 'text/csv');
  else download('metrics.jsonl', metricsJsonl(metrics, evals), 'application/jsonl');
}

/**
 * The run as one run record (the file `rlvr train --record` writes): the worker wrote the bytes with
 * the same writer (src/record/run-record.ts); the page only downloads them.
 */
export async function exportRunRecord(weights = false): Promise<void> {
  try {
    const bytes = await client().call((a) => a.runRecord({ weights }));
    const { run, setup } = getState();
    download(
      `rlvr-${run.config?.task ?? setup.draft.task}-${setup.draft.presetId}-step${run.step}.rlvr.gz`,
      bytes,
      'application/gzip',
    );
  } catch (e) {
    showError('other', 'Could not save the run record', e);
  }
}

export async function exportRollouts(): Promise<void> {
  try {
    const steps = await client().call((a) => a.rolloutSteps());
    const all: RolloutRecord[] = [];
    for (const s of steps) {
      const r = await client().call((a) => a.getRollouts(s));
      if (r) all.push(...r.records);
    }
    download('rollouts.jsonl', rolloutsJsonl(all), 'application/jsonl');
  } catch (e) {
    showError('other', 'Could not export the rollouts', e);
  }
}
