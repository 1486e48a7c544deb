/**
 * A run config from a file (the format of src/rl/config-file.ts, which `rlvr train --config FILE`
 * also reads) turned into a setup draft. Everything is checked before anything changes: the size,
 * the file format (parseRunConfigFile), then the draft as the form checks it (difficulty knobs
 * included); a bad file gives one clear message and the caller leaves the current setup and run as
 * they are. The draft describes the same RunConfig `rlvr train --config FILE` runs: fields the app
 * starts at its own values (appDefaults) are pinned to the file's values. Pure TypeScript
 * (config-file.test.ts).
 */
import { ConfigFileError, parseRunConfigFile } from '../../rl/config-file.ts';
import { fieldTable, type FieldDecl, type RunConfig } from '../../rl/config.ts';
import { checkImportSize } from './import-limits.ts';
import { appDefaults, safeFamily, toText, validateDraft, type Edits, type SetupDraft } from './config-form.ts';

export { ConfigFileError };

const DEFAULT_PRESET = 'grpo';

/** Parses and validates a config file's text into a setup draft; throws ConfigFileError with the reason. */
export function parseConfigFile(text: string, name = 'the config file'): SetupDraft {
  checkImportSize('config', name, new TextEncoder().encode(text).length);
  const { preset, fields, config } = parseRunConfigFile(text, name);
  if (!safeFamily(config.task)) throw new ConfigFileError(`${name}: unknown task "${config.task}"`);
  const edits: Edits = {};
  for (const k of Object.keys(appDefaults) as (keyof RunConfig)[]) if (!(k in fields)) edits[k] = toText(config[k]);
  for (const [k, v] of Object.entries(fields)) {
    const d: FieldDecl = fieldTable[k as keyof typeof fieldTable];
    if (d.ownControl) continue; // task and difficulty are read below; version is implied
    if (d.kind === 'weights' && v && typeof v === 'object') {
      for (const [part, pv] of Object.entries(v)) edits[`${k}.${part}`] = toText(pv);
    } else edits[k] = toText(v);
  }
  const knobs: Record<string, string> = {};
  for (const [k, v] of Object.entries((fields.difficulty as Record<string, unknown> | undefined) ?? {}))
    knobs[k] = String(v);
  // Every value the file gives is marked as the saved config's, so the form says "saved config" beside it until it is
  // edited.
  const origins: NonNullable<SetupDraft['origins']> = { task: 'saved config' };
  for (const path of [...Object.keys(edits), ...Object.keys(knobs).map((k) => `difficulty.${k}`)])
    origins[path] = 'saved config';
  const draft: SetupDraft = { task: config.task, presetId: preset ?? DEFAULT_PRESET, edits, knobs, origins };
  const { errors } = validateDraft(draft);
  const list = Object.entries(errors);
  if (list.length) throw new ConfigFileError(`${name}: ${list.map(([k, m]) => `${k}: ${m}`).join('; ')}`);
  return draft;
}
