// Every zustand store under src/ui holds plain data only: what a view draws, and keys, ids and flags. The
// objects that run something (a reader's opened run, a search's AbortController, a worker's proxy, a timer)
// are owned elsewhere (viewer-handles.ts, session.ts). Driven here into a state with runs open in the
// viewer, a search, a followed prompt and findings still running, and a recording open, each store's whole
// state must hold no function and come out of structuredClone as it went in.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { decodeRunRecord } from '../../record/run-record.ts';
import type { FoundRun, OpenedRun, RunIndex, RunSearchOptions, RunStep } from '../../runs/types.ts';
import type { FindingsOptions } from '../../runs/findings/index.ts';
import { useDataset } from './dataset-import.ts';
import { useNotices } from './notices.ts';
import { useOffline } from './offline-state.ts';
import { showRecord } from './recording.ts';
import { getState, useApp } from './store.ts';
import { useTabs } from './tabs.ts';
import { useTry } from './try-policy.ts';
import { compareWith, followPrompt, openFolder, runSearch, setForm } from './viewer-actions.ts';
import { runFindings } from './viewer-findings.ts';

/** Searches and findings that never finish until the test ends: the store holds them as running. */
const never = () => new Promise<never>(() => undefined);

function memoryRun(name: string): OpenedRun & { findings(o?: FindingsOptions): Promise<never> } {
  const index: RunIndex = {
    name,
    format: 'jsonl',
    steps: [1, 2],
    metrics: [],
    rewardNames: ['r'],
    problems: [],
    notes: [],
  };
  const step = (s: number): RunStep => ({ step: s, problems: [], groups: [] });
  return {
    index,
    readStep: async (s) => step(s),
    search: (_q, options: RunSearchOptions = {}) => {
      options.onProgress?.({ done: 1, total: 2, hits: 0 });
      return never();
    },
    refresh: async () => index,
    findings: () => never(),
  };
}

// The folder's reader: in memory, in place of the reader's worker (run-sources.ts).
vi.mock('./run-sources.ts', () => ({
  folderSource: () => ({
    label: 'f',
    detect: async () => ({
      runs: ['a', 'b'].map((n): FoundRun => ({ path: n, name: n, format: 'jsonl' })),
      problems: [],
    }),
    open: async (found: FoundRun) => memoryRun(found.name),
    dispose: () => undefined,
  }),
  listServedRuns: async () => null,
  servedSource: () => {
    throw new Error('not served');
  },
}));

/** Where in `value` a function is (a path per function), walking plain objects, arrays, maps and sets. */
function functionsIn(value: unknown, path = '', seen = new Set<unknown>()): string[] {
  if (typeof value === 'function') return [path || '(root)'];
  if (value === null || typeof value !== 'object' || seen.has(value) || ArrayBuffer.isView(value)) return [];
  seen.add(value);
  const entries: [string, unknown][] =
    value instanceof Map
      ? [...value].map(([k, v]) => [String(k), v])
      : value instanceof Set
        ? [...value].map((v, i) => [String(i), v])
        : Object.entries(value);
  return entries.flatMap(([k, v]) => functionsIn(v, path ? `${path}.${k}` : k, seen));
}

const stores: Record<string, { getState(): object }> = {
  'store.ts': useApp,
  'notices.ts': useNotices,
  'offline-state.ts': useOffline,
  'try-policy.ts': useTry,
  'dataset-import.ts': useDataset,
  'tabs.ts': useTabs,
};

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((ok) => setTimeout(ok, 1));
};

describe('the stores keep only serialisable state', () => {
  it('this test covers every file in src/ui that creates a zustand store', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => {
        const p = join(dir, f);
        return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\./.test(f) ? [p] : [];
      });
    const creating = files(join(__dirname, '..'))
      .filter((p) => /=\s*create<[^>]+>\(\)/.test(readFileSync(p, 'utf8')))
      .map((p) => p.slice(__dirname.length + 1))
      .sort();
    expect(creating).toEqual(Object.keys(stores).sort());
  });

  it('with runs open, a search, a followed prompt and findings running and a recording open', async () => {
    await openFolder({ name: 'f', files: [] });
    const v = () => getState().viewer;
    expect(v().open).toBe('folder:0:f/a');
    await compareWith('folder:1:f/b');
    setForm({ rewardMin: '1' });
    runSearch();
    void followPrompt('odd');
    void runFindings();
    await until(() => v().search.progress !== null && v().promptSearch.running && v().comparePromptSearch.running);
    expect(v().findings.running).toBe(true);
    const bytes = readFileSync(join(__dirname, '../../../public/records/sat-grpo-30.rlvr.gz'));
    const decoded = await decodeRunRecord(new Uint8Array(bytes));
    if (!decoded.ok) throw new Error(decoded.error);
    showRecord('demo', decoded.record);

    for (const [name, store] of Object.entries(stores)) {
      const state = store.getState();
      expect({ store: name, functions: functionsIn(state) }).toEqual({ store: name, functions: [] });
      let copy: unknown;
      expect(() => (copy = structuredClone(state)), name).not.toThrow();
      expect(copy, name).toEqual(state);
    }
  });
});
