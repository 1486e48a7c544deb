// Property-based tests (fast-check) of the NeMo-RL, prime-rl, ROLL, AReaL and Trackio readers, as
// src/runs/fuzz.test.ts does for the others: valid dumps (scripts/framework_dumps.py, written as each
// framework writes them) mutated, and arbitrary bytes or JSON lines, placed where each format is looked
// for. Nothing throws out of detectRuns, openRun (but its RunReadError), readStep, search or refresh, and
// every problem names a file that its message names too, with its line where it is about a line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { detectRuns, openRun } from './detect.ts';
import { RunReadError } from './files.ts';
import { memoryRunFiles } from './memory-files.ts';
import type { RunFiles, RunProblem } from './types.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-fuzz-frameworks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
execFileSync('/usr/bin/python3', [
  resolve(import.meta.dirname, '..', '..', 'scripts', 'framework_dumps.py'),
  'write',
  tmp,
]);
const bytesOf = (path: string) => new Uint8Array(readFileSync(join(tmp, path)));

/** Where each format is looked for, with a valid file for it. */
const places: [string, Uint8Array][] = [
  ['train_data_step1.jsonl', bytesOf('nemo/train_data_step1.jsonl')],
  ['rollouts/step_0/train/all/traces.jsonl', bytesOf('prime/rollouts/step_0/train/all/traces.jsonl')],
  ['rollout_dump_data.step_0.jsonl', bytesOf('roll/rollout_dump_data.step_0.jsonl')],
  ['rollout/1/7.jsonl', bytesOf('areal/rollout/1/7.jsonl')],
  ['my-project.db', bytesOf('trackio/my-project.db')],
];

async function exercise(files: RunFiles): Promise<RunProblem[]> {
  const { runs, problems } = await detectRuns(files);
  const all = [...problems];
  for (const found of runs) {
    let run;
    try {
      run = await openRun(files, found);
    } catch (e) {
      if (!(e instanceof RunReadError)) throw e;
      all.push({ file: e.file, message: e.message });
      continue;
    }
    for (const s of run.index.steps) all.push(...(await run.readStep(s)).problems);
    await run.search({ text: 'a' });
    await run.search({ text: 'a|b', regex: true, rewardMin: 0, advantageSign: 'positive', zeroVarianceGroups: true });
    all.push(...(await run.refresh()).problems);
  }
  return all;
}

function namesItsFileAndLine(p: RunProblem): void {
  expect(p.file.length).toBeGreaterThan(0);
  expect(p.message).toContain(p.file);
  if (p.line !== undefined) expect(p.message).toContain(`line ${p.line}`);
}

const mutated = (valid: Uint8Array) =>
  fc.oneof(
    fc
      .array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })
      .map((edits) => {
        const b = valid.slice();
        for (const [at, v] of edits) b[at] = v;
        return b;
      }),
    fc.nat(valid.length).map((n) => valid.slice(0, n)),
    fc.tuple(fc.nat(valid.length), fc.uint8Array({ maxLength: 64 })).map(([at, ins]) => {
      const b = new Uint8Array(valid.length + ins.length);
      b.set(valid.subarray(0, at));
      b.set(ins, at);
      b.set(valid.subarray(at), at + ins.length);
      return b;
    }),
  );

/** Lines of arbitrary JSON (objects with the format's keys among others), a few not JSON at all. */
const jsonLines = fc
  .array(
    fc.oneof(
      fc.json(),
      fc
        .dictionary(
          fc.constantFrom('content', 'rewards', 'token_ids', 'traces', 'task', 'responses', 'scores', 'prompt'),
          fc.jsonValue(),
        )
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 20 }),
    ),
    { maxLength: 6 },
  )
  .map((lines) => new TextEncoder().encode(lines.join('\n')));

describe('fuzzing the framework readers', () => {
  it('each valid file, alone where its format is looked for, opens as that format with rows', async () => {
    const formats = ['nemo-rl', 'prime-rl', 'roll', 'areal', 'trackio'];
    for (const [i, [path, valid]] of places.entries()) {
      const files = memoryRunFiles('root', { [path]: valid });
      const { runs } = await detectRuns(files);
      expect(runs.map((r) => r.format)).toEqual([formats[i]]);
      const run = await openRun(files, runs[0]!);
      const step = await run.readStep(run.index.steps[0]!);
      expect(step.groups.length).toBeGreaterThan(0);
      expect(step.problems).toEqual([]);
    }
  });

  for (const [path, valid] of places) {
    it(`${path} mutated: no throw, every problem names its file (and line)`, async () => {
      await fc.assert(
        fc.asyncProperty(mutated(valid), async (bytes) => {
          for (const p of await exercise(memoryRunFiles('root', { [path]: bytes }))) namesItsFileAndLine(p);
        }),
        { numRuns: path.endsWith('.db') ? 60 : 100 },
      );
    }, 120_000);

    it(`arbitrary bytes and JSON lines as ${path}: no throw, every problem names its file (and line)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 1024 }), jsonLines), async (bytes) => {
          for (const p of await exercise(memoryRunFiles('root', { [path]: bytes }))) namesItsFileAndLine(p);
        }),
        { numRuns: 100 },
      );
    }, 120_000);
  }

  it('a line of the wrong shape is a problem naming the file and line, and the others are read', async () => {
    const lines = new TextDecoder().decode(places[0]![1]).split('\n');
    lines.splice(2, 0, '{"content": 5, "rewards": [1]}');
    const run = await openRun(memoryRunFiles('root', { 'train_data_step1.jsonl': lines.join('\n') }), {
      path: '',
      name: 'root',
      format: 'nemo-rl',
    });
    const step = await run.readStep(1);
    expect(step.groups.flatMap((g) => g.completions)).toHaveLength(6);
    expect(step.problems).toEqual([expect.objectContaining({ file: 'train_data_step1.jsonl', line: 3 })]);
    expect(step.problems[0]!.message).toMatch(/^train_data_step1\.jsonl line 3: "content" is not/);
  });
});
