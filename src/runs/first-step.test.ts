// The step a link shows is read as soon as the run's index is, in the reader, and for TRL its file is asked
// for as soon as the files are listed, beside the trainer state: the page's first readStep of it takes that
// read (a link's first view no longer waits for the page to take in the index and ask).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openRun } from './detect.ts';
import { memoryRunFiles } from './memory-files.ts';
import { openSource, type RunSource, type StepRows } from './opened-run.ts';
import type { RunFiles } from './types.ts';

const TINY = join(import.meta.dirname, 'fixtures/trl-tiny');

function filesUnder(dir: string, prefix = ''): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, filesUnder(path, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = new Uint8Array(readFileSync(path));
  }
  return out;
}

/** trl-tiny as a served run: readMany as rlvr view's `files` answers it; the trainer state waits for `release`. */
function servedTiny() {
  const base = memoryRunFiles('trl-tiny', filesUnder(TINY));
  let release = () => {};
  const stateGate = new Promise<void>((ok) => (release = ok));
  let stateAnswered = false;
  const many: string[][] = [];
  const reads: string[] = [];
  const files: RunFiles = {
    name: base.name,
    list: () => base.list(),
    async read(path, start, end) {
      reads.push(path);
      if (path.endsWith('trainer_state.json')) {
        await stateGate;
        stateAnswered = true;
      }
      return base.read(path, start, end);
    },
    async readMany(paths) {
      many.push(paths);
      return Promise.all(paths.map((p) => base.read(p)));
    },
  };
  return { files, release, many, reads, stateAnswered: () => stateAnswered };
}

describe("a link's first step", () => {
  it("TRL: the step's file is asked for before the trainer state is read; the page's readStep takes it", async () => {
    const served = servedTiny();
    const opening = openRun(served.files, { path: '', name: 'trl-tiny', format: 'trl' }, { firstStep: 2 });
    await vi.waitFor(() => expect(served.many).toEqual([['completions/completions_00002.parquet']]));
    expect(served.stateAnswered()).toBe(false);
    served.release();
    const run = await opening;
    const readsBefore = served.reads.length;
    const step = await run.readStep(2);
    expect(served.reads.slice(readsBefore)).toEqual([]);
    // The same rows as a run opened without a first step gives.
    const plain = servedTiny();
    plain.release();
    const other = await openRun(plain.files, { path: '', name: 'trl-tiny', format: 'trl' });
    expect(step).toEqual(await other.readStep(2));
    expect(plain.many).toEqual([]);
  });

  it('any format: the nearest step is read while the index goes to the page, once', async () => {
    const asked: number[] = [];
    const source: RunSource = {
      index: async () => ({
        name: 'r',
        format: 'jsonl',
        steps: [2, 4, 8],
        metrics: [],
        rewardNames: [],
        problems: [],
        notes: [],
      }),
      async readRows(step: number): Promise<StepRows> {
        asked.push(step);
        return { rows: [], problems: [] };
      },
    };
    const run = await openSource(source, { firstStep: 7 });
    expect(asked).toEqual([8]);
    expect((await run.readStep(8)).step).toBe(8);
    expect(asked).toEqual([8]);
    await run.readStep(8); // a later read of it reads again
    expect(asked).toEqual([8, 8]);
    const first = await openSource(source, { firstStep: Number.NEGATIVE_INFINITY });
    expect(asked).toEqual([8, 8, 2]);
    await first.readStep(2);
    expect(asked).toEqual([8, 8, 2]);
  });
});
