/**
 * The run-config file: the one format `rlvr train --config FILE` (and `rlvr export --format trl`)
 * reads and the playground loads and saves. One JSON object of RunConfig fields, any subset, plus an
 * optional "preset" id: the file's fields lie over the preset's values, which lie over the defaults.
 * Everything is checked before anything is used: invalid JSON (with its position), a non-object, an
 * unknown preset or task, unknown fields and out-of-range values each give one message naming the
 * file and what is wrong.
 */
import { ConfigError, defaultConfig, validateConfig, type RunConfig } from './config.ts';
import { getPreset, presets } from './presets.ts';
import { taskIds } from '../tasks/registry.ts';

export class ConfigFileError extends Error {}

export interface ConfigFile {
  /** The file's "preset", when it names one. */
  preset?: string;
  /** The RunConfig fields the file sets (everything but "preset"). */
  fields: Record<string, unknown>;
  /** defaults ← preset ← fields, validated. */
  config: RunConfig;
}

/** Parses and validates a config file's text; throws ConfigFileError naming the file and the problem. */
export function parseRunConfigFile(text: string, name = 'the config file'): ConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw new ConfigFileError(`${name} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigFileError(`${name} must hold one JSON object of config fields, got ${Array.isArray(raw) ? 'an array' : raw === null ? 'null' : typeof raw}`);
  }
  const { preset, ...fields } = raw as Record<string, unknown>;
  if (preset !== undefined && (typeof preset !== 'string' || !presets.some((p) => p.id === preset))) {
    throw new ConfigFileError(`${name}: unknown preset ${JSON.stringify(preset)} (known: ${presets.map((p) => p.id).join(', ')})`);
  }
  let config: RunConfig;
  try {
    // Cross-field rules are checked over the preset's values (DAPO's epsilon_high allows a larger epsilon).
    config = validateConfig(fields, preset ? validateConfig(getPreset(preset as string).config) : defaultConfig);
  } catch (e) {
    throw new ConfigFileError(`${name}: ${e instanceof ConfigError ? e.message : String(e)}`);
  }
  if (!taskIds.includes(config.task)) throw new ConfigFileError(`${name}: unknown task "${config.task}" (known: ${taskIds.join(', ')})`);
  return preset === undefined ? { fields, config } : { preset: preset as string, fields, config };
}

/** A config file's text: the preset id (when there is one) and every field of the config. */
export function configFileText(config: RunConfig, preset?: string): string {
  return JSON.stringify(preset ? { preset, ...config } : config, null, 2) + '\n';
}
