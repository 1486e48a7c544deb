import { useEffect, useState } from 'react';
import { autosave, setAutosaveInterval } from '../state/autosave.ts';
import { discardSaved } from '../state/restore.ts';
import {
  downloadCheckpoint,
  downloadConfigFile,
  downloadHuggingFace,
  exportMetrics,
  exportRollouts,
  exportRunRecord,
  importConfigFile,
  importHuggingFaceFiles,
  uploadCheckpoint,
} from '../state/files.ts';
import { setNotices, useNotices } from '../state/notices.ts';
import { ImportedModelCard } from './ImportedModelCard.tsx';
import { getState, useApp } from '../state/store.ts';
import { download } from '../state/exporters.ts';
import { effectiveDraftConfig } from '../state/setup-state.ts';

/** The last checkpoint download's or export's warning (adapters that change nothing), until dismissed. */
function ExportWarning() {
  const text = useNotices((s) => s.exportWarning);
  if (!text) return null;
  return (
    <div className="banner warn" role="status" data-testid="export-warning">
      <span>{text}</span>{' '}
      <button type="button" onClick={() => setNotices({ exportWarning: null })}>
        Dismiss
      </button>
    </div>
  );
}

function CopyLink() {
  const setup = useApp((s) => s.setup);
  const dataset = setup.draft.task === 'custom' ? (setup.dataset ?? null) : null;
  const [url, setUrl] = useState(location.href);
  const [copied, setCopied] = useState(false);
  useEffect(() => setUrl(location.href), [setup]);
  return (
    <div className="field">
      <label htmlFor="share-url">Link to this experiment (only settings that differ from the defaults)</label>
      <div className="row">
        <input
          id="share-url"
          type="text"
          readOnly
          value={url}
          data-testid="share-url"
          onFocus={(e) => e.target.select()}
        />
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(url).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {dataset && (
        <p className="help" data-testid="share-dataset-note">
          The link names your dataset, {dataset}, but cannot hold its lines: whoever opens it imports {dataset} on the
          Your data tab. Save config below embeds the lines.
        </p>
      )}
    </div>
  );
}

/** Keep and share: the URL, checkpoints, exports, and the run saved in this browser. */
export default function SharePanel() {
  const hasRun = useApp((s) => s.run.config !== null && s.run.state !== 'idle' && s.run.state !== 'crashed');
  const steps = useApp((s) => s.run.metrics.length);
  const saved = useApp((s) => s.autosave);
  const every = useNotices((s) => s.autosaveEvery);
  const off = useNotices((s) => s.autosaveOff !== null);
  return (
    <div className="share">
      <section>
        <h3>Share</h3>
        <CopyLink />
        <label className="file-button">
          Load a config file…
          <input
            type="file"
            accept=".json,application/json"
            data-testid="load-config"
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = '';
              if (f) void importConfigFile(f);
            }}
          />
        </label>{' '}
        <button type="button" data-testid="save-config" onClick={() => downloadConfigFile()}>
          Save config
        </button>
        <p className="help">
          Save config downloads the setup as JSON (with its "preset"): Load config reads it back, and so does{' '}
          <code>rlvr train --config FILE</code>.
        </p>
      </section>
      <TrlExportSection />
      <section>
        <h3>Checkpoints</h3>
        <p className="help">
          Safetensors weights plus a manifest in the same format as the shipped checkpoints (
          <code>rlvr eval --model NAME.manifest.json</code> reads it).
        </p>
        <div className="row">
          <button
            type="button"
            disabled={!hasRun}
            data-testid="save-checkpoint"
            onClick={() => void downloadCheckpoint()}
          >
            Download checkpoint
          </button>
          <button type="button" disabled={!hasRun} data-testid="export-hf" onClick={() => void downloadHuggingFace()}>
            Export for Hugging Face
          </button>
          <label className="file-button">
            Load checkpoint…
            <input
              type="file"
              multiple
              accept=".json,.safetensors,.jinja,application/json"
              data-testid="load-checkpoint"
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                e.target.value = '';
                if (files.length) void uploadCheckpoint(files);
              }}
            />
          </label>
        </div>
        <div className="row">
          <label className="file-button">
            Import Hugging Face (zip)…
            <input
              type="file"
              accept=".zip,application/zip"
              data-testid="import-hf-zip"
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                e.target.value = '';
                if (files.length) void importHuggingFaceFiles(files);
              }}
            />
          </label>
          <label className="file-button">
            Import Hugging Face (folder)…
            <input
              type="file"
              multiple
              {...{ webkitdirectory: '' }}
              data-testid="import-hf-folder"
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                e.target.value = '';
                if (files.length) void importHuggingFaceFiles(files);
              }}
            />
          </label>
        </div>
        <ExportWarning />
        <ImportedModelCard />
        <p className="help">
          Import Hugging Face reads a folder, or its zip (<code>rlvr import --format hf</code> does the same on the
          command line, through the same code): a GPT-2 folder with the playground's tokenizer, as Export for Hugging
          Face (or <code>rlvr export --format hf</code>) wrote it or TRL saved it after training from it, becomes the
          model, as Load checkpoint does. A LlamaForCausalLM or Qwen2ForCausalLM folder (config.json, model.safetensors
          or its shards with model.safetensors.index.json, tokenizer.json, tokenizer_config.json,
          generation_config.json) becomes the uploaded checkpoint with its own tokenizer: Score a text shows its
          per-token log-probabilities, and Start trains it in its own tokens (with LoRA when lora_r is set). A folder of
          another architecture, tokenizer type or shape, or with a truncated shard, is refused with the reason.
        </p>
        <p className="help">
          Export for Hugging Face downloads one zip: a GPT-2 folder (config.json, model.safetensors, tokenizer,
          generation config) that transformers' GPT2LMHeadModel loads, plus onnx/model.onnx for transformers.js; a Llama
          or Qwen2 run gives the LlamaForCausalLM or Qwen2ForCausalLM folder it was imported as, with its own tokenizer
          files. LoRA adapters are merged into the weights, as PEFT's merge_and_unload does; adapters that never moved
          (every B still zero) are named here.
        </p>
        <p className="help">
          Loading replaces the model and starts a fresh run from it with the current settings; a file that does not fit
          leaves the current model as it is.
        </p>
      </section>
      <section>
        <h3>Export</h3>
        <div className="row">
          <button type="button" disabled={!steps} data-testid="export-csv" onClick={() => exportMetrics('csv')}>
            Metrics (CSV)
          </button>
          <button type="button" disabled={!steps} data-testid="export-jsonl" onClick={() => exportMetrics('jsonl')}>
            Metrics (JSONL)
          </button>
          <button type="button" disabled={!hasRun} data-testid="export-rollouts" onClick={() => void exportRollouts()}>
            Rollouts (JSONL)
          </button>
        </div>
        <div className="row">
          <button
            type="button"
            disabled={!hasRun}
            data-testid="export-record"
            onClick={() => void exportRunRecord(false)}
          >
            Run record
          </button>
          <button
            type="button"
            disabled={!hasRun}
            data-testid="export-record-weights"
            onClick={() => void exportRunRecord(true)}
          >
            Run record with weights
          </button>
        </div>
        <p className="help">
          A run record is the whole run in one compressed file: config, every step’s metrics, the evaluations and every
          step’s rollouts down to single tokens (with weights: the current model too). It is the file{' '}
          <code>rlvr train --record FILE</code> writes.
        </p>
        <p className="help">
          Metrics use TRL’s names where TRL logs the same quantity; the JSONL has the same lines as{' '}
          <code>rlvr train</code>’s <code>metrics.jsonl</code>. Rollouts cover the steps kept in full.
        </p>
      </section>
      <section>
        <h3>Saved in this browser</h3>
        <p data-testid="autosave-status">
          {off ? 'Autosave is off (see the note above). ' : ''}
          {saved
            ? `Autosaved at step ${saved.step} (${new Date(saved.at).toLocaleTimeString()}` +
              `${saved.ms ? `; training waited ${Math.round(saved.ms.snapshot + saved.ms.put)} ms for it` : ''}` +
              '); a reload resumes from there.'
            : 'Nothing saved yet: the run is saved ' +
              (every === 1
                ? 'after every step (at most a tenth of the training time) and '
                : every > 1
                  ? `every ${every} steps and `
                  : '') +
              'whenever it pauses.'}
        </p>
        <div className="field">
          <label htmlFor="autosave-every">Autosave every N steps (0: only when training pauses or ends)</label>
          <input
            id="autosave-every"
            type="number"
            min={0}
            step={1}
            value={every}
            data-testid="autosave-every"
            onChange={(e) => {
              const n = Number(e.target.value);
              if (Number.isInteger(n) && n >= 0 && n <= 100_000) setAutosaveInterval(n);
            }}
          />
        </div>
        <div className="row">
          <button type="button" disabled={!hasRun} onClick={() => void autosave(true)}>
            Save now
          </button>
          <button type="button" disabled={!saved} onClick={() => void discardSaved()}>
            Forget the saved run
          </button>
        </div>
      </section>
    </div>
  );
}

/** Continue with TRL: the TRL project of this run's config (the setup's before a run), with its README's commands. */
function TrlExportSection() {
  const [commands, setCommands] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onExport = async () => {
    setBusy(true);
    setError(null);
    try {
      const s = getState();
      const config = s.run.config ?? effectiveDraftConfig(s);
      if (!config) throw new Error('the setup has invalid settings: fix them first');
      const { trlExportZip, readmeCommands } = await import('../state/trl-export.ts');
      const r = await trlExportZip(config);
      download(r.name, r.bytes, 'application/zip');
      setCommands(readmeCommands(r.readme));
    } catch (e) {
      setError(`Could not export for TRL: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section data-testid="trl-export">
      <h3>Continue with TRL</h3>
      <p className="help">
        Export for TRL downloads the TRL (Hugging Face) GRPO project of this run’s config, the files{' '}
        <code>rlvr export --format trl</code> writes: <code>train_grpo.py</code>, the verifier as{' '}
        <code>rewards.py</code>, the run-record writer, <code>run_config.json</code>, 2000 training prompts and a
        README. Its README says how to run it on a GPU machine.
      </p>
      <button type="button" data-testid="export-trl" disabled={busy} onClick={() => void onExport()}>
        Export for TRL
      </button>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {commands && (
        <div data-testid="trl-commands">
          <p className="help">
            The README’s commands (the model comes from Export for Hugging Face, or <code>rlvr export --format hf</code>
            ):
          </p>
          {commands.map((c) => (
            <pre key={c}>
              <code>{c}</code>
            </pre>
          ))}
        </div>
      )}
    </section>
  );
}
