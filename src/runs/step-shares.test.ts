/**
 * A run's steps shared over several readers (src/runs/step-shares.ts), as the page shares a folder's search
 * and findings over its reader workers: on the run with every finding planted
 * (src/runs/fixtures/planted-findings.jsonl, written by src/runs/findings/planted.ts), the per-step measures
 * put back together and judged once give exactly the findings of one pass over the run, and a shared search
 * gives the hits and count of one search in step order, whatever the share size and whichever reader
 * answers first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRun } from './detect.ts';
import { findRunFindings, judgeRun, measureSteps } from './findings/find.ts';
import { findingKinds } from './findings/types.ts';
import { memoryRunFiles } from './memory-files.ts';
import { measureShared, searchShared, type StepReader } from './step-shares.ts';
import type { OpenedRun, RunQuery } from './types.ts';

const PLANTED = readFileSync(join(__dirname, 'fixtures/planted-findings.jsonl'), 'utf8');

const open = (): Promise<OpenedRun> =>
  openRun(memoryRunFiles('planted', { 'planted.jsonl': PLANTED }), {
    path: 'planted.jsonl',
    name: 'planted',
    format: 'jsonl',
  });

/** Lets `ticks` turns of the event loop pass, so readers answer out of the order they were asked in. */
const later = async (ticks: number) => {
  for (let k = 0; k < ticks; k++) await new Promise((ok) => setImmediate(ok));
};

/** `count` readers, each with the run opened on its own (as each worker opens it); reader k answers k*3 turns late. */
async function readers(count: number): Promise<StepReader[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, k) => {
      const run = await open();
      return {
        async search(steps, query, { limit, histogram, findingRows }) {
          await later(3 * k);
          return run.search(query, { steps, limit, histogram, findingRows });
        },
        async measure(steps) {
          await later(3 * ((count - k) % count));
          const { measures, problems } = await measureSteps(run, steps);
          return { measures, problems };
        },
      };
    }),
  );
}

describe('steps shared over several readers', () => {
  for (const [count, shareSize] of [
    [3, 1],
    [2, 2],
    [3, 5],
    [1, 8],
  ] as const)
    it(`${count} readers, shares of ${shareSize}: the measures merged and judged once equal one pass`, async () => {
      const run = await open();
      const onePass = await findRunFindings(run);
      // Every kind is planted, so the merge is checked on every rule's measures.
      expect(new Set(onePass.findings.map((f) => f.kind))).toEqual(new Set(findingKinds));
      const shared = await measureShared(run.index.steps, await readers(count), { shareSize });
      expect(shared.cancelled).toBe(false);
      expect(shared.measures).toEqual((await measureSteps(run, run.index.steps)).measures);
      expect(judgeRun(run.index, shared.measures)).toEqual(onePass.findings);
    });

  for (const limit of [0, 5, 30, 10_000])
    it(`a shared search keeps the hits and count of one search in step order (limit ${limit})`, async () => {
      const run = await open();
      const query = { text: 'the' };
      const one = await run.search(query, { limit });
      expect(one.count).toBeGreaterThan(30);
      const shared = await searchShared(run.index.steps, query, await readers(3), { limit, shareSize: 2 });
      expect({ ...shared, problems: shared.problems ?? [] }).toEqual({ ...one, problems: one.problems ?? [] });
    });

  for (const limit of [0, 7, 10_000])
    it(`a sorted search with its reward histogram, shared, equals one search (limit ${limit})`, async () => {
      const run = await open();
      const query = { text: 'the', sort: 'reward', order: 'asc' } as const satisfies RunQuery;
      const one = await run.search(query, { limit, histogram: true });
      expect(one.histogram?.bins.length).toBeGreaterThan(1);
      const shared = await searchShared(run.index.steps, query, await readers(3), {
        limit,
        shareSize: 2,
        histogram: true,
      });
      expect({ ...shared, problems: shared.problems ?? [] }).toEqual({ ...one, problems: one.problems ?? [] });
    });

  it('a cancelled search gives no more shares and says it was cancelled', async () => {
    const run = await open();
    const abort = new AbortController();
    const [reader] = await readers(1);
    const asked: number[][] = [];
    const counting: StepReader = {
      ...reader!,
      search(steps, query, limit) {
        asked.push(steps);
        abort.abort();
        return reader!.search(steps, query, limit);
      },
    };
    const r = await searchShared(run.index.steps, { text: 'the' }, [counting], {
      limit: 10,
      shareSize: 1,
      signal: abort.signal,
    });
    expect(r.cancelled).toBe(true);
    expect(asked.length).toBeLessThanOrEqual(2); // the shares already given when it aborted
  });
});
