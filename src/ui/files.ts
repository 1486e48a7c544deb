/**
 * Files in and out of the page: checkpoints (ours and the Hugging Face export), config files,
 * metrics and rollouts. Each action reports a bad file by name and leaves the current run as it was.
 */
import { loadWeights, validateManifest, type Manifest } from '../model/checkpoint.ts';
import type { RolloutRecord } from '../../workers/protocol.ts';
import { exportHuggingFace } from '../model/hf-export.ts';
import { zipStore } from '../util/zip.ts';
import { parseConfigFile } from './config-file.ts';
import { setupFileText } from './config-save.ts';
import { applyInit, initRun, showError } from './controller.ts';
import { hasRun } from './store.ts';
import { client } from './worker-link.ts';
import { download, metricsCsv, metricsJsonl, rolloutsJsonl } from './exporters.ts';
import { checkImportSize } from './import-limits.ts';
import { measuredDifficulty, updateSetup } from './setup-state.ts';
import { getState, patch, setState } from './store.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function downloadCheckpoint(): Promise<void> {
  try {
    const c = await client().call((a) => a.saveCheckpoint());
    // "<base>-step<N>": says which run and how far, and two downloads of one run do not collide.
    const base = `${c.manifest.name.replace(/\+rl\d+$/, '').replace(/[^\w.+-]+/g, '_')}-step${getState().run.step}`;
    download(`${base}.safetensors`, c.bytes);
    download(`${base}.manifest.json`, JSON.stringify({ ...c.manifest, weights: `${base}.safetensors` }, null, 2) + '\n', 'application/json');
  } catch (e) {
    showError('checkpoint', 'Could not save the checkpoint', e);
  }
}

/** The current policy as a Hugging Face GPT-2 folder in one zip: the files `rlvr export --format hf` writes. */
export async function downloadHuggingFace(): Promise<void> {
  try {
    const c = await client().call((a) => a.saveCheckpoint());
    const dir = `${c.manifest.name}-hf`;
    const files = exportHuggingFace(c.manifest, loadWeights(c.manifest, c.bytes));
    download(`${dir}.zip`, zipStore([...files].map(([name, data]) => ({ name: `${dir}/${name}`, data })), new Date()), 'application/zip');
  } catch (e) {
    showError('checkpoint', 'Could not export for Hugging Face', e);
  }
}

/** Reads an uploaded manifest.json + .safetensors pair and loads it (into the run if there is one). */
export async function uploadCheckpoint(files: File[]): Promise<void> {
  try {
    const mf = files.find((f) => f.name.endsWith('.json'));
    const wf = files.find((f) => f.name.endsWith('.safetensors'));
    if (!mf || !wf) throw new Error('choose both files of a checkpoint: its manifest (.json) and its weights (.safetensors)');
    checkImportSize('manifest', mf.name, mf.size);
    checkImportSize('checkpoint', wf.name, wf.size);
    let json: unknown;
    try {
      json = JSON.parse(await mf.text());
    } catch {
      throw new Error(`${mf.name} is not valid JSON`);
    }
    const manifest: Manifest = validateManifest(json);
    const bytes = new Uint8Array(await wf.arrayBuffer());
    const name = wf.name.replace(/\.safetensors$/, '');
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
  } catch (e) {
    showError('checkpoint', 'Could not load the checkpoint', `${message(e)}. The current model is unchanged.`);
  }
}

/**
 * Loads a run config from a JSON file into the setup form (as a shared link would). A bad file is
 * reported and changes nothing; a good one changes the form, and the run as the form always does
 * (knobs that apply live go to the running trainer, the rest wait for a reset).
 */
export async function importConfigFile(file: File): Promise<boolean> {
  try {
    checkImportSize('config', file.name, file.size);
    const draft = parseConfigFile(await file.text(), file.name);
    updateSetup((s) => ({ ...s, draft }));
    setState({ error: null, urlNotes: [`settings loaded from ${file.name}`] });
    return true;
  } catch (e) {
    showError('other', 'Could not load the config file', `${message(e)}. Nothing was changed.`);
    return false;
  }
}

/** Downloads the setup as a config file (what Load config and `rlvr train --config` read); an invalid setup is refused, naming its fields. */
export function downloadConfigFile(): boolean {
  const s = getState();
  try {
    download(`rlvr-config-${s.setup.draft.presetId}-${s.setup.draft.task}.json`, setupFileText(s.setup.draft, measuredDifficulty(s)), 'application/json');
    return true;
  } catch (e) {
    showError('other', 'Could not save the config file', e);
    return false;
  }
}

export function exportMetrics(kind: 'csv' | 'jsonl'): void {
  const { metrics, evals } = getState();
  if (kind === 'csv') download('metrics.csv', metricsCsv(metrics, evals), 'text/csv');
  else download('metrics.jsonl', metricsJsonl(metrics, evals), 'application/jsonl');
}

/**
 * The run as one run record (the file `rlvr train --record` writes): the worker wrote the bytes with
 * the same writer (src/rl/run-record.ts); the page only downloads them.
 */
export async function exportRunRecord(weights = false): Promise<void> {
  try {
    const bytes = await client().call((a) => a.runRecord({ weights }));
    const { run, setup } = getState();
    download(`rlvr-${run.config?.task ?? setup.draft.task}-${setup.draft.presetId}-step${run.step}.rlvr.gz`, bytes, 'application/gzip');
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

