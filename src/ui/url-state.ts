/**
 * The experiment in the URL (TensorFlow Playground style): only values that differ from the defaults
 * (and from the chosen preset) are written, with a version field so old links keep working.
 *
 *   ?v=1&preset=dapo&task=arithmetic&difficulty.digits=2&learning_rate=0.002&steps=200&backend=wasm
 *
 * Reserved keys: v, preset, task, checkpoint, model, dataset (the name of the custom task's JSONL file: a link
 * carries the name, not the lines, and the Your data tab asks for that file; Save config embeds the lines), (a fresh randomly initialised model: nano | tiny |
 * small), steps (step budget), backend (webgpu | wasm, read by select-backend), lesson (a guided experiment
 * by id: `?lesson=why-groups[&steps=N]` opens and starts it; see lesson-plan.ts), bench and bench_steps (the
 * Benchmark panel's, read by bench-report.ts; not part of the experiment), run (a run record's URL, opened as a
 * recording by recording.ts; not part of the experiment). Every other key is a
 * config field path (`reward_weights.format`, `difficulty.<knob>`); unknown keys are reported, not dropped silently.
 *
 * One table of parameters (`params` below) drives both directions: each entry writes itself from a
 * setup and reads its text back. The config fields' entries come from the config table
 * (src/rl/config-fields.ts through the form's fieldSpecs), so a new field needs nothing here.
 */
import { defaultConfig } from '../rl/config.ts';
import { presets } from '../rl/presets.ts';
import { modelPresets } from '../model/config.ts';
import { lessons } from '../rl/lessons.ts';
import { taskFamilies } from '../tasks/registry.ts';
import { baseValue, fieldSpecs, parseText, type FieldSpec, type SetupDraft } from './config-form.ts';

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
  /** The custom task's dataset, by file name (the lines travel in a saved config, not in a link). */
  dataset?: string | null;
}

export function emptySetup(): UrlSetup {
  return { draft: { task: defaultConfig.task, presetId: DEFAULT_PRESET, edits: {}, knobs: {} }, checkpoint: null, model: null, stepBudget: 0, backend: null, lesson: null };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * One URL parameter, both directions side by side: what it writes from a setup (nothing at its
 * default) and how it reads its text back (a note when the text is not acceptable). Keys ending in
 * `.` are families (`difficulty.<knob>`).
 */
interface Param {
  key: string;
  write(s: UrlSetup): [string, string][];
  read(s: UrlSetup, raw: string, key: string): string | null;
}

/** A parameter that is one of a list of names (preset, task, model). */
function choice(key: string, known: () => string[], get: (s: UrlSetup) => string | null, set: (s: UrlSetup, v: string) => void, dflt: string | null, unknown: (raw: string) => string): Param {
  return {
    key,
    write: (s) => {
      const v = get(s);
      return v !== null && v !== dflt ? [[key, v]] : [];
    },
    read: (s, raw) => {
      if (!known().includes(raw)) return unknown(raw);
      set(s, raw);
      return null;
    },
  };
}

/** A config field from the table (src/rl/config-fields.ts): written when it differs from the preset's value. */
function fieldParam(spec: FieldSpec): Param {
  return {
    key: spec.path,
    write: (s) => {
      const raw = s.draft.edits[spec.path];
      if (raw === undefined || same(parseText(spec.kind, raw), baseValue(spec.path, s.draft.presetId))) return [];
      return [[spec.path, String(raw)]];
    },
    read: (s, raw) => {
      s.draft.edits[spec.path] = spec.kind === 'bool' ? raw === 'true' : raw;
      return null;
    },
  };
}

/** Every parameter of an experiment link, in the order they are written. `backend` is not part of the experiment. */
const params: Param[] = [
  choice('preset', () => presets.map((x) => x.id), (s) => s.draft.presetId, (s, v) => (s.draft.presetId = v), DEFAULT_PRESET, (raw) => `unknown preset "${raw}" (known: ${presets.map((x) => x.id).join(', ')}); using ${DEFAULT_PRESET}`),
  choice('task', () => taskFamilies.map((f) => f.id), (s) => s.draft.task, (s, v) => (s.draft.task = v), defaultConfig.task, (raw) => `unknown task "${raw}"; using ${defaultConfig.task}`),
  { key: 'checkpoint', write: (s) => (s.checkpoint ? [['checkpoint', s.checkpoint]] : []), read: (s, raw) => ((s.checkpoint = raw), null) },
  { key: 'dataset', write: (s) => (s.draft.task === 'custom' && s.dataset ? [['dataset', s.dataset]] : []), read: (s, raw) => ((s.dataset = raw), null) },
  choice('model', () => Object.keys(modelPresets), (s) => s.model, (s, v) => (s.model = v), null, (raw) => `unknown model "${raw}" (known: ${Object.keys(modelPresets).join(', ')})`),
  {
    key: 'difficulty.',
    write: (s) => Object.entries(s.draft.knobs).map(([k, v]): [string, string] => [`difficulty.${k}`, String(v)]),
    read: (s, raw, key) => ((s.draft.knobs[key.slice('difficulty.'.length)] = raw), null),
  },
  ...fieldSpecs.map(fieldParam),
  {
    key: 'steps',
    write: (s) => (s.stepBudget > 0 ? [['steps', String(s.stepBudget)]] : []),
    read: (s, raw) => {
      const n = Number(raw);
      if (!(Number.isInteger(n) && n >= 0)) return `steps=${raw} is not a whole number of steps`;
      s.stepBudget = n;
      return null;
    },
  },
  choice('lesson', () => lessons.map((l) => l.id), (s) => s.lesson ?? null, (s, v) => (s.lesson = v), null, (raw) => `unknown lesson "${raw}" (known: ${lessons.map((l) => l.id).join(', ')})`),
];

const backendParam: Param = {
  key: 'backend',
  write: (s) => (s.backend ? [['backend', s.backend]] : []),
  read: (s, raw) => {
    const b = raw.trim().toLowerCase();
    if (b !== 'webgpu' && b !== 'wasm') return `backend=${raw} is not webgpu or wasm; choosing automatically`;
    s.backend = b;
    return null;
  },
};

const paramFor = (key: string) => (key === 'backend' ? backendParam : params.find((p) => p.key === key || (p.key.endsWith('.') && key.startsWith(p.key) && key.length > p.key.length)));

/** The query string for a setup (without `?`); empty when everything is default. */
export function setupToSearch(s: UrlSetup): string {
  const p = new URLSearchParams();
  const lesson = s.lesson ? lessons.find((l) => l.id === s.lesson) : undefined;
  if (lesson) {
    // The lesson defines the experiment; only a shorter or longer run and the backend are added.
    p.set('lesson', lesson.id);
    if (s.stepBudget > 0 && s.stepBudget !== lesson.steps) p.set('steps', String(s.stepBudget));
  } else {
    const body = params.flatMap((x) => x.write(s));
    if (body.length) {
      p.set('v', String(URL_VERSION));
      for (const [k, v] of body) p.append(k, v);
    }
  }
  for (const [k, v] of backendParam.write(s)) p.set(k, v);
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
    // `run`: a recording to open (recording.ts), not part of the experiment either.
    if (key === 'v' || key === 'bench' || key === 'bench_steps' || key === 'run') continue;
    if (key !== 'backend') hasExperiment = true;
    const param = paramFor(key);
    const note = param ? param.read(s, raw, key) : `unknown setting "${key}" in the link was ignored`;
    if (note) notes.push(note);
  }
  return { setup: s, notes, hasExperiment };
}
