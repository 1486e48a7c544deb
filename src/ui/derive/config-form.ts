/**
 * The setup form's model: every RunConfig field with its one-line help and paper, how its text is
 * parsed, and validation that collects every error (not just the first) keyed by field path.
 * Pure TypeScript (unit-tested in config-form.test.ts).
 */
import {
  configFields,
  defaultConfig,
  fieldTable,
  type FieldDecl,
  type FieldGroup,
  type RunConfig,
} from '../../rl/config.ts';
import { contextOverflow, fittingLevels, noLevelFits } from '../../rl/context-fit.ts';
import { getPreset } from '../../rl/presets.ts';
import type { Manifest } from '../../model/checkpoint.ts';
import {
  resolveConfig,
  type ConfigInputs,
  type ConfigLayer,
  type ResolvedConfig,
  type Source,
} from '../../rl/resolve-config.ts';
import { getTaskFamily, taskFamilies } from '../../tasks/registry.ts';
import type { TaskFamily } from '../../tasks/types.ts';

export type FieldKind = 'int' | 'num' | 'nullable-num' | 'enum' | 'bool' | 'text';

export interface FieldSpec {
  /** Path: a RunConfig key, or `<weights field>.<part>` (e.g. `reward_weights.format`). */
  path: string;
  kind: FieldKind;
  group: FieldGroup;
  help: string;
  paper?: string;
  options?: readonly string[];
  /** TRL's GRPOConfig has a field of this name and meaning. */
  trl?: boolean;
  /** The TRL badge's words: the same meaning, and TRL's default where it differs (config-fields.ts trlDefault). */
  trlNote?: string;
  /** Changing it takes effect in a new run. */
  restart?: boolean;
}

/** What a TRL badge says: the same name and meaning, and where TRL's default differs, both defaults. */
export function trlNote(d: FieldDecl): string | undefined {
  if (!d.trl) return undefined;
  const same = "Same name and meaning as TRL's GRPOConfig";
  return d.trlDefault === undefined
    ? same
    : `${same}, but TRL's default is ${String(d.trlDefault)} and this playground's ${String(d.default)}`;
}

/** The form's fields, in the table's order (src/rl/config-fields.ts); fields with their own controls are left out. */
export const fieldSpecs: FieldSpec[] = configFields.flatMap((k): FieldSpec[] => {
  const d: FieldDecl = fieldTable[k];
  if (d.ownControl) return [];
  const common = { group: d.group, help: d.help, paper: d.paper, trl: d.trl, restart: d.restart, trlNote: trlNote(d) };
  if (d.kind === 'weights')
    return Object.entries(d.parts).map(([part, p]) => ({
      ...common,
      path: `${k}.${part}`,
      kind: 'num',
      help: p.help,
      paper: p.paper,
      trl: p.trl,
    }));
  // The task and its difficulty have their own controls (the task picker and its knobs).
  if (d.kind === 'record' || k === 'task') return [];
  if (d.kind === 'str') return [{ ...common, path: k, kind: 'text' }];
  return [{ ...common, path: k, kind: d.kind, options: d.kind === 'enum' ? d.values : undefined }];
});

export const fieldGroups = [...new Set(fieldSpecs.map((f) => f.group))];

export function fieldSpec(path: string): FieldSpec | undefined {
  return fieldSpecs.find((f) => f.path === path);
}

/** Task families a person can pick (the custom family needs a dataset file). */
export const pickableTasks: TaskFamily[] = taskFamilies.filter((f) => f.id !== 'custom');

/** What the person typed: text for number fields, booleans for checkboxes, option strings for selects. */
export type Edits = Record<string, string | boolean>;

/**
 * The app's own starting values where they differ from the library defaults. The demo's held-out
 * evaluation is 160 prompts × 2 samples every 10 steps. One point's standard error of pass@1
 * (passAt1StandardError in src/rl/passk.ts) is the spread of the per-prompt pass rates over √P; that
 * spread is at most 0.5 (every prompt always or never solved, which training drives toward), so
 * SE ≤ 0.5 / √(P − 1) = 0.0397 at P = 160, whatever the samples per prompt. The 64 prompts × 8 samples
 * used before gave 0.028 at the base but up to 0.051 once the policy had sharpened
 * (bench/demo-results.json, 2026-11-25); 160 × 8 would cost 2.5× the sampling, while 160 × 2 costs
 * 0.75× of 64 × 8 (docs/sweeps.md, "The demo's evaluation"). Two samples still give pass@2; the Pass@k
 * explorer measures large k. Lessons keep 64 × num_generations (lessonRunPatch in lesson-plan.ts).
 * Presets and edits apply on top.
 */
export const appDefaults: Partial<RunConfig> = { eval_prompts: 160, eval_samples: 2 };

/**
 * The value a field has before the person's edits, as the one resolver (src/rl/resolve-config.ts)
 * gives it: defaults ← app defaults ← the checkpoint's recipe ← preset.
 */
export function baseValue(
  path: string,
  presetId: string,
  manifest: Manifest | null = null,
  task = defaultConfig.task,
): unknown {
  const key = JSON.stringify([presetId, task, manifest?.name ?? null]);
  let base = baseMemo.get(key);
  if (!base || base.manifest !== manifest) {
    base = {
      manifest,
      config: resolveConfig({
        manifest,
        appDefaults,
        preset: presetId,
        layers: [{ source: { kind: 'edited' }, values: { task } }],
      }).config,
    };
    if (baseMemo.size > 50) baseMemo.clear();
    baseMemo.set(key, base);
  }
  return valueAt(base.config, path);
}

/** baseValue's resolved configs (the URL writer asks once per edited field). */
const baseMemo = new Map<string, { manifest: Manifest | null; config: RunConfig }>();

/** The value at a field path (`epsilon`, `reward_weights.format`, `difficulty.digits`). */
export function valueAt(config: RunConfig, path: string): unknown {
  const c = config as unknown as Record<string, unknown>;
  const [head, part] = path.split('.', 2) as [string, string | undefined];
  if (part !== undefined) return (c[head] as Record<string, unknown> | undefined)?.[part];
  return c[path];
}

export function safePreset(id: string) {
  try {
    return getPreset(id);
  } catch {
    return null;
  }
}

/** A value as the form shows it. */
export function toText(v: unknown): string | boolean {
  if (typeof v === 'boolean') return v;
  if (v === null || v === undefined) return '';
  return String(v);
}

/** Parses typed text: numbers become numbers; text that is not a number stays text (the validator names it). */
export function parseText(kind: FieldKind, raw: string | boolean): unknown {
  if (typeof raw === 'boolean') return raw;
  const t = raw.trim();
  if (kind === 'enum' || kind === 'text') return t;
  if (kind === 'bool') return t === 'true';
  if (kind === 'nullable-num' && (t === '' || t === 'null' || t === 'off')) return null;
  if (t === '') return '';
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** Knob text: numbers for numeric knobs, strings otherwise. */
export function parseKnob(family: TaskFamily, name: string, raw: string): number | string {
  const spec = family.knobs.find((k) => k.name === name);
  if (spec && typeof spec.default === 'number') {
    const n = Number(raw.trim());
    return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
  }
  return raw;
}

/**
 * Where an edit that the person has not changed since came from (absent: they typed it; `lesson:ID`: a lesson set it).
 */
export type EditOrigin = 'link' | 'saved config' | `lesson:${string}`;

export interface SetupDraft {
  task: string;
  presetId: string;
  edits: Edits;
  /** Knob edits (text), over the checkpoint's measured difficulty. */
  knobs: Record<string, string>;
  /**
   * Paths (`epsilon`, `difficulty.digits`, `task`) whose value came from the link or a loaded config and is unchanged
   * since.
   */
  origins?: Record<string, EditOrigin>;
}

const originSource = (o: EditOrigin | undefined): Source =>
  o === 'link'
    ? { kind: 'link' }
    : o === 'saved config'
      ? { kind: 'saved config' }
      : o?.startsWith('lesson:')
        ? { kind: 'lesson', lesson: o.slice('lesson:'.length) }
        : { kind: 'edited' };

/** Sets `path` (a field or `weights.part`) in a sparse patch. */
function setPath(patch: Record<string, unknown>, path: string, v: unknown): void {
  const [head, part] = path.split('.', 2) as [string, string | undefined];
  if (part !== undefined) patch[head] = { ...((patch[head] as object) ?? {}), [part]: v };
  else patch[path] = v;
}

/**
 * The draft's layers above the preset, for the resolver: what came from the link, what came from a
 * loaded config, then what the person edited (the task and knobs included), each a sparse patch.
 */
export function draftLayers(d: SetupDraft): ConfigLayer[] {
  const by = new Map<EditOrigin | undefined, Record<string, unknown>>([
    ['link', {}],
    ['saved config', {}],
    ...[...new Set(Object.values(d.origins ?? {}))]
      .filter((o) => o.startsWith('lesson:'))
      .map((o): [EditOrigin, Record<string, unknown>] => [o, {}]),
    [undefined, {}],
  ]);
  const at = (path: string) => by.get(d.origins?.[path])!;
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    // unknown: the validator reports it by name
    setPath(at(path), path, spec ? parseText(spec.kind, raw) : raw);
  }
  // The task is always the person's choice (the picker always holds one), from wherever it came.
  at('task').task = d.task;
  const family = safeFamily(d.task);
  for (const [k, raw] of Object.entries(d.knobs)) {
    const layer = at(`difficulty.${k}`);
    layer.difficulty = { ...((layer.difficulty as object) ?? {}), [k]: family ? parseKnob(family, k, raw) : raw };
  }
  return [...by.entries()]
    .filter(([, v]) => Object.keys(v).length)
    .map(([o, values]) => ({ source: originSource(o), values }));
}

/**
 * The resolver's inputs for the draft over a checkpoint: defaults ← app defaults ← recipe ← preset ← link or saved
 * config ← edits.
 */
export function draftInputs(d: SetupDraft, manifest: Manifest | null): ConfigInputs {
  return { manifest, appDefaults, preset: d.presetId, layers: draftLayers(d) };
}

/** The draft resolved over a checkpoint: the config, each field's source and every error. */
export function resolveDraft(d: SetupDraft, manifest: Manifest | null): ResolvedConfig {
  return resolveConfig(draftInputs(d, manifest));
}

/**
 * The draft's own layers (link or saved config, then edits) as one patch: what the page sends the
 * worker over the checkpoint's recipe and the preset (src/ui/state/setup-state.ts's initRequest sends the
 * app defaults and the preset id beside it). Weights and knobs stay sparse: the resolver merges
 * them part by part.
 */
export function draftOverrides(d: SetupDraft): Record<string, unknown> {
  return flatten({}, draftLayers(d));
}

/**
 * The config patch the form describes, the preset's fields included (Compare's sides and lessons send it as one patch).
 */
export function draftPatch(d: SetupDraft): Record<string, unknown> {
  return flatten({ ...(safePreset(d.presetId)?.config ?? {}) }, draftLayers(d));
}

/**
 * Layers' sparse patches, later over earlier (weights and the difficulty part by part), for the wire to the worker,
 * which resolves them.
 */
function flatten(patch: Record<string, unknown>, layers: ConfigLayer[]): Record<string, unknown> {
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer.values)) {
      if (
        (k === 'difficulty' || fieldTable[k as keyof RunConfig]?.kind === 'weights') &&
        typeof v === 'object' &&
        v !== null
      )
        patch[k] = { ...((patch[k] as object) ?? {}), ...v };
      else patch[k] = v;
    }
  }
  return patch;
}

export function safeFamily(id: string): TaskFamily | null {
  try {
    return getTaskFamily(id);
  } catch {
    return null;
  }
}

function withoutDifficulty(values: Record<string, unknown>): Record<string, unknown> {
  const { difficulty: _d, ...rest } = values;
  return rest;
}

/**
 * Every error in the draft, keyed by field path (`difficulty.<knob>` for knobs). `measured` is the
 * difficulty the checkpoint was measured at (the knobs' starting values).
 */
export function validateDraft(
  d: SetupDraft,
  measured: Record<string, number | string> = {},
  contextLength?: number,
): { config: RunConfig | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  // Every field's error from the one resolver (src/rl/resolve-config.ts); the difficulty is checked
  // below over the checkpoint's measured difficulty.
  const resolved = resolveConfig({
    appDefaults,
    preset: d.presetId,
    layers: draftLayers(d).map((l) => ({ ...l, values: withoutDifficulty(l.values) })),
  });
  for (const e of resolved.errors)
    if (e.field !== 'difficulty' && !e.field.startsWith('difficulty.')) errors[e.field] ??= e.message;
  let config: RunConfig | null = resolved.config;
  const family = safeFamily(d.task);
  if (!family) errors.task = `unknown task "${d.task}"`;
  else {
    const knobs: Record<string, number | string> = {};
    for (const [k, raw] of Object.entries(d.knobs)) knobs[k] = parseKnob(family, k, raw);
    const relevant = Object.fromEntries(
      Object.entries(measured).filter(([k]) => family.knobs.some((s) => s.name === k)),
    );
    const difficulty = { ...family.defaultDifficulty, ...relevant, ...knobs };
    if (config) config = { ...config, difficulty: { ...difficulty } };
    for (let guard = 0; guard < 20; guard++) {
      try {
        family.generate(0, difficulty);
        break;
      } catch (e) {
        const msg = (e as Error).message;
        const knob = /knob "([^"]+)"/.exec(msg)?.[1];
        if (!knob || !(knob in difficulty)) {
          errors.difficulty = msg;
          break;
        }
        errors[`difficulty.${knob}`] = msg.replace(/^[\w-]+: /, '');
        difficulty[knob] = family.defaultDifficulty[knob]!;
      }
    }
    // The check Start would fail on: the prompts and the completion cap must fit the model's context.
    // Checked whenever the fields it depends on are valid, so it shows alongside other errors.
    const depends = ['max_completion_length', 'hints', 'curriculum', 'difficulty'];
    if (contextLength && !Object.keys(errors).some((k) => depends.includes(k.split('.')[0]!))) {
      const c = { ...defaultConfig, ...draftPatch(d), task: d.task } as RunConfig;
      const fit = contextFit(c, family, difficulty, contextLength);
      if (fit) errors.max_completion_length = fit;
    }
  }
  if (Object.keys(errors).length) config = null;
  return { config, errors };
}

const fitMemo = new Map<string, string | null>();

/** Why the run would not fit the model's context (null: it fits), as the trainer would refuse it. */
function contextFit(
  c: RunConfig,
  family: TaskFamily,
  difficulty: Record<string, number | string>,
  contextLength: number,
): string | null {
  const key = JSON.stringify([c.task, c.curriculum, c.hints, c.max_completion_length, difficulty, contextLength]);
  if (fitMemo.has(key)) return fitMemo.get(key)!;
  let why: string | null;
  try {
    if (c.curriculum === 'ladder')
      why = fittingLevels(c, family.levels, contextLength).length ? null : noLevelFits(c, contextLength);
    else why = contextOverflow(c, difficulty, contextLength);
  } catch (e) {
    why = (e as Error).message;
  }
  if (fitMemo.size > 200) fitMemo.clear();
  fitMemo.set(key, why);
  return why;
}
