/**
 * The experiment in the URL (TensorFlow Playground style): only values that differ from the defaults
 * (and from the chosen preset) are written, with a version field so old links keep working.
 *
 *   ?v=1&preset=dapo&task=arithmetic&difficulty.digits=2&learning_rate=0.002&steps=200&backend=wasm
 *
 * Every key a page URL may carry is in the one table below (`params`), each flagged as experiment
 * state (it describes the run: two URLs with the same experiment keys are the same experiment, see
 * `experimentKey`) or page state (how this page shows or runs it):
 *
 *   experiment: preset, task, checkpoint, dataset (the custom task's JSONL file by name: a link carries
 *               the name, not the lines), model (a fresh random model: nano | tiny | small),
 *               difficulty.<knob>, every config field path (`reward_weights.format`), steps (the step
 *               budget), lesson (a guided experiment by id: `?lesson=why-groups[&steps=N]`, lesson-plan.ts);
 *   page:       v (the link's version), backend (webgpu | wasm), threads (WASM threads, 1-16), bench and
 *               bench_steps (the Benchmark panel, bench-report.ts), run (a run record's URL, opened as a
 *               recording by recording.ts), view, step, prompt and finding (a run `rlvr view` serves,
 *               opened in the run viewer at that step and prompt, its Findings panel on that kind:
 *               src/ui/state/viewer-actions.ts), f.* (its search's filters and sort, url-filter.ts).
 *
 * Unknown keys are reported, not dropped silently. Each entry writes itself from a setup and reads its
 * text back; the config fields' entries come from the config table (src/rl/config-fields.ts through
 * the form's fieldSpecs), so a new field needs nothing here. A value read from the link is marked
 * `origins[path] = 'link'` in the draft, so the form says "from the link" beside it until it is edited.
 */
import type { ViewerUrl } from './url-filter.ts';
import { viewerParams } from './url-viewer-params.ts';
import { defaultConfig } from '../../rl/config.ts';
import type { Manifest } from '../../model/checkpoint.ts';
import { presets } from '../../rl/presets.ts';
import { modelPresets } from '../../model/config.ts';
import { lessons } from '../../lessons/index.ts';
import { taskFamilies } from '../../tasks/registry.ts';
import { baseValue, fieldSpecs, parseText, type FieldSpec, type SetupDraft } from './config-form.ts';
import { DEFAULT_BENCH_STEPS, MAX_BENCH_STEPS, type BenchUrl } from './bench-report.ts';

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
  /**
   * `?threads=N`: ONNX Runtime's WASM threads for the run's worker (unset: the backend's own choice,
   * src/engine/wasm-threads.ts). Read once, when the worker's backend is created.
   */
  threads?: number | null;
  /** The lesson this setup was opened from (the URL is then `?lesson=ID`); cleared when the setup is edited. */
  lesson?: string | null;
  /** The custom task's dataset, by file name (the lines travel in a saved config, not in a link). */
  dataset?: string | null;
}

export function emptySetup(): UrlSetup {
  return {
    draft: { task: defaultConfig.task, presetId: DEFAULT_PRESET, edits: {}, knobs: {} },
    checkpoint: null,
    model: null,
    stepBudget: 0,
    backend: null,
    lesson: null,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * One URL parameter, both directions side by side: what it writes from a setup (nothing at its
 * default) and how it reads its text back (a note when the text is not acceptable). Keys ending in
 * `.` are families (`difficulty.<knob>`).
 */
interface Param {
  key: string;
  /** Experiment state (describes the run) or page state (how this page shows or runs it). */
  scope: 'experiment' | 'page';
  /** `manifest`: the checkpoint the setup starts from, whose recipe the form's fields start at (null: not known). */
  write(s: UrlSetup, manifest: Manifest | null): [string, string][];
  read(s: UrlSetup, raw: string, key: string, page: PageUrl): string | null;
}

/** The page state a URL carries besides the setup's backend: the Benchmark panel and a recording to open. */
export interface PageUrl {
  /**
   * `?bench=1` opens the Benchmark panel; `?bench_steps=N` sets its measured steps per backend (the panel shows the
   * note on a bad N).
   */
  bench: BenchUrl;
  /** `?run=URL`: a run record to open as a recording. */
  run: string | null;
  /** `?lesson=ID` as given (known or not: the lesson gallery names an unknown one). */
  lesson: string | null;
  /** `?view=NAME&step=S&prompt=P`: a run `rlvr view` serves, opened in the run viewer at that step and prompt. */
  viewer: ViewerUrl;
}

export { type ViewerUrl, viewerToSearch } from './url-filter.ts';

const markLink = (s: UrlSetup, path: string) => (s.draft.origins = { ...(s.draft.origins ?? {}), [path]: 'link' });

/** A parameter that is one of a list of names (preset, task, model). */
function choice(
  key: string,
  scope: Param['scope'],
  known: () => string[],
  get: (s: UrlSetup) => string | null,
  set: (s: UrlSetup, v: string) => void,
  dflt: string | null,
  unknown: (raw: string) => string,
): Param {
  return {
    key,
    scope,
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

/**
 * A config field from the table (src/rl/config-fields.ts): written when it differs from the value the form starts it at
 * (the resolver's, over the checkpoint's recipe when it is known).
 */
function fieldParam(spec: FieldSpec): Param {
  return {
    key: spec.path,
    scope: 'experiment',
    write: (s, manifest) => {
      const raw = s.draft.edits[spec.path];
      if (
        raw === undefined ||
        same(parseText(spec.kind, raw), baseValue(spec.path, s.draft.presetId, manifest, s.draft.task))
      )
        return [];
      return [[spec.path, String(raw)]];
    },
    read: (s, raw) => {
      s.draft.edits[spec.path] = spec.kind === 'bool' ? raw === 'true' : raw;
      markLink(s, spec.path);
      return null;
    },
  };
}

/** Every parameter of a page URL, in the order they are written: the experiment's, then the page's. */
const params: Param[] = [
  choice(
    'preset',
    'experiment',
    () => presets.map((x) => x.id),
    (s) => s.draft.presetId,
    (s, v) => (s.draft.presetId = v),
    DEFAULT_PRESET,
    (raw) => `unknown preset "${raw}" (known: ${presets.map((x) => x.id).join(', ')}); using ${DEFAULT_PRESET}`,
  ),
  choice(
    'task',
    'experiment',
    () => taskFamilies.map((f) => f.id),
    (s) => s.draft.task,
    (s, v) => ((s.draft.task = v), markLink(s, 'task')),
    defaultConfig.task,
    (raw) => `unknown task "${raw}"; using ${defaultConfig.task}`,
  ),
  {
    key: 'checkpoint',
    scope: 'experiment',
    write: (s) => (s.checkpoint ? [['checkpoint', s.checkpoint]] : []),
    read: (s, raw) => ((s.checkpoint = raw), null),
  },
  {
    key: 'dataset',
    scope: 'experiment',
    write: (s) => (s.draft.task === 'custom' && s.dataset ? [['dataset', s.dataset]] : []),
    read: (s, raw) => ((s.dataset = raw), null),
  },
  choice(
    'model',
    'experiment',
    () => Object.keys(modelPresets),
    (s) => s.model,
    (s, v) => (s.model = v),
    null,
    (raw) => `unknown model "${raw}" (known: ${Object.keys(modelPresets).join(', ')})`,
  ),
  {
    key: 'difficulty.',
    scope: 'experiment',
    write: (s) => Object.entries(s.draft.knobs).map(([k, v]): [string, string] => [`difficulty.${k}`, String(v)]),
    read: (s, raw, key) => {
      s.draft.knobs[key.slice('difficulty.'.length)] = raw;
      markLink(s, key);
      return null;
    },
  },
  ...fieldSpecs.map(fieldParam),
  {
    key: 'steps',
    scope: 'experiment',
    write: (s) => (s.stepBudget > 0 ? [['steps', String(s.stepBudget)]] : []),
    read: (s, raw) => {
      const n = Number(raw);
      if (!(Number.isInteger(n) && n >= 0)) return `steps=${raw} is not a whole number of steps`;
      s.stepBudget = n;
      return null;
    },
  },
  {
    ...choice(
      'lesson',
      'experiment',
      () => lessons.map((l) => l.id),
      (s) => s.lesson ?? null,
      (s, v) => (s.lesson = v),
      null,
      (raw) => `unknown lesson "${raw}" (known: ${lessons.map((l) => l.id).join(', ')})`,
    ),
    read: (s, raw, _key, page) => {
      page.lesson = raw;
      if (!lessons.some((l) => l.id === raw))
        return `unknown lesson "${raw}" (known: ${lessons.map((l) => l.id).join(', ')})`;
      s.lesson = raw;
      return null;
    },
  },
  { key: 'v', scope: 'page', write: () => [], read: () => null },
  {
    key: 'backend',
    scope: 'page',
    write: (s) => (s.backend ? [['backend', s.backend]] : []),
    read: (s, raw) => {
      const b = raw.trim().toLowerCase();
      if (b !== 'webgpu' && b !== 'wasm') return `backend=${raw} is not webgpu or wasm; choosing automatically`;
      s.backend = b;
      return null;
    },
  },
  {
    key: 'threads',
    scope: 'page',
    write: (s) => (s.threads ? [['threads', String(s.threads)]] : []),
    read: (s, raw) => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > 16)
        return `threads=${raw} is not a whole number from 1 to 16; choosing automatically`;
      s.threads = n;
      return null;
    },
  },
  // The bench and run keys are read once at start-up and not written back (the address bar drops them; boot.ts keeps
  // `run` while its recording is open).
  {
    key: 'bench',
    scope: 'page',
    write: () => [],
    read: (_s, raw, _k, page) => ((page.bench.open = raw === '1'), null),
  },
  {
    key: 'bench_steps',
    scope: 'page',
    write: () => [],
    read: (_s, raw, _k, page) => {
      const n = Number(raw);
      if (Number.isInteger(n) && n >= 1 && n <= MAX_BENCH_STEPS) page.bench.steps = n;
      else
        page.bench.note =
          `bench_steps=${raw} is not a whole number from 1 to ` +
          `${MAX_BENCH_STEPS}; measuring ${DEFAULT_BENCH_STEPS} ` +
          'steps';
      return null;
    },
  },
  {
    key: 'run',
    scope: 'page',
    write: () => [],
    read: (_s, raw, _k, page) => ((page.run = raw === '' ? null : raw), null),
  },
  ...viewerParams,
];

/** The table's keys with their scope (for docs and tests). */
export const urlKeys: { key: string; scope: Param['scope'] }[] = params.map((p) => ({ key: p.key, scope: p.scope }));

const paramFor = (key: string) =>
  params.find((p) => p.key === key || (p.key.endsWith('.') && key.startsWith(p.key) && key.length > p.key.length));
const pageParam = (key: string) => params.find((p) => p.key === key && p.scope === 'page')!;

/**
 * The query string for a setup (without `?`); empty when everything is default. `manifest`: the checkpoint it starts
 * from (its recipe is part of the base an edit is compared with).
 */
export function setupToSearch(s: UrlSetup, manifest: Manifest | null = null): string {
  const p = new URLSearchParams();
  const lesson = s.lesson ? lessons.find((l) => l.id === s.lesson) : undefined;
  if (lesson) {
    // The lesson defines the experiment; only a shorter or longer run and the backend are added.
    p.set('lesson', lesson.id);
    if (s.stepBudget > 0 && s.stepBudget !== lesson.steps) p.set('steps', String(s.stepBudget));
  } else {
    const body = params.filter((x) => x.scope === 'experiment').flatMap((x) => x.write(s, manifest));
    if (body.length) {
      p.set('v', String(URL_VERSION));
      for (const [k, v] of body) p.append(k, v);
    }
  }
  for (const key of ['backend', 'threads']) for (const [k, v] of pageParam(key).write(s, manifest)) p.set(k, v);
  return p.toString();
}

/**
 * The part of the query that describes the experiment (its page-state keys dropped): two URLs with equal keys are the
 * same experiment.
 */
export function experimentKey(search: string): string {
  const p = new URLSearchParams(search);
  for (const k of [...new Set(p.keys())]) if (paramFor(k)?.scope === 'page' && k !== 'v') p.delete(k);
  return p.toString();
}

export interface ParsedUrl {
  setup: UrlSetup;
  /** Problems worth telling the person (unknown keys, bad values, newer link versions). */
  notes: string[];
  /** Whether the URL describes an experiment at all (any experiment-state key). */
  hasExperiment: boolean;
  /** The experiment-state keys the URL carries, in its order. */
  experimentKeys: string[];
  /** The page state the URL carries. */
  page: PageUrl;
}

/** Reads every key of a URL's query through the one table: the setup, the page state, and notes on what was wrong. */
export function searchToSetup(search: string): ParsedUrl {
  const p = new URLSearchParams(search);
  const s = emptySetup();
  const page: PageUrl = {
    bench: { open: false, steps: DEFAULT_BENCH_STEPS, note: null },
    run: null,
    lesson: null,
    viewer: { name: null, step: null, prompt: null },
  };
  const notes: string[] = [];
  const v = p.get('v');
  if (v !== null && Number(v) > URL_VERSION)
    notes.push(`this link was made by a newer version (v=${v}); some settings may not apply`);
  const experimentKeys: string[] = [];
  for (const [key, raw] of p) {
    const param = paramFor(key);
    if (param?.scope === 'experiment') experimentKeys.push(key);
    const note = param ? param.read(s, raw, key, page) : `unknown setting "${key}" in the link was ignored`;
    if (note) notes.push(note);
    if (!param) experimentKeys.push(key);
  }
  return { setup: s, notes, hasExperiment: experimentKeys.length > 0, experimentKeys, page };
}
