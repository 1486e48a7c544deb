// Search reads several steps at once (a served run answers each read over HTTP, so one at a time is mostly
// waiting) yet reports hits, counts, progress and problems in step order, as a one-at-a-time search does.
import { describe, expect, it } from 'vitest';
import {
  openSource,
  SEARCH_PREFETCH_BATCHES,
  SEARCH_PREFETCH_STEPS,
  SEARCH_READS_IN_FLIGHT,
  type RunSource,
  type StepRows,
} from './opened-run.ts';
import type { RunCompletion, RunSearchProgress } from './types.ts';

const row = (step: number, i: number): RunCompletion => ({
  row: i,
  prompt: `prompt ${step}`,
  completion: i % 2 ? `answer ${step}.${i} needle` : `answer ${step}.${i}`,
  rewards: { r: i },
  reward: i,
  length: 10,
  lengthUnit: 'chars',
  extra: {},
});

/** Steps 1..n; step s's read finishes after (n − s) turns of the event loop, so later steps finish first. */
function slowSource(n: number) {
  let inFlight = 0;
  let most = 0;
  const source: RunSource = {
    index: async () => ({
      name: 'slow',
      format: 'jsonl',
      steps: Array.from({ length: n }, (_, i) => i + 1),
      metrics: [],
      rewardNames: ['r'],
      problems: [],
      notes: [],
    }),
    async readRows(step: number): Promise<StepRows> {
      inFlight++;
      most = Math.max(most, inFlight);
      for (let k = 0; k < n - step; k++) await new Promise((ok) => setImmediate(ok));
      inFlight--;
      if (step === 3) throw new Error('step 3 could not be read');
      return {
        rows: [0, 1, 2, 3].map((i) => row(step, i)),
        problems: [{ file: `${step}.jsonl`, line: 1, message: `a note about step ${step}` }],
      };
    },
  };
  return { source, most: () => most };
}

describe('search over many steps', () => {
  it('keeps several step reads in flight and reports everything in step order', async () => {
    const { source, most } = slowSource(20);
    const run = await openSource(source);
    const progress: RunSearchProgress[] = [];
    const result = await run.search({ text: 'needle' }, { limit: 15, onProgress: (p) => progress.push(p) });
    expect(most()).toBe(SEARCH_READS_IN_FLIGHT);
    expect(SEARCH_READS_IN_FLIGHT).toBeGreaterThan(1);
    expect(result.count).toBe(19 * 2);
    expect(result.hits.map((h) => `${h.step}.${h.row}`)).toEqual(
      [1, 2, 4, 5, 6, 7, 8, 9].flatMap((s) => [`${s}.1`, `${s}.3`]).slice(0, 15),
    );
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(progress.map((p) => p.hits)).toEqual(
      Array.from({ length: 20 }, (_, i) => 2 * (i + 1) - (i + 1 >= 3 ? 2 : 0)),
    );
    expect(run.index.problems.map((p) => p.message)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1).map((s) =>
        s === 3 ? 'step 3 could not be read' : `a note about step ${s}`,
      ),
    );
  });

  it('asks for several prefetch batches ahead, each step once, in order', async () => {
    const n = SEARCH_PREFETCH_STEPS * 5 + 3;
    const { source } = slowSource(n);
    const asked: number[][] = [];
    let readsDone = 0;
    let askedBeforeFirstRead = 0;
    const read = source.readRows;
    const prefetching: RunSource = {
      ...source,
      prefetch: (steps) => asked.push(steps),
      readRows: async (step) => {
        if (readsDone === 0) askedBeforeFirstRead = asked.length;
        const rows = await read(step);
        readsDone++;
        return rows;
      },
    };
    const run = await openSource(prefetching);
    await run.search({ text: 'needle' });
    // The next batches' requests are under way while the first is read, not one batch at a time.
    expect(SEARCH_PREFETCH_BATCHES).toBeGreaterThan(1);
    expect(askedBeforeFirstRead).toBe(SEARCH_PREFETCH_BATCHES);
    expect(asked.every((b) => b.length <= SEARCH_PREFETCH_STEPS)).toBe(true);
    expect(asked.flat()).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });

  it('stops starting reads once cancelled', async () => {
    const { source } = slowSource(40);
    const run = await openSource(source);
    const abort = new AbortController();
    const result = await run.search(
      { text: 'needle' },
      { signal: abort.signal, onProgress: (p) => p.done === 2 && abort.abort() },
    );
    expect(result.cancelled).toBe(true);
    expect(result.stepsSearched).toBe(2);
  });
});
