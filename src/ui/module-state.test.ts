import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No run state in module variables: which run, tab, worker or Compare side is live, the tickets that say
 * which job's answer counts, pause requests and the autosave's run id live in the store or its session
 * (state/session.ts `session`), where a reset or a test can see and clear them. A module-level `let` (or
 * `var`) in src/ui is allowed only when it is listed here, with why it is not run state.
 */
const ALLOWED: Record<string, string> = {
  // Lazy loads: the one fetch of a file the build ships, shared by its callers; forgetting it fetches again.
  'state/lessons.ts measuredLoad': 'measured.json, loaded once (its answer is in the store)',
  'state/recorded-arms.ts shippedLoad': 'records/index.json, loaded once',
  // Memos: pure functions of the store's draft, kept by identity; forgetting one computes it again.
  'state/setup-state.ts validationMemo': "the setup form's errors for the draft now",
  'state/setup-state.ts baseDraft': 'the base draft made from the draft now (so the resolve memo finds it)',
  // Not a cache but no run state either: whether the views' chart-redraw queue is draining.
  'components/charts/render-budget.ts pumping': "the views' drawing schedule",
};

const ui = __dirname;
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\./.test(f) ? [p] : [];
  });

/** The names a source declares with `let` or `var` at its top level (unindented, as the formatter writes them). */
function moduleLets(source: string): string[] {
  return [...source.matchAll(/^(?:export\s+)?(?:let|var)\s+([\w$]+)/gm)].map((m) => m[1]!);
}

describe('src/ui keeps no run state in module variables', () => {
  const found = files(ui).flatMap((p) => moduleLets(readFileSync(p, 'utf8')).map((n) => `${relative(ui, p)} ${n}`));

  it("every module-level let is an allowed cache (else it belongs in the store's session)", () => {
    expect(found.filter((k) => !(k in ALLOWED))).toEqual([]);
  });
  it('the allow-list names only variables that still exist', () => {
    expect(Object.keys(ALLOWED).filter((k) => !found.includes(k))).toEqual([]);
  });
  it('sees a module-level let, and not one inside a function', () => {
    expect(moduleLets('let a = 0;\nexport let b = 1;\nfunction f() {\n  let c = 2;\n}\n')).toEqual(['a', 'b']);
  });
});

/**
 * The workers are thin shells (docs/architecture.md): a module-level `let` there is one worker's own
 * handle or counter, listed here with why; run state belongs to the engine it drives.
 */
const WORKER_ALLOWED: Record<string, string> = {
  'run-reader.worker.ts searchIds': "the next search's id in this reader (its searches map holds the jobs)",
  'run-reader.worker.ts detected': 'the listing detectRuns just read, handed once to the openRun that follows',
  'run-store.ts connection': "the worker's one IndexedDB connection, opened on first use",
  'trainer.worker.ts watchedDevice': "ORT's WebGPU device, watched for loss",
};

describe('workers/ keeps no run state in module variables', () => {
  const dir = join(ui, '..', '..', 'workers');
  const found = files(dir).flatMap((p) => moduleLets(readFileSync(p, 'utf8')).map((n) => `${relative(dir, p)} ${n}`));

  it('every module-level let in a worker is listed with why', () => {
    expect(found.filter((k) => !(k in WORKER_ALLOWED))).toEqual([]);
  });
  it('the list names only variables that still exist', () => {
    expect(Object.keys(WORKER_ALLOWED).filter((k) => !found.includes(k))).toEqual([]);
  });
});
