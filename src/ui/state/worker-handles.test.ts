// One handle per running worker (worker-handle.ts): the live run's and each Compare side's trainer worker
// (a TrainerClient) and each run a reader worker opened (run-sources.ts). After dispose() the worker has
// ended (a reader's with the last run of its folder) and every call is refused with a clear error. The
// workers here are fakes that record what the page asked of them (Comlink's wrap answers for them).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FoundRun } from '../../runs/types.ts';
import { pauseCompare, stopCompare } from './compare.ts';
import { folderSource } from './run-sources.ts';
import { resetSession, session } from './session.ts';
import { getState, idleSide, patch, setState } from './store.ts';
import { openFolder } from './viewer-actions.ts';
import { closeViewerRun } from './viewer-close.ts';
import { runHandle } from './viewer-handles.ts';
import { initialViewer } from './viewer-state.ts';
import { TrainerClient } from './worker-client.ts';
import { HandleDisposed } from './worker-handle.ts';
import { client, connectWorker, dropWorker } from './worker-link.ts';

const fake = vi.hoisted(() => {
  class FakeWorker {
    static all: FakeWorker[] = [];
    terminated = false;
    readonly name: string;
    constructor(_url: URL, options: { name: string }) {
      this.name = options.name;
      FakeWorker.all.push(this);
    }
    terminate() {
      this.terminated = true;
    }
    addEventListener() {}
    removeEventListener() {}
    postMessage() {}
  }
  const asked: string[] = [];
  const failOpen = { value: false };
  let ids = 0;
  const api = (w: FakeWorker) => ({
    subscribe: async () => undefined,
    pause: async () => void asked.push(`${w.name}: pause`),
    detectRuns: async () => ({
      runs: ['a', 'b'].map((n) => ({ path: n, name: n, format: 'jsonl' })),
      problems: [],
    }),
    openRun: async (_spec: unknown, found: FoundRun) => {
      if (failOpen.value) throw new Error('unreadable');
      return {
        id: ++ids,
        index: { name: found.name, format: 'jsonl', steps: [1], metrics: [], rewardNames: [], problems: [], notes: [] },
      };
    },
    closeRun: async (id: number) => void asked.push(`${w.name}: closeRun ${id}`),
    readStep: async (_id: number, step: number) => ({ step, problems: [], groups: [] }),
    refresh: async () => undefined,
  });
  const reset = () => {
    ids = 0;
    asked.length = 0;
    FakeWorker.all.length = 0;
    failOpen.value = false;
  };
  return { FakeWorker, asked, api, failOpen, reset };
});

vi.mock('comlink', () => ({ wrap: fake.api, proxy: (x: unknown) => x }));

const found = (name: string): FoundRun => ({ path: name, name, format: 'jsonl' });
const workers = () => fake.FakeWorker.all;

beforeEach(() => {
  fake.reset();
  resetSession();
  vi.stubGlobal('Worker', fake.FakeWorker);
  setState({ viewer: initialViewer });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("a reader's run handle", () => {
  it('once disposed refuses every call; its worker ends with the last run of its folder', async () => {
    const source = folderSource({ name: 'f', files: [] });
    const a = await source.open(found('a'));
    const b = await source.open(found('b'));
    source.dispose(); // nothing more is opened from it
    await expect(source.open(found('c'))).rejects.toThrow('the source f was closed');
    expect(workers().map((w) => w.name)).toEqual(['run reader']);
    a.dispose();
    expect(a.disposed).toBe(true);
    expect(workers()[0]!.terminated).toBe(false);
    expect(fake.asked).toEqual(['run reader: closeRun 1']);
    await expect(a.readStep(1)).rejects.toThrow(new HandleDisposed('the run a'));
    await expect(a.readStep(1)).rejects.toThrow('the run a was closed: its worker has ended');
    await expect(a.search({})).rejects.toBeInstanceOf(HandleDisposed);
    await expect(a.refresh()).rejects.toBeInstanceOf(HandleDisposed);
    await expect(a.findings!()).rejects.toBeInstanceOf(HandleDisposed);
    expect(await b.readStep(1)).toMatchObject({ step: 1 });
    b.dispose();
    expect(workers()[0]!.terminated).toBe(true);
    a.dispose(); // a second dispose: nothing more
    expect(fake.asked).toEqual(['run reader: closeRun 1']);
  });

  it("closing the viewer's runs disposes of their handles; the last one closed frees the reader worker", async () => {
    await openFolder({ name: 'f', files: [] });
    const keys = getState().viewer.runs.map((r) => r.key);
    expect(keys).toHaveLength(2);
    const handles = keys.map((k) => runHandle(k)!);
    expect(getState().viewer.runs.every((r) => r.opened)).toBe(true);
    closeViewerRun(keys[0]!);
    expect(handles[0]!.disposed).toBe(true);
    expect(runHandle(keys[0])).toBe(null);
    expect(workers()[0]!.terminated).toBe(false);
    closeViewerRun(keys[1]!);
    expect(handles[1]!.disposed).toBe(true);
    expect(workers()[0]!.terminated).toBe(true);
  });

  it("a source's worker ends once it is disposed with no run of it open", () => {
    const source = folderSource({ name: 'f', files: [] });
    source.dispose();
    source.dispose();
    expect(workers()[0]!.terminated).toBe(true);
  });

  it('a folder whose runs all fail to open frees its reader worker', async () => {
    fake.failOpen.value = true;
    await openFolder({ name: 'f', files: [] });
    expect(getState().viewer.runs.map((r) => r.error)).toEqual([
      'Could not open a: unreadable',
      'Could not open b: unreadable',
    ]);
    expect(workers()[0]!.terminated).toBe(true);
  });
});

describe("a trainer worker's handle", () => {
  it("the live run's: dropWorker disposes of it, the worker ends and later calls are refused", async () => {
    vi.useFakeTimers(); // the watchdog's pings
    connectWorker({ onEvents: () => undefined, onCrash: () => undefined });
    const live = client();
    await live.pause();
    expect(fake.asked).toEqual(['trainer: pause']);
    dropWorker();
    expect(live.disposed).toBe(true);
    expect(workers()[0]!.terminated).toBe(true);
    await expect(live.pause()).rejects.toThrow('the trainer worker was closed: its worker has ended');
    expect(client()).not.toBe(live); // the next call starts a fresh worker
  });

  it("each Compare side's: Pause marks it and asks its worker; stopCompare disposes of every side", async () => {
    const sides = (['a', 'b'] as const).map((id) => {
      const c = new TrainerClient(
        `compare-${id}`,
        () => undefined,
        () => undefined,
      );
      session.compareClients[id] = c;
      return c;
    });
    patch('compare', {
      running: true,
      a: { ...idleSide('A'), state: 'running' },
      b: { ...idleSide('B'), state: 'done' },
    });
    await pauseCompare();
    expect(sides.map((s) => s.pauseAsked)).toEqual([true, false]);
    expect(getState().compare.a.state).toBe('pausing');
    expect(fake.asked).toEqual(['compare-a: pause', 'compare-b: pause']);
    stopCompare(true);
    expect(sides.map((s) => s.disposed)).toEqual([true, true]);
    expect(workers().map((w) => w.terminated)).toEqual([true, true]);
    expect(session.compareClients).toEqual({});
    await expect(sides[0]!.call((api) => api.status())).rejects.toBeInstanceOf(HandleDisposed);
  });
});
