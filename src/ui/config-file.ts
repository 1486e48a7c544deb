/**
 * A run config from a file (the same JSON `rlvr train --config FILE` reads, optionally with a
 * "preset" id) turned into a setup draft. Everything is checked before anything changes: invalid
 * JSON (with its position), a non-object, unknown fields, out-of-range values, an unknown preset, task
 * or difficulty knob each give one clear message, and the caller leaves the current setup and run as
 * they are. Pure TypeScript (config-file.test.ts).
 */
import { ConfigError, defaultConfig, fieldTable, validateConfig, type FieldDecl } from '../rl/config.ts';
import { getPreset, presets } from '../rl/presets.ts';
import { checkImportSize } from './import-limits.ts';
import { safeFamily, toText, validateDraft, type Edits, type SetupDraft } from './config-form.ts';

export class ConfigFileError extends Error {}

const DEFAULT_PRESET = 'grpo';

/** Parses and validates a config file's text into a setup draft; throws ConfigFileError with the reason. */
export function parseConfigFile(text: string, name = 'the config file'): SetupDraft {
  checkImportSize('config', name, new TextEncoder().encode(text).length);
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw new ConfigFileError(`${name} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigFileError(`${name} must hold one JSON object of config fields, got ${Array.isArray(raw) ? 'an array' : raw === null ? 'null' : typeof raw}`);
  const { preset, ...fields } = raw as Record<string, unknown>;
  if (preset !== undefined && (typeof preset !== 'string' || !presets.some((p) => p.id === preset))) {
    throw new ConfigFileError(`${name}: unknown preset ${JSON.stringify(preset)} (known: ${presets.map((p) => p.id).join(', ')})`);
  }
  try {
    // Unknown fields and out-of-range values, by name; cross-field rules over the preset's values.
    validateConfig(fields, preset ? validateConfig(getPreset(preset as string).config) : defaultConfig);
  } catch (e) {
    throw new ConfigFileError(`${name}: ${e instanceof ConfigError ? e.message : String(e)}`);
  }
  const task = typeof fields.task === 'string' ? fields.task : defaultConfig.task;
  if (!safeFamily(task)) throw new ConfigFileError(`${name}: unknown task "${task}"`);
  const edits: Edits = {};
  for (const [k, v] of Object.entries(fields)) {
    const d: FieldDecl = fieldTable[k as keyof typeof fieldTable];
    if (d.ownControl) continue; // task and difficulty are read below; version is implied
    if (d.kind === 'weights' && v && typeof v === 'object') {
      for (const [part, pv] of Object.entries(v)) edits[`${k}.${part}`] = toText(pv);
    } else edits[k] = toText(v);
  }
  const knobs: Record<string, string> = {};
  for (const [k, v] of Object.entries((fields.difficulty as Record<string, unknown> | undefined) ?? {})) knobs[k] = String(v);
  const draft: SetupDraft = { task, presetId: (preset as string | undefined) ?? DEFAULT_PRESET, edits, knobs };
  const { errors } = validateDraft(draft);
  const list = Object.entries(errors);
  if (list.length) throw new ConfigFileError(`${name}: ${list.map(([k, m]) => `${k}: ${m}`).join('; ')}`);
  return draft;
}
