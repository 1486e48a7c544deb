/**
 * The experiment in the URL (TensorFlow Playground style): only values that differ from the defaults
 * (and from the chosen preset) are written, with a version field so old links keep working.
 *
 *   ?v=1&preset=dapo&task=arithmetic&difficulty.digits=2&learning_rate=0.002&steps=200&backend=wasm
 *
 * Reserved keys: v, preset, task, checkpoint, model (a fresh randomly initialised model: nano | tiny |
 * small), steps (step budget), backend (webgpu | wasm, read by select-backend), lesson (a guided experiment
 * by id: `?lesson=why-groups[&steps=N]` opens and starts it; see lesson-plan.ts), bench and bench_steps (the
 * Benchmark panel's, read by bench-report.ts; not part of the experiment). Every other key is a
 * config field path (`reward_weights.format`, `difficulty.<knob>`); unknown keys are reported, not dropped silently.
 */
import { defaultConfig } from '../rl/config.ts';
import { presets } from '../rl/presets.ts';
import { modelPresets } from '../model/config.ts';
import { lessons } from '../rl/lessons.ts';
import { baseValue, fieldSpec, parseText, safeFamily, type SetupDraft } from './config-form.ts';

export const URL_VERSION = 1;
export const DEFAULT_PRESET = 'grpo';

export interface UrlSetup {
  draft: SetupDraft;
  /** Shipped checkpoint id (null: the default for the task). */
  checkpoint: string | null;
  /** A fresh random model instead of a checkpoint. */
  model: string | null;
  stepBudget: number;
  backend: 'webgpu' | 'wasm' | null;
  /** The lesson this setup was opened from (the URL is then `?lesson=ID`); cleared when the setup is edited. */
  lesson?: string | null;
}

export function emptySetup(): UrlSetup {
  return { draft: { task: defaultConfig.task, presetId: DEFAULT_PRESET, edits: {}, knobs: {} }, checkpoint: null, model: null, stepBudget: 0, backend: null, lesson: null };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The query string for a setup (without `?`); empty when everything is default. */
export function setupToSearch(s: UrlSetup): string {
  const p = new URLSearchParams();
  const lesson = s.lesson ? lessons.find((l) => l.id === s.lesson) : undefined;
  if (lesson) {
    // The lesson defines the experiment; only a shorter or longer run and the backend are added.
    p.set('lesson', lesson.id);
    if (s.stepBudget > 0 && s.stepBudget !== lesson.steps) p.set('steps', String(s.stepBudget));
    if (s.backend) p.set('backend', s.backend);
    return p.toString();
  }
  const d = s.draft;
  const body: [string, string][] = [];
  if (d.presetId !== DEFAULT_PRESET) body.push(['preset', d.presetId]);
  if (d.task !== defaultConfig.task) body.push(['task', d.task]);
  if (s.checkpoint) body.push(['checkpoint', s.checkpoint]);
  if (s.model) body.push(['model', s.model]);
  for (const [k, raw] of Object.entries(d.knobs)) body.push([`difficulty.${k}`, String(raw)]);
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    if (spec && same(parseText(spec.kind, raw), baseValue(path, d.presetId))) continue;
    body.push([path, String(raw)]);
  }
  if (s.stepBudget > 0) body.push(['steps', String(s.stepBudget)]);
  if (body.length) {
    p.set('v', String(URL_VERSION));
    for (const [k, v] of body) p.append(k, v);
  }
  if (s.backend) p.set('backend', s.backend);
  return p.toString();
}

/** The part of the query that describes the experiment (not the backend): two URLs with equal keys are the same experiment. */
export function experimentKey(search: string): string {
  const p = new URLSearchParams(search);
  p.delete('backend');
  return p.toString();
}

export interface ParsedUrl {
  setup: UrlSetup;
  /** Problems worth telling the person (unknown keys, bad values, newer link versions). */
  notes: string[];
  /** Whether the URL describes an experiment at all (any key besides backend). */
  hasExperiment: boolean;
}

export function searchToSetup(search: string): ParsedUrl {
  const p = new URLSearchParams(search);
  const s = emptySetup();
  const notes: string[] = [];
  const v = p.get('v');
  if (v !== null && Number(v) > URL_VERSION) notes.push(`this link was made by a newer version (v=${v}); some settings may not apply`);
  let hasExperiment = false;
  for (const [key, raw] of p) {
    // The benchmark panel's own keys (bench-report.ts): not part of the experiment.
    if (key === 'v' || key === 'bench' || key === 'bench_steps') continue;
    if (key === 'backend') {
      const b = raw.trim().toLowerCase();
      if (b === 'webgpu' || b === 'wasm') s.backend = b;
      else notes.push(`backend=${raw} is not webgpu or wasm; choosing automatically`);
      continue;
    }
    hasExperiment = true;
    if (key === 'preset') {
      if (presets.some((x) => x.id === raw)) s.draft.presetId = raw;
      else notes.push(`unknown preset "${raw}" (known: ${presets.map((x) => x.id).join(', ')}); using ${DEFAULT_PRESET}`);
    } else if (key === 'task') {
      if (safeFamily(raw)) s.draft.task = raw;
      else notes.push(`unknown task "${raw}"; using ${defaultConfig.task}`);
    } else if (key === 'lesson') {
      if (lessons.some((l) => l.id === raw)) s.lesson = raw;
      else notes.push(`unknown lesson "${raw}" (known: ${lessons.map((l) => l.id).join(', ')})`);
    } else if (key === 'checkpoint') s.checkpoint = raw;
    else if (key === 'model') {
      if (raw in modelPresets) s.model = raw;
      else notes.push(`unknown model "${raw}" (known: ${Object.keys(modelPresets).join(', ')})`);
    } else if (key === 'steps') {
      const n = Number(raw);
      if (Number.isInteger(n) && n >= 0) s.stepBudget = n;
      else notes.push(`steps=${raw} is not a whole number of steps`);
    } else if (key.startsWith('difficulty.')) s.draft.knobs[key.slice(11)] = raw;
    else {
      const spec = fieldSpec(key);
      if (!spec) {
        notes.push(`unknown setting "${key}" in the link was ignored`);
        continue;
      }
      s.draft.edits[key] = spec.kind === 'bool' ? raw === 'true' : raw;
    }
  }
  return { setup: s, notes, hasExperiment };
}
