/**
 * The setup form's model: every RunConfig field with its one-line help and paper, how its text is
 * parsed, and validation that collects every error (not just the first) keyed by field path.
 * Pure TypeScript (unit-tested in config-form.test.ts).
 */
import { ConfigError, configFields, defaultConfig, fieldTable, validateConfig, type FieldDecl, type FieldGroup, type RunConfig } from '../rl/config.ts';
import { contextOverflow, fittingLevels, noLevelFits } from '../rl/context-fit.ts';
import { getPreset } from '../rl/presets.ts';
import { getTaskFamily, taskFamilies } from '../tasks/registry.ts';
import type { TaskFamily } from '../tasks/types.ts';

export type FieldKind = 'int' | 'num' | 'nullable-num' | 'enum' | 'bool';

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
  /** Changing it takes effect in a new run. */
  restart?: boolean;
}

/** The form's fields, in the table's order (src/rl/config-fields.ts); fields with their own controls are left out. */
export const fieldSpecs: FieldSpec[] = configFields.flatMap((k): FieldSpec[] => {
  const d: FieldDecl = fieldTable[k];
  if (d.ownControl) return [];
  const common = { group: d.group, help: d.help, paper: d.paper, trl: d.trl, restart: d.restart };
  if (d.kind === 'weights') return Object.entries(d.parts).map(([part, p]) => ({ ...common, path: `${k}.${part}`, kind: 'num', help: p.help, paper: p.paper, trl: p.trl }));
  if (d.kind === 'str' || d.kind === 'record') return [];
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
 * evaluation is 64 prompts × num_generations (8) samples every 10 steps: large enough that one point's
 * standard error of pass@1 (passAt1StandardError in src/rl/passk.ts) stays at or under 0.04 at p ≈ 0.5,
 * SE² = (σ²_prompts + (0.25 − σ²_prompts) / n) / P ≤ 0.04² with the spread between prompts σ²_prompts
 * up to 0.075 (measured 0.025 on sat-tiny's base; 16 prompts gave SE ≈ 0.055, a curve that seemed to
 * un-learn). Presets and edits apply on top.
 */
export const appDefaults: Partial<RunConfig> = { eval_prompts: 64 };

/** The value a field has before the person's edits: defaults ← app defaults ← the checkpoint's recipe ← preset. */
export function baseValue(path: string, presetId: string, recipe: Partial<RunConfig> = {}): unknown {
  const preset = safePreset(presetId)?.config ?? {};
  const merged = { ...defaultConfig, ...appDefaults, ...recipe, ...preset } as unknown as Record<string, unknown>;
  const [head, part] = path.split('.', 2) as [string, string | undefined];
  if (part !== undefined) return (merged[head] as Record<string, unknown> | undefined)?.[part];
  return merged[path];
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
  if (kind === 'enum') return t;
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

export interface SetupDraft {
  task: string;
  presetId: string;
  edits: Edits;
  /** Knob edits (text), over the checkpoint's measured difficulty. */
  knobs: Record<string, string>;
}

/** The config patch the form describes: preset ← parsed edits ← task and difficulty overrides. */
export function draftPatch(d: SetupDraft): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...appDefaults, ...(safePreset(d.presetId)?.config ?? {}) };
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    if (!spec) {
      patch[path] = raw; // unknown: the validator reports it by name
      continue;
    }
    const v = parseText(spec.kind, raw);
    const [head, part] = path.split('.', 2) as [string, string | undefined];
    if (part !== undefined) {
      // A part of a nested field (reward_weights.format): over the field's default and the preset's parts.
      const dflt = (defaultConfig as unknown as Record<string, object>)[head];
      patch[head] = { ...dflt, ...((patch[head] as object) ?? {}), [part]: v };
    } else patch[path] = v;
  }
  if (d.task !== defaultConfig.task) patch.task = d.task;
  const family = safeFamily(d.task);
  const diff: Record<string, number | string> = {};
  for (const [k, raw] of Object.entries(d.knobs)) diff[k] = family ? parseKnob(family, k, raw) : raw;
  if (Object.keys(diff).length) patch.difficulty = diff;
  return patch;
}

export function safeFamily(id: string): TaskFamily | null {
  try {
    return getTaskFamily(id);
  } catch {
    return null;
  }
}

function removePath(patch: Record<string, unknown>, path: string): boolean {
  const [head, tail] = path.split('.', 2) as [string, string | undefined];
  if (tail !== undefined && typeof patch[head] === 'object' && patch[head] !== null) {
    const inner = { ...(patch[head] as Record<string, unknown>) };
    if (!(tail in inner)) return false;
    delete inner[tail];
    patch[head] = inner;
    return true;
  }
  if (!(head in patch)) return false;
  delete patch[head];
  return true;
}

/**
 * Every error in the draft, keyed by field path (`difficulty.<knob>` for knobs). `measured` is the
 * difficulty the checkpoint was measured at (the knobs' starting values).
 */
export function validateDraft(d: SetupDraft, measured: Record<string, number | string> = {}, contextLength?: number): { config: RunConfig | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const patch = draftPatch(d);
  let config: RunConfig | null = null;
  for (let guard = 0; guard < 100; guard++) {
    try {
      config = validateConfig(patch);
      break;
    } catch (e) {
      if (!(e instanceof ConfigError)) {
        errors.config = (e as Error).message;
        break;
      }
      errors[e.field] = e.message.startsWith(`${e.field}: `) ? e.message.slice(e.field.length + 2) : e.message;
      // Cross-field rules name a field that may be valid on its own; drop it and look for more.
      // A cross-field rule may name a field the person did not set (epsilon_high < epsilon): stop there.
      if (!removePath(patch, e.field)) break;
    }
  }
  const family = safeFamily(d.task);
  if (!family) errors.task = `unknown task "${d.task}"`;
  else {
    const knobs: Record<string, number | string> = {};
    for (const [k, raw] of Object.entries(d.knobs)) knobs[k] = parseKnob(family, k, raw);
    const relevant = Object.fromEntries(Object.entries(measured).filter(([k]) => family.knobs.some((s) => s.name === k)));
    const difficulty = { ...family.defaultDifficulty, ...relevant, ...knobs };
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
function contextFit(c: RunConfig, family: TaskFamily, difficulty: Record<string, number | string>, contextLength: number): string | null {
  const key = JSON.stringify([c.task, c.curriculum, c.hints, c.max_completion_length, difficulty, contextLength]);
  if (fitMemo.has(key)) return fitMemo.get(key)!;
  let why: string | null;
  try {
    if (c.curriculum === 'ladder') why = fittingLevels(c, family.levels, contextLength).length ? null : noLevelFits(c, contextLength);
    else why = contextOverflow(c, difficulty, contextLength);
  } catch (e) {
    why = (e as Error).message;
  }
  if (fitMemo.size > 200) fitMemo.clear();
  fitMemo.set(key, why);
  return why;
}

export interface PresetChange {
  draft: SetupDraft;
  /** Typed values kept over the new preset; `preset` is the new preset's own value where it sets the field. */
  kept: { path: string; value: string | boolean; preset?: string }[];
}

/**
 * Switches the preset and keeps what the person typed: the preset sets every field they did not
 * touch. Edits that now equal the preset's value are dropped (they are no longer edits).
 */
export function choosePreset(d: SetupDraft, presetId: string): PresetChange {
  const edits: Edits = {};
  const kept: PresetChange['kept'] = [];
  const own = (safePreset(presetId)?.config ?? {}) as Record<string, unknown>;
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    const base = baseValue(path, presetId);
    if (spec && JSON.stringify(parseText(spec.kind, raw)) === JSON.stringify(base)) continue;
    edits[path] = raw;
    const [head, part] = path.split('.') as [string, string | undefined];
    const setsIt = part === undefined ? head in own : typeof own[head] === 'object' && own[head] !== null && part in (own[head] as object);
    kept.push({ path, value: raw, preset: setsIt ? (base === null ? 'off' : String(base)) : undefined });
  }
  return { draft: { ...d, presetId, edits }, kept };
}
