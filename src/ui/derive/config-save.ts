/**
 * Save config: the setup as the JSON file Load config (config-file.ts) and `rlvr train --config FILE`
 * read: "preset", "task", the fields the person changed (plus the app's own starting values, so the
 * CLI runs what the page runs), and the difficulty knobs. Pure TypeScript (config-save.test.ts).
 */
import type { ConfigDataset } from '../../rl/config-file.ts';
import type { DatasetPayload } from '../../tasks/dataset-load.ts';
import {
  appDefaults,
  fieldSpec,
  parseKnob,
  parseText,
  safeFamily,
  validateDraft,
  type SetupDraft,
} from './config-form.ts';
import { formatBytes, IMPORT_LIMITS } from './import-limits.ts';

export class ConfigSaveError extends Error {}

/**
 * The largest dataset embedded in a saved config: the whole file then stays well under the config import cap
 * (import-limits.ts).
 */
export const EMBED_DATASET_MAX = IMPORT_LIMITS.config - 32 * 1024;

/**
 * A custom task's dataset as the saved config carries it: its JSONL text when it fits
 * (EMBED_DATASET_MAX), else its name and verifier with a note that the file must travel beside it.
 */
export function configDataset(p: DatasetPayload): ConfigDataset {
  // Measured as it is written: JSON escaping (every quote of a JSONL line) makes the text longer.
  const bytes = new TextEncoder().encode(JSON.stringify(p.text)).length;
  if (bytes <= EMBED_DATASET_MAX) return { name: p.name, verifier: p.verifier, text: p.text };
  return {
    name: p.name,
    verifier: p.verifier,
    note:
      `${p.name} is ${formatBytes(bytes)}, more than the ` +
      `${formatBytes(EMBED_DATASET_MAX)} a config file ` +
      'embeds: keep the file beside this config and ' +
      `import it (rlvr train --dataset ${p.name})`,
  };
}

/**
 * The file's JSON object; throws ConfigSaveError naming the invalid fields (an invalid setup is not saved). A custom
 * task's dataset goes with it (configDataset).
 */
export function setupFileObject(
  d: SetupDraft,
  measured: Record<string, number | string> = {},
  dataset: DatasetPayload | null = null,
): Record<string, unknown> {
  const { errors } = validateDraft(d, measured);
  const bad = Object.entries(errors);
  if (bad.length)
    throw new ConfigSaveError(
      `fix ${bad.length === 1 ? 'this setting' : `these ${bad.length} settings`} ` +
        `first: ${bad.map(([k, m]) => `${k}: ${m}`).join('; ')}`,
    );
  const out: Record<string, unknown> = { preset: d.presetId, task: d.task };
  for (const [k, v] of Object.entries(appDefaults)) if (!(k in d.edits)) out[k] = v;
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    const value = spec ? parseText(spec.kind, raw) : raw;
    if (path.startsWith('reward_weights.'))
      out.reward_weights = { ...((out.reward_weights as object) ?? {}), [path.slice(15)]: value };
    else out[path] = value;
  }
  const family = safeFamily(d.task);
  const knobs = Object.entries(d.knobs);
  if (knobs.length)
    out.difficulty = Object.fromEntries(knobs.map(([k, raw]) => [k, family ? parseKnob(family, k, raw) : raw]));
  if (d.task === 'custom') {
    if (!dataset)
      throw new ConfigSaveError(
        'the setup trains on your own data, but no dataset is imported: import one on the Your data tab first',
      );
    out.dataset = configDataset(dataset);
  }
  return out;
}

/** The file's text (pretty-printed, one trailing newline). */
export function setupFileText(
  d: SetupDraft,
  measured: Record<string, number | string> = {},
  dataset: DatasetPayload | null = null,
): string {
  return JSON.stringify(setupFileObject(d, measured, dataset), null, 2) + '\n';
}
