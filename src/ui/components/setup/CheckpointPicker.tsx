import type { Manifest } from '../../../model/checkpoint.ts';
import { recipeFor } from '../../../rl/resolve-config.ts';
import { modelPresets } from '../../../model/config.ts';
import { defaultCheckpointFor, selectedCheckpoint, updateSetup } from '../../state/setup-state.ts';
import { uploadCheckpoint } from '../../state/files.ts';
import { useApp } from '../../state/store.ts';
import { architectureOf, modelSummary } from '../../derive/imported-model.ts';

/** Base checkpoint: a shipped one, an uploaded one, or a fresh random model (tests and demos). */
export function CheckpointPicker() {
  const checkpoints = useApp((s) => s.checkpoints);
  const uploaded = useApp((s) => s.uploaded);
  const setup = useApp((s) => s.setup);
  const task = setup.draft.task;
  const value = useApp((s) =>
    s.setup.model ? `fresh:${s.setup.model}` : s.setup.checkpoint === 'upload' ? 'upload' : selectedCheckpoint(s),
  );
  const taskDefault = defaultCheckpointFor(task, checkpoints);
  const current = checkpoints.find((c) => c.id === value);
  const measured = current?.manifest?.tasks.find((t) => t.task === task);
  const onChange = (v: string) =>
    updateSetup((s) =>
      v.startsWith('fresh:')
        ? { ...s, model: v.slice(6), checkpoint: null }
        : { ...s, model: null, checkpoint: v === taskDefault ? null : v },
    );
  return (
    <fieldset className="group">
      <legend>Base checkpoint</legend>
      <div className="field">
        <label htmlFor="checkpoint">Start from</label>
        <select id="checkpoint" value={value} onChange={(e) => onChange(e.target.value)} data-testid="checkpoint">
          {checkpoints.map((c) => (
            <option key={c.id} value={c.id}>
              {c.id}
              {c.manifest ? ` (${(c.manifest.parameters / 1e3).toFixed(0)}k params)` : ' (unavailable)'}
            </option>
          ))}
          {uploaded && (
            <option value="upload">
              uploaded: {uploaded.name} ({architectureOf(uploaded.manifest)},{' '}
              {(uploaded.manifest.parameters / 1e3).toFixed(0)}k params)
            </option>
          )}
          {Object.keys(modelPresets).map((m) => (
            <option key={m} value={`fresh:${m}`}>
              fresh {m} model, random weights (gets no reward; for tests)
            </option>
          ))}
        </select>
        <p className="help" data-testid="checkpoint-note">
          {setup.model
            ? 'A randomly initialised model: it cannot solve ' +
              'anything yet, so rewards stay at zero. Useful for ' +
              'testing backends.'
            : value === 'upload' && uploaded && uploaded.manifest.tokenizer.kind === 'hf'
              ? `${modelSummary(uploaded.name, uploaded.manifest)}, ` +
                `with its own tokenizer: training lays the task's ` +
                'prompts out in its tokens.'
              : current?.error
                ? `This checkpoint could not be read: ${current.error}`
                : measured
                  ? measuredText(current!.manifest!, task)
                  : current?.manifest
                    ? `This checkpoint lists no figures for ${task}; expect little reward.`
                    : ''}
        </p>
      </div>
      <div className="field">
        <label htmlFor="upload-checkpoint">
          Upload a checkpoint (manifest .json + .safetensors, and the tokenizer files a Llama or Qwen2 has)
        </label>
        <input
          id="upload-checkpoint"
          type="file"
          multiple
          accept=".json,.safetensors,.jinja,application/json"
          data-testid="upload-checkpoint"
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = '';
            if (files.length) void uploadCheckpoint(files);
          }}
        />
      </div>
    </fieldset>
  );
}

const knobText = (d: Record<string, unknown>) =>
  Object.entries(d)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/**
 * Where the checkpoint was measured after pretraining, and where RL starts: the manifest's recipe
 * difficulty (what the setup's difficulty knobs start from, measuredDifficulty in setup-state.ts) when it
 * differs from the pretraining measurement, so the note names the same numbers as the knobs.
 */
function measuredText(m: Manifest, task: string): string {
  const measured = m.tasks.find((t) => t.task === task)!;
  const rl = recipeFor(m, task).difficulty ?? {};
  const same = Object.keys(rl).every((k) => String(rl[k]) === String(measured.difficulty[k]));
  const pct = ((measured.pass_at_k['1'] ?? 0) * 100).toFixed(0);
  const start = same
    ? ' (RL starts at that difficulty).'
    : `. RL starts at the recipe's difficulty, ${knobText(rl)} (the difficulty knobs below).`;
  return (
    `Pretrained on ${task}; held-out pass@1 ${pct}% at ` +
    `${knobText(measured.difficulty)} after pretraining` +
    `${start}${recipeText(m, task)}`
  );
}

/**
 * What the checkpoint's recipe sets beyond the difficulty, and what GRPO measurably did with it (rlvr sweep
 * --record-gain).
 */
function recipeText(m: Manifest | null, task: string): string {
  if (!m) return '';
  const { difficulty: _d, ...knobs } = recipeFor(m, task);
  const set = Object.entries(knobs).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  const g = m.rl_gain;
  let gain = '';
  if (g) {
    const who = g.preset === 'grpo' ? 'GRPO' : g.preset;
    const seeds =
      `${g.seeds.length} seed${g.seeds.length === 1 ? '' : 's'}` + `, lowest ${g.pass_at_1_after_min.toFixed(2)}`;
    const [before, after] = [g.pass_at_1_before.toFixed(2), g.pass_at_1_after.toFixed(2)];
    const at = (g.temperature ?? 1) !== 1 ? ` (sampling at temperature ${g.temperature})` : '';
    gain =
      g.pass_at_1_after - g.pass_at_1_before >= 0.01
        ? ` ${who} raises held-out pass@1${at} there from ${before} to ${after} in ${g.steps} steps (${seeds}).`
        : ` ${who} does not raise held-out pass@1${at} there: ` +
          `${before} before, ${after} after ${g.steps} steps ` +
          `(${seeds}).`;
  }
  return `${set.length ? ` Its recipe also sets ${set.join(', ')}.` : ''}${gain}`;
}
