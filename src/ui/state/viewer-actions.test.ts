// The run viewer's actions over an in-memory opened run (the contract of src/runs/types.ts): the slot
// they fill, an answer for a step the person has left dropped, a search cancelled between steps with
// what it found kept, and a prompt followed in the open run and the compared one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OpenedRun, RunIndex, RunQuery, RunSearchOptions, RunSearchResult, RunStep } from '../../runs/types.ts';
import { getState, setState } from './store.ts';
import {
  cancelSearch,
  compareWith,
  followPrompt,
  pollServed,
  runSearch,
  setForm,
  showRun,
  showStep,
  stepBy,
} from './viewer-actions.ts';
import { viewerLink } from './viewer-url.ts';
import { keepRunHandle } from './viewer-handles.ts';
import { initialViewer, type ViewerRun } from './viewer-state.ts';

/** A run of `steps` steps, one group of two completions each; step reads and searches wait for `gate` when given. */
function memoryRun(name: string, steps: number[], gate?: { wait: (step: number) => Promise<void> }): OpenedRun {
  const index: RunIndex = { name, format: 'jsonl', steps, metrics: [], rewardNames: ['r'], problems: [], notes: [] };
  const stepOf = (step: number): RunStep => ({
    step,
    problems: [],
    groups: [
      {
        index: 0,
        prompt: step % 2 ? 'odd' : 'even',
        mean: 0.5,
        std: Math.SQRT1_2,
        completions: [0, 1].map((row) => ({
          row,
          prompt: step % 2 ? 'odd' : 'even',
          completion: `${name} s${step} c${row}`,
          rewards: { r: row },
          reward: row,
          length: 5,
          lengthUnit: 'chars' as const,
          extra: {},
        })),
      },
    ],
  });
  return {
    index,
    async readStep(step) {
      await gate?.wait(step);
      return stepOf(step);
    },
    async search(query: RunQuery, options: RunSearchOptions = {}): Promise<RunSearchResult> {
      const hits = [];
      let done = 0;
      for (const step of steps) {
        if (options.signal?.aborted) return { hits, count: hits.length, stepsSearched: done, cancelled: true };
        await gate?.wait(-step);
        for (const g of stepOf(step).groups) {
          for (const c of g.completions) {
            if (query.prompt !== undefined && c.prompt !== query.prompt) continue;
            if (query.rewardMin !== undefined && c.reward < query.rewardMin) continue;
            hits.push({
              step,
              group: g.index,
              row: c.row,
              prompt: c.prompt,
              completion: c.completion,
              reward: c.reward,
              length: 5,
            });
          }
        }
        done++;
        options.onProgress?.({ done, total: steps.length, hits: hits.length });
      }
      return { hits, count: hits.length, stepsSearched: done, cancelled: false };
    },
    refresh: async () => index,
  };
}

/** Step reads that wait until the test lets each one through. */
function gate() {
  const waiting = new Map<number, () => void>();
  const arrived = new Map<number, Promise<void>>();
  const arrive = new Map<number, () => void>();
  const arrivedAt = (k: number) => arrived.get(k) ?? arrived.set(k, new Promise((ok) => arrive.set(k, ok))).get(k)!;
  return {
    wait: (k: number) => {
      arrivedAt(k);
      arrive.get(k)!();
      return new Promise<void>((ok) => waiting.set(k, ok));
    },
    /** Resolves once a read of `k` is waiting. */
    arrived: arrivedAt,
    release: (k: number) => waiting.get(k)!(),
  };
}

/** A listed run, opened: its handle kept by key beside the store (viewer-handles.ts). */
const entry = (key: string, handle: OpenedRun): ViewerRun => {
  keepRunHandle(key, Object.assign(handle, { disposed: false, dispose: () => undefined }));
  return {
    key,
    name: handle.index.name,
    format: handle.index.format,
    origin: 'folder',
    opened: true,
    index: handle.index,
    loading: false,
    error: null,
  };
};
const v = () => getState().viewer;
const until = async (what: () => boolean) => {
  while (!what()) await new Promise((ok) => setTimeout(ok, 1));
};

beforeEach(() => setState({ viewer: initialViewer }));

describe("the run viewer's actions", () => {
  it("opens a run at its first step (or the link's nearest); the scrubber moves over steps with rollouts", async () => {
    setState({ viewer: { ...initialViewer, runs: [entry('a', memoryRun('a', [2, 4, 8]))] } });
    await showRun('a');
    expect(v().open).toBe('a');
    expect(v().stepData?.step).toBe(2);
    await showRun('a', 7);
    expect(v().step).toBe(8);
    stepBy(-1);
    await until(() => v().stepData?.step === 4);
    expect(v().step).toBe(4);
  });

  it('drops the answer for a step the person has already left', async () => {
    const g = gate();
    setState({ viewer: { ...initialViewer, runs: [entry('a', memoryRun('a', [1, 2], g))], open: 'a' } });
    const slow = showStep(1);
    await g.arrived(1);
    const fast = showStep(2);
    await g.arrived(2);
    g.release(2);
    await fast;
    g.release(1);
    await slow;
    expect(v().step).toBe(2);
    expect(v().stepData?.step).toBe(2);
  });

  it('a search shows its progress, Cancel stops it between steps, and what it found stays', async () => {
    const g = gate();
    setState({ viewer: { ...initialViewer, runs: [entry('a', memoryRun('a', [1, 2, 3], g))], open: 'a' } });
    setForm({ rewardMin: '1' });
    runSearch();
    await g.arrived(-1);
    expect(v().search.running).toBe(true);
    g.release(-1);
    await g.arrived(-2);
    expect(v().search.progress).toEqual({ done: 1, total: 3, hits: 1 });
    cancelSearch();
    g.release(-2);
    await until(() => !v().search.running);
    expect(v().search.result).toMatchObject({ cancelled: true, stepsSearched: 2, count: 2 });
  });

  it('a form that is not acceptable says why and searches nothing', () => {
    setState({ viewer: { ...initialViewer, runs: [entry('a', memoryRun('a', [1]))], open: 'a' } });
    setForm({ lengthMax: 'long' });
    runSearch();
    expect(v().search).toMatchObject({ running: false, error: 'length to "long" is not a number', result: null });
  });

  it('follows a prompt over training in the open run and in the one compared with it', async () => {
    const runs = [entry('a', memoryRun('a', [1, 2, 3])), entry('b', memoryRun('b', [1, 3, 5]))];
    setState({ viewer: { ...initialViewer, runs, open: 'a' } });
    await compareWith('b');
    await followPrompt('odd');
    expect(v().promptSearch.result?.hits.map((h) => h.step)).toEqual([1, 1, 3, 3]);
    expect(v().comparePromptSearch.result?.hits.map((h) => h.completion)).toEqual([
      'b s1 c0',
      'b s1 c1',
      'b s3 c0',
      'b s3 c1',
      'b s5 c0',
      'b s5 c1',
    ]);
    // The live run's state is not the viewer's: nothing of it changed.
    expect(getState().run.state).toBe('idle');
    expect(getState().run.metrics).toEqual([]);
  });

  it('links to a run `rlvr view` serves, at its step and prompt; a folder opened in the page has no link', () => {
    const served = { ...entry('server:trl run', memoryRun('trl run', [1, 3])), origin: 'server' as const };
    const folder = entry('folder:0', memoryRun('mine', [1]));
    const state = { ...initialViewer, runs: [served, folder], open: served.key, step: 3, prompt: 'What is 2+2?' };
    expect(viewerLink(state, 'http://127.0.0.1:6006/?preset=dapo#x')).toBe(
      'http://127.0.0.1:6006/?view=trl+run&step=3&prompt=What+is+2%2B2%3F',
    );
    expect(viewerLink({ ...state, open: folder.key }, 'http://127.0.0.1:6006/')).toBe(null);
  });

  it("a served run's index is read again only when runs.json counts steps it lacks", async () => {
    // The page as `rlvr view` serves it: marked, and answering runs.json with the run's step count.
    let listedSteps = 2;
    vi.stubGlobal('document', { querySelector: () => ({}), baseURI: 'http://127.0.0.1:6006/' });
    vi.stubGlobal('fetch', async () =>
      Response.json([{ name: 'live', format: 'verl', steps: listedSteps }], {
        headers: { 'content-type': 'application/json' },
      }),
    );
    const handle = memoryRun('live', [1, 2]);
    let refreshes = 0;
    handle.refresh = async () => {
      refreshes++;
      return handle.index;
    };
    const served = { ...entry('server:live', handle), origin: 'server' as const, listedSteps: 2 };
    setState({ viewer: { ...initialViewer, served: true, runs: [served], open: served.key, step: 1 } });
    await pollServed();
    expect(refreshes).toBe(0);
    listedSteps = 3; // the trainer wrote a step
    await pollServed();
    expect(refreshes).toBe(1);
  });
});

afterEach(() => vi.unstubAllGlobals());
