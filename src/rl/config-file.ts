/**
 * The run-config file: the one format `rlvr train --config FILE` (and `rlvr export --format trl`)
 * reads and the playground loads and saves. One JSON object of RunConfig fields, any subset, plus an
 * optional "preset" id: the file's fields lie over the preset's values, which lie over the defaults.
 * Everything is checked before anything is used: invalid JSON (with its position), a non-object, an
 * unknown preset or task, unknown fields and out-of-range values each give one message naming the
 * file and what is wrong. A custom-task config may carry its dataset under "dataset" (ConfigDataset):
 * embedded as its JSONL text, or, when too large to embed, named with a note saying so.
 */
import type { RunConfig } from './config.ts';
import { presets } from './presets.ts';
import { resolveConfig } from './resolve-config.ts';
import { taskIds } from '../tasks/registry.ts';
import { VERIFIER_KINDS, type CustomVerifierSpec } from '../tasks/dataset.ts';

export class ConfigFileError extends Error {}

/** The custom task's dataset in a config file: its JSONL `text` when embedded, else only its name and a `note`. */
export interface ConfigDataset {
  name: string;
  verifier: CustomVerifierSpec;
  text?: string;
  note?: string;
}

function parseDatasetEntry(v: unknown, name: string): ConfigDataset {
  const o = v as Record<string, unknown>;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ConfigFileError(`${name}: "dataset" must be an object {"name", "verifier", "text"}`);
  if (typeof o.name !== 'string' || !o.name)
    throw new ConfigFileError(`${name}: "dataset" needs a "name" (the JSONL file's name)`);
  const ver = o.verifier as Record<string, unknown> | undefined;
  if (!ver || typeof ver !== 'object' || !VERIFIER_KINDS.includes(ver.kind as CustomVerifierSpec['kind']))
    throw new ConfigFileError(`${name}: "dataset.verifier.kind" must be one of ${VERIFIER_KINDS.join(', ')}`);
  if (ver.tolerance !== undefined && !(typeof ver.tolerance === 'number' && ver.tolerance >= 0))
    throw new ConfigFileError(`${name}: "dataset.verifier.tolerance" must be a number >= 0`);
  if (o.text !== undefined && typeof o.text !== 'string')
    throw new ConfigFileError(`${name}: "dataset.text" must be the JSONL file's text`);
  const verifier: CustomVerifierSpec = {
    kind: ver.kind as CustomVerifierSpec['kind'],
    ...(ver.tolerance === undefined ? {} : { tolerance: ver.tolerance as number }),
  };
  return {
    name: o.name,
    verifier,
    ...(typeof o.text === 'string' ? { text: o.text } : {}),
    ...(typeof o.note === 'string' ? { note: o.note } : {}),
  };
}

export interface ConfigFile {
  /** The file's "preset", when it names one. */
  preset?: string;
  /** The RunConfig fields the file sets (everything but "preset"). */
  fields: Record<string, unknown>;
  /**
   * defaults ← preset ← fields, resolved and validated by the one resolver (no checkpoint recipe: none is known here).
   */
  config: RunConfig;
  /** The custom task's dataset, when the file carries one. */
  dataset?: ConfigDataset;
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
    throw new ConfigFileError(
      `${name} must hold one JSON object of config ` +
        `fields, got ${Array.isArray(raw) ? 'an array' : raw === null ? 'null' : typeof raw}`,
    );
  }
  const { preset, dataset: datasetEntry, ...fields } = raw as Record<string, unknown>;
  if (preset !== undefined && (typeof preset !== 'string' || !presets.some((p) => p.id === preset))) {
    throw new ConfigFileError(
      `${name}: unknown preset ${JSON.stringify(preset)} (known: ${presets.map((p) => p.id).join(', ')})`,
    );
  }
  if (typeof fields.task === 'string' && !taskIds.includes(fields.task))
    throw new ConfigFileError(`${name}: unknown task "${fields.task}" (known: ${taskIds.join(', ')})`);
  // The one resolver (src/rl/resolve-config.ts): the file's fields over its preset; cross-field rules
  // are checked over the preset's values (DAPO's epsilon_high allows a larger epsilon).
  const resolved = resolveConfig({
    ...(preset === undefined ? {} : { preset: preset as string }),
    layers: [{ source: { kind: 'config file', file: name }, values: fields }],
  });
  // A custom task's instances come from its dataset, bound later (from the file's "dataset" or --dataset): not
  // checkable here.
  const first = resolved.errors.find((e) => !(resolved.config.task === 'custom' && e.field === 'difficulty'));
  if (first) throw new ConfigFileError(`${name}: ${first.field}: ${first.message}`);
  const config = resolved.config;
  const dataset = datasetEntry === undefined ? undefined : parseDatasetEntry(datasetEntry, name);
  if (dataset && config.task !== 'custom')
    throw new ConfigFileError(`${name}: "dataset" is for the custom task, but the file's task is "${config.task}"`);
  return {
    ...(preset === undefined ? {} : { preset: preset as string }),
    fields,
    config,
    ...(dataset ? { dataset } : {}),
  };
}

/** A config file's text: the preset id (when there is one) and every field of the config. */
export function configFileText(config: RunConfig, preset?: string): string {
  return JSON.stringify(preset ? { preset, ...config } : config, null, 2) + '\n';
}
