/**
 * The one config resolver: every run config in the project (the setup form, a link, the worker,
 * `rlvr train` / `sweep` / `lesson run` / `export --format trl`) is merged here and nowhere else,
 * and each field comes back with the layer it came from.
 *
 * The layers, lowest first (this comment is the one place the order is written down):
 *
 *   1. default        the config table's defaults (src/rl/config-fields.ts) and the task family's
 *                     default difficulty;
 *   2. app default    the page's own starting values (`appDefaults` in src/ui/derive/config-form.ts; the CLI
 *                     has none);
 *   3. recipe         the base checkpoint's recipe for the task (`recipeFor` below),
 *                     its difficulty included;
 *   4. preset         a preset's config (src/rl/presets.ts);
 *   5. what the person brought and changed, in the order given: a saved config or a link in the page,
 *      then the page's edits; on the command line a config file, then `--set`, then `--task` / `--seed`.
 *
 * A later layer wins field by field; a weights field (`reward_weights`) merges part by part and the
 * difficulty knob by knob, so `reward_weights.format` and `difficulty.KNOB` have sources of their own.
 *
 * Validation happens here, once: an unknown field or a bad value in a layer is an error naming the
 * field (and the layer when it is the checkpoint's recipe or a preset), and that layer's value is
 * dropped so the layers beneath show through. `errors` lists every problem, not only the first;
 * `config` is valid only when `errors` is empty.
 */
import { recommendedDifficulty, type Manifest } from '../model/checkpoint.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import {
  checkField,
  ConfigError,
  configFields,
  defaultConfig,
  fieldTable,
  type FieldDecl,
  type RunConfig,
} from './config.ts';
import { crossFieldRules, needsRestart } from './config-fields.ts';
import { getPreset } from './presets.ts';

/** Where a field's value came from, in words a person reads (`sourceText`, `pageSourceText`). */
export type Source =
  | { kind: 'default' }
  | { kind: 'app default' }
  | { kind: 'recipe'; checkpoint: string }
  | { kind: 'preset'; preset: string }
  | { kind: 'config file'; file: string }
  | { kind: 'saved config' }
  | { kind: 'link' }
  /** A lesson's run (src/lessons/). */
  | { kind: 'lesson'; lesson: string }
  /** `--set`, `--task`, `--seed`, … */
  | { kind: 'flag'; flag: string }
  | { kind: 'edited' }
  /** The config of the run that is training, under a live edit (resolveLiveEdit). */
  | { kind: 'running run' };

/** One layer above the preset: a partial config (untrusted: checked here) and where it came from. */
export interface ConfigLayer {
  source: Source;
  values: Record<string, unknown>;
}

export interface ConfigInputs {
  /** The base checkpoint; its recipe for the resolved task is the recipe layer (null: no recipe). */
  manifest?: Manifest | null;
  /** The page's own starting values, under the recipe. */
  appDefaults?: Partial<RunConfig>;
  /** A preset id. */
  preset?: string;
  /** The layers above the preset, lowest first. */
  layers?: ConfigLayer[];
}

export interface FieldError {
  /** A field path: `epsilon`, `reward_weights.format`, `difficulty.digits`, or `config`. */
  field: string;
  message: string;
}

export interface ResolvedConfig {
  config: RunConfig;
  /** Every field path (top-level fields, `weights.part`, `difficulty.KNOB`) → the layer its value came from. */
  source: Record<string, Source>;
  errors: FieldError[];
}

/**
 * The source in the command line's words (`rlvr train --explain-config`): default, recipe of CHECKPOINT, preset P,
 * config file, --set, flag --task, …
 */
export function sourceText(s: Source): string {
  switch (s.kind) {
    case 'recipe':
      return `recipe of ${s.checkpoint}`;
    case 'preset':
      return `preset ${s.preset}`;
    case 'flag':
      return s.flag === '--set' ? '--set' : `flag ${s.flag}`;
    case 'lesson':
      return `lesson ${s.lesson}`;
    default:
      return s.kind;
  }
}

/** The source in the page's words, written beside each field. */
export function pageSourceText(s: Source): string {
  return s.kind === 'link' ? 'from the link' : sourceText(s);
}

/** The recipe's fields for `task` (none when the checkpoint does not list the task), its difficulty included. */
export function recipeFor(manifest: Manifest | null | undefined, task: string): Partial<RunConfig> {
  if (!manifest?.tasks.some((t) => t.task === task)) return {};
  const { difficulty: _d, ...knobs } = manifest.recipe ?? {};
  return { ...(knobs as Partial<RunConfig>), difficulty: recommendedDifficulty(manifest, task) ?? {} };
}

interface Layer {
  source: Source;
  values: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The layers in the documented order, each with its source (the recipe's needs the task, taken from the layers above
 * it).
 */
function orderedLayers(inputs: ConfigInputs, errors: FieldError[]): Layer[] {
  const out: Layer[] = [];
  if (inputs.appDefaults)
    out.push({ source: { kind: 'app default' }, values: inputs.appDefaults as Record<string, unknown> });
  let preset: Layer | null = null;
  if (inputs.preset !== undefined) {
    try {
      preset = {
        source: { kind: 'preset', preset: inputs.preset },
        values: getPreset(inputs.preset).config as Record<string, unknown>,
      };
    } catch (e) {
      errors.push({ field: 'preset', message: (e as Error).message });
    }
  }
  const above = [...(preset ? [preset] : []), ...(inputs.layers ?? [])];
  const task = chosenTask(above, inputs.appDefaults);
  const recipe = recipeFor(inputs.manifest, task);
  if (Object.keys(recipe).length)
    out.push({
      source: { kind: 'recipe', checkpoint: inputs.manifest!.name },
      values: recipe as Record<string, unknown>,
    });
  return [...out, ...above];
}

/** The task the layers choose (the last one that names a task), else the default's. */
function chosenTask(layers: { values: Record<string, unknown> }[], appDefaults?: Partial<RunConfig>): string {
  for (let i = layers.length - 1; i >= 0; i--) {
    const t = layers[i]!.values.task;
    if (typeof t === 'string' && t) return t;
  }
  return appDefaults?.task ?? defaultConfig.task;
}

/** The task the inputs resolve to, before any checkpoint is chosen (the CLI picks the shipped checkpoint by it). */
export function taskOf(inputs: ConfigInputs): string {
  let preset: Record<string, unknown> = {};
  try {
    if (inputs.preset !== undefined) preset = getPreset(inputs.preset).config as Record<string, unknown>;
  } catch {
    // reported by resolveConfig
  }
  return chosenTask([{ values: preset }, ...(inputs.layers ?? [])], inputs.appDefaults);
}

/** Where a layer's error is charged: the person's own layers by field; a recipe's or preset's says whose. */
function blame(source: Source, message: string): string {
  if (source.kind === 'recipe') return `the checkpoint's recipe: ${message}`;
  if (source.kind === 'preset') return `the preset ${source.preset}: ${message}`;
  return message;
}

const errorMessage = (e: unknown) =>
  e instanceof ConfigError ? e.message.replace(/^[^:]+: /, '') : e instanceof Error ? e.message : String(e);

/** Resolves the layers into one config with each field's source and every error. */
export function resolveConfig(inputs: ConfigInputs): ResolvedConfig {
  const errors: FieldError[] = [];
  const layers = orderedLayers(inputs, errors);
  const config = structuredClone(defaultConfig) as unknown as Record<string, unknown>;
  const source: Record<string, Source> = {};
  const fromDefault: Source = { kind: 'default' };
  for (const k of configFields) {
    const d: FieldDecl = fieldTable[k];
    if (k === 'difficulty') continue;
    if (d.kind === 'weights') for (const part of Object.keys(d.parts)) source[`${k}.${part}`] = fromDefault;
    else source[k] = fromDefault;
  }
  const difficulty: Record<string, number | string> = {};
  const difficultySource: Record<string, Source> = {};
  for (const layer of layers) {
    if (!isObject(layer.values)) {
      errors.push({
        field: 'config',
        message: blame(layer.source, `must be a JSON object, got ${JSON.stringify(layer.values)}`),
      });
      continue;
    }
    for (const [k, v] of Object.entries(layer.values)) {
      if (v === undefined) continue;
      const fail = (field: string, message: string) => errors.push({ field, message: blame(layer.source, message) });
      if (!Object.hasOwn(fieldTable, k)) {
        fail(k, `unknown field (known fields: ${configFields.join(', ')})`);
        continue;
      }
      const d: FieldDecl = fieldTable[k as keyof RunConfig];
      if (k === 'difficulty') {
        if (!isObject(v)) {
          fail(k, `must be an object, got ${JSON.stringify(v)}`);
          continue;
        }
        for (const [knob, x] of Object.entries(v)) {
          if (typeof x !== 'number' && typeof x !== 'string')
            fail(`difficulty.${knob}`, `must be a number or a string, got ${JSON.stringify(x)}`);
          else {
            difficulty[knob] = x;
            difficultySource[knob] = layer.source;
          }
        }
        continue;
      }
      if (d.kind === 'weights') {
        if (!isObject(v)) {
          fail(k, `must be an object, got ${JSON.stringify(v)}`);
          continue;
        }
        const parts = Object.keys(d.parts);
        const merged = { ...(config[k] as Record<string, number>) };
        for (const [part, x] of Object.entries(v)) {
          if (!parts.includes(part)) {
            fail(`${k}.${part}`, `unknown field (known: ${parts.join(', ')})`);
            continue;
          }
          try {
            checkField(
              `${k}.${part}`,
              { kind: 'num', default: 0, min: d.min, max: d.max, group: d.group, help: '' },
              x,
            );
            merged[part] = x as number;
            source[`${k}.${part}`] = layer.source;
          } catch (e) {
            fail(`${k}.${part}`, errorMessage(e));
          }
        }
        config[k] = merged;
        continue;
      }
      try {
        checkField(k, d, v);
        config[k] = structuredClone(v);
        source[k] = layer.source;
      } catch (e) {
        fail(k, errorMessage(e));
      }
    }
  }
  const c = config as unknown as RunConfig;
  // Cross-field rules, over the merged config (a bad value dropped above shows the layer beneath):
  // charged to the field the rule names, whichever layer set the other field.
  for (const r of crossFieldRules) {
    const msg = r.check(c);
    if (msg && !errors.some((x) => x.field === r.field)) errors.push({ field: r.field, message: msg });
  }
  // The difficulty: the family's defaults ← the recipe's ← the layers' knobs, checked by generating one instance.
  let family;
  try {
    family = getTaskFamily(c.task);
  } catch (e) {
    if (!errors.some((x) => x.field === 'task')) errors.push({ field: 'task', message: errorMessage(e) });
  }
  if (family) {
    const merged: Record<string, number | string> = { ...family.defaultDifficulty };
    for (const knob of Object.keys(merged)) source[`difficulty.${knob}`] = fromDefault;
    for (const [knob, x] of Object.entries(difficulty)) {
      merged[knob] = x;
      source[`difficulty.${knob}`] = difficultySource[knob]!;
    }
    for (let guard = 0; guard < 20; guard++) {
      try {
        family.generate(0, merged);
        break;
      } catch (e) {
        const msg = errorMessage(e);
        const knob = /knob "([^"]+)"/.exec(msg)?.[1];
        const at = knob ? source[`difficulty.${knob}`] : undefined;
        errors.push({ field: knob ? `difficulty.${knob}` : 'difficulty', message: at ? blame(at, msg) : msg });
        if (!knob || !(knob in merged)) break;
        // Drop the bad knob (back to the family's default, or gone when unknown) and look for more.
        if (knob in family.defaultDifficulty) {
          merged[knob] = family.defaultDifficulty[knob]!;
          source[`difficulty.${knob}`] = fromDefault;
        } else {
          delete merged[knob];
          delete source[`difficulty.${knob}`];
        }
      }
    }
    c.difficulty = merged;
  } else c.difficulty = { ...difficulty };
  return { config: c, source, errors };
}

/** The resolved config, or a ConfigError naming the first bad field: for callers that stop at the first problem. */
export function resolveOrThrow(inputs: ConfigInputs): RunConfig {
  const r = resolveConfig(inputs);
  const first = r.errors[0];
  if (first) throw new ConfigError(first.field, first.message);
  return r.config;
}

/** A change to a running run's config, resolved: what applies between steps and what needs a new run. */
export interface LiveEdit {
  /** The running config with the edit, checked as every config is (valid only when `errors` is empty). */
  config: RunConfig;
  /** Every field the edit changes. */
  changed: (keyof RunConfig)[];
  /** The changed fields that apply from the next step. */
  live: (keyof RunConfig)[];
  /** The changed fields that need a new run (needsRestart, src/rl/config-fields.ts). */
  restart: (keyof RunConfig)[];
  errors: FieldError[];
}

/**
 * Resolves an edit of a running run: the running config is the layer beneath the edit, so the edit is
 * checked by this resolver like any config, and each changed field is sorted by the one restart rule.
 */
export function resolveLiveEdit(running: RunConfig, edit: Record<string, unknown>): LiveEdit {
  const r = resolveConfig({
    layers: [
      { source: { kind: 'running run' }, values: running as unknown as Record<string, unknown> },
      { source: { kind: 'edited' }, values: edit },
    ],
  });
  const changed = configFields.filter(
    (k) => k !== 'version' && JSON.stringify(r.config[k]) !== JSON.stringify(running[k]),
  );
  const restart = changed.filter((k) => needsRestart(k, running, changed));
  return { config: r.config, changed, live: changed.filter((k) => !restart.includes(k)), restart, errors: r.errors };
}

/** Every field path with its value and source, in the table's order: what `rlvr train --explain-config` prints. */
export function explainRows(r: ResolvedConfig): { field: string; value: unknown; source: Source }[] {
  const rows: { field: string; value: unknown; source: Source }[] = [];
  for (const k of configFields) {
    const d: FieldDecl = fieldTable[k];
    const v = (r.config as unknown as Record<string, unknown>)[k];
    if (k === 'difficulty')
      for (const [knob, x] of Object.entries(r.config.difficulty))
        rows.push({ field: `difficulty.${knob}`, value: x, source: r.source[`difficulty.${knob}`]! });
    else if (d.kind === 'weights')
      for (const part of Object.keys(d.parts))
        rows.push({
          field: `${k}.${part}`,
          value: (v as Record<string, number>)[part],
          source: r.source[`${k}.${part}`]!,
        });
    else rows.push({ field: k, value: v, source: r.source[k]! });
  }
  return rows;
}
