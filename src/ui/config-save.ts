/**
 * Save config: the setup as the JSON file Load config (config-file.ts) and `rlvr train --config FILE`
 * read: "preset", "task", the fields the person changed (plus the app's own starting values, so the
 * CLI runs what the page runs), and the difficulty knobs. Pure TypeScript (config-save.test.ts).
 */
import { appDefaults, fieldSpec, parseKnob, parseText, safeFamily, validateDraft, type SetupDraft } from './config-form.ts';

export class ConfigSaveError extends Error {}

/** The file's JSON object; throws ConfigSaveError naming the invalid fields (an invalid setup is not saved). */
export function setupFileObject(d: SetupDraft, measured: Record<string, number | string> = {}): Record<string, unknown> {
  const { errors } = validateDraft(d, measured);
  const bad = Object.entries(errors);
  if (bad.length) throw new ConfigSaveError(`fix ${bad.length === 1 ? 'this setting' : `these ${bad.length} settings`} first: ${bad.map(([k, m]) => `${k}: ${m}`).join('; ')}`);
  const out: Record<string, unknown> = { preset: d.presetId, task: d.task };
  for (const [k, v] of Object.entries(appDefaults)) if (!(k in d.edits)) out[k] = v;
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    const value = spec ? parseText(spec.kind, raw) : raw;
    if (path.startsWith('reward_weights.')) out.reward_weights = { ...((out.reward_weights as object) ?? {}), [path.slice(15)]: value };
    else out[path] = value;
  }
  const family = safeFamily(d.task);
  const knobs = Object.entries(d.knobs);
  if (knobs.length) out.difficulty = Object.fromEntries(knobs.map(([k, raw]) => [k, family ? parseKnob(family, k, raw) : raw]));
  return out;
}

/** The file's text (pretty-printed, one trailing newline). */
export function setupFileText(d: SetupDraft, measured: Record<string, number | string> = {}): string {
  return JSON.stringify(setupFileObject(d, measured), null, 2) + '\n';
}
