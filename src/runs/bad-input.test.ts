// Bad input to the run readers: each case is named in a problem with the file, the line or row, and what
// was expected, and the rest of the run still opens. TRL parquet files are a real TRL run's
// (src/runs/fixtures/README.md); veRL files are written as `_dump_generations` writes them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectRuns, openRun } from './detect.ts';
import { MAX_LINE_BYTES } from './lines.ts';
import { memoryRunFiles } from './memory-files.ts';
import type { RunFiles } from './types.ts';
import { verlDumpGenerations } from './verl-fixture.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
const trlFile = (name: string) => new Uint8Array(readFileSync(join(fixtures, 'trl-tiny', 'completions', name)));
const trlState = readFileSync(join(fixtures, 'trl-tiny', 'checkpoint-2', 'trainer_state.json'), 'utf8');
const trlRun = (extra: Record<string, Uint8Array | string> = {}) => ({
  'completions/completions_00001.parquet': trlFile('completions_00001.parquet'),
  'completions/completions_00002.parquet': trlFile('completions_00002.parquet'),
  'completions/completions_00003.parquet': trlFile('completions_00003.parquet'),
  'checkpoint-2/trainer_state.json': trlState,
  ...extra,
});
const verl = (step: number) => {
  const d = verlDumpGenerations({ step, inputs: ['q', 'q'], outputs: ['a', 'b'], gts: ['a', 'a'], scores: [1, 0] });
  return { [d.name]: d.text };
};
const line = (step: number, completion: string) => JSON.stringify({ step, prompt: 'p', completion, rewards: { r: 1 } });
const trl = { path: '', name: 'run', format: 'trl' } as const;

describe('bad TRL files', () => {
  const truncatedMessage = expect.stringMatching(
    /^completions\/completions_0000\d\.parquet: not a readable parquet file \(.+\); expected TRL's completions/,
  );

  it('a truncated newest parquet (TRL may be writing it): named when the run opens, its step left out', async () => {
    const whole = trlFile('completions_00003.parquet');
    const files = memoryRunFiles('run', trlRun({ 'completions/completions_00003.parquet': whole.slice(0, 1000) }));
    const run = await openRun(files, trl);
    expect(run.index.steps).toEqual([1, 2]);
    expect(run.index.problems).toEqual([{ file: 'completions/completions_00003.parquet', message: truncatedMessage }]);
    expect((await run.readStep(2)).groups).toHaveLength(3);
  });

  it('a truncated parquet in the middle: named when its step is read; the step then leaves the index', async () => {
    const whole = trlFile('completions_00002.parquet');
    const files = memoryRunFiles('run', trlRun({ 'completions/completions_00002.parquet': whole.slice(0, 1000) }));
    const run = await openRun(files, trl);
    // Indexing reads the first and newest footers only (a run of thousands of steps opens at once).
    expect(run.index.steps).toEqual([1, 2, 3]);
    const step = await run.readStep(2);
    expect(step).toEqual({
      step: 2,
      groups: [],
      problems: [{ file: 'completions/completions_00002.parquet', message: truncatedMessage }],
    });
    expect(run.index.problems).toEqual(step.problems);
    expect((await run.refresh()).steps).toEqual([1, 3]);
    expect((await run.readStep(3)).groups).toHaveLength(3);
  });

  it('a parquet whose rows are corrupt (footer intact): reading the step names the file', async () => {
    const bytes = trlFile('completions_00002.parquet');
    bytes.fill(0xff, 4, 600); // the data pages; the footer (its last 3.8 kB) stays whole
    const run = await openRun(memoryRunFiles('run', trlRun({ 'completions/completions_00002.parquet': bytes })), trl);
    const step = await run.readStep(2);
    expect(step.groups).toEqual([]);
    expect(step.problems).toEqual([
      {
        file: 'completions/completions_00002.parquet',
        message: expect.stringMatching(/^completions\/completions_00002\.parquet: its rows could not be read/),
      },
    ]);
    expect(run.index.problems).toEqual(step.problems);
  });

  it('a parquet without the expected columns: named with the columns it has', async () => {
    const noPrompt = new Uint8Array(readFileSync(join(fixtures, 'no-prompt-column.parquet')));
    const run = await openRun(
      memoryRunFiles('run', trlRun({ 'completions/completions_00004.parquet': noPrompt })),
      trl,
    );
    expect(run.index.steps).toEqual([1, 2, 3]);
    expect(run.index.problems).toEqual([
      {
        file: 'completions/completions_00004.parquet',
        message:
          'completions/completions_00004.parquet: has no column "prompt" (it has step, question, completion, ' +
          'correctness, advantage); ' +
          "expected TRL's completions table (columns step, prompt, completion, one per reward function, advantage)",
      },
    ]);
  });

  it('duplicated steps (completions_2 and completions_00002) and an unreadable trainer_state.json', async () => {
    const files = memoryRunFiles(
      'run',
      trlRun({ 'completions/completions_2.parquet': trlFile('completions_00002.parquet') }),
      ['checkpoint-2/trainer_state.json'],
    );
    const run = await openRun(files, trl);
    expect(run.index.steps).toEqual([1, 2, 3]);
    expect(run.index.metrics).toEqual([]);
    expect(run.index.problems).toEqual([
      {
        file: 'checkpoint-2/trainer_state.json',
        message: 'checkpoint-2/trainer_state.json: the file could not be read (permission denied)',
      },
      {
        file: 'completions/completions_2.parquet',
        message:
          'completions/completions_2.parquet: step 2 again (completions/completions_00002.parquet has it too); ' +
          'completions/completions_00002.parquet was read, this file skipped',
      },
    ]);
  });
});

describe('bad JSONL lines', () => {
  it('not JSON, not UTF-8, and 50 MB long: each named by line, the other lines read, no read over 1 MB', async () => {
    const enc = new TextEncoder();
    const long = new Uint8Array(50 * 1024 * 1024).fill(0x61);
    const parts = [
      enc.encode(`${line(1, 'ok')}\n{"step": 1, "prompt": oops}\n`),
      new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
      long,
      enc.encode(`\n${line(1, 'fine')}\n${line(2, 'two')}\n`),
    ];
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
    const mem = memoryRunFiles('root', { 'run.jsonl': bytes });
    let largest = 0;
    const files: RunFiles = {
      name: 'root',
      list: () => mem.list(),
      read: async (p, s, e) => {
        const b = await mem.read(p, s, e);
        largest = Math.max(largest, b.length);
        return b;
      },
    };
    const run = await openRun(files, { path: 'run.jsonl', name: 'run.jsonl', format: 'jsonl' });
    expect(run.index.steps).toEqual([1, 2]);
    expect(run.index.problems).toEqual([
      {
        file: 'run.jsonl',
        line: 2,
        message: expect.stringMatching(
          /^run\.jsonl line 2: not JSON \(.+\); expected one JSON object per line, got "\{.+ oops\}"$/,
        ),
      },
      {
        file: 'run.jsonl',
        line: 3,
        message: 'run.jsonl line 3: not UTF-8 text; expected one JSON object per line in UTF-8',
      },
      {
        file: 'run.jsonl',
        line: 4,
        message:
          `run.jsonl line 4: longer than ${MAX_LINE_BYTES / 1024 / 1024} MB, skipped; expected one ` +
          `completion per line`,
      },
    ]);
    expect(largest).toBeLessThanOrEqual(1 << 20);
    expect((await run.readStep(1)).groups[0]!.completions.map((c) => c.completion)).toEqual(['ok', 'fine']);
  });

  it('a line without the documented fields, and a step whose lines come apart', async () => {
    const text = [
      line(1, 'a'),
      JSON.stringify({ step: 1, prompt: 'p', rewards: { r: 1 } }),
      line(2, 'b'),
      line(1, 'c'),
    ].join('\n');
    const run = await openRun(memoryRunFiles('root', { 'r.jsonl': text }), {
      path: 'r.jsonl',
      name: 'r',
      format: 'jsonl',
    });
    expect(run.index.problems).toEqual([
      {
        file: 'r.jsonl',
        line: 4,
        message:
          "r.jsonl line 4: step 1 again, after lines of step 2; a step's lines are expected together (read as " +
          'part of step 1)',
      },
    ]);
    const s1 = await run.readStep(1);
    expect(s1.groups[0]!.completions.map((c) => c.completion)).toEqual(['a', 'c']);
    expect(s1.problems).toEqual([
      {
        file: 'r.jsonl',
        line: 2,
        message: expect.stringMatching(
          /^r\.jsonl line 2: "completion" is missing or not text; expected \{"step": number/,
        ),
      },
    ]);
  });
});

describe('bad veRL folders', () => {
  it('a step file missing from the middle (1, 2, 4): step 3 named', async () => {
    const run = await openRun(memoryRunFiles('v', { ...verl(1), ...verl(2), ...verl(4) }), {
      path: '',
      name: 'v',
      format: 'verl',
    });
    expect(run.index.steps).toEqual([1, 2, 4]);
    expect(run.index.problems).toEqual([
      { file: '3.jsonl', message: '3.jsonl is missing: no rollouts for step 3, between the steps before and after it' },
    ]);
  });

  it('duplicated step numbers (3.jsonl and 03.jsonl), and a line whose step disagrees with its file', async () => {
    const files = memoryRunFiles('v', {
      ...verl(1),
      ...verl(2),
      ...verl(3),
      '03.jsonl': verl(3)['3.jsonl']!,
      '4.jsonl': verl(5)['5.jsonl']!,
    });
    const run = await openRun(files, { path: '', name: 'v', format: 'verl' });
    expect(run.index.steps).toEqual([1, 2, 3, 4]);
    expect(run.index.problems).toEqual([
      { file: '03.jsonl', message: '03.jsonl: step 3 again (3.jsonl has it too); 3.jsonl was read, this one skipped' },
    ]);
    const s4 = await run.readStep(4);
    expect(s4.problems.map((p) => [p.file, p.line, p.message])).toEqual([
      ['4.jsonl', 1, '4.jsonl line 1: its "step" is 5 but the file is step 4; read as step 4'],
      ['4.jsonl', 2, '4.jsonl line 2: its "step" is 5 but the file is step 4; read as step 4'],
    ]);
    expect(s4.groups[0]!.completions).toHaveLength(2);
  });

  it('an unreadable step file: the step opens empty with the file named; the others read', async () => {
    const run = await openRun(memoryRunFiles('v', { ...verl(1), ...verl(2) }, ['2.jsonl']), {
      path: '',
      name: 'v',
      format: 'verl',
    });
    expect(run.index.steps).toEqual([1, 2]);
    expect((await run.readStep(1)).groups).toHaveLength(1);
    expect(await run.readStep(2)).toEqual({
      step: 2,
      groups: [],
      problems: [{ file: '2.jsonl', message: '2.jsonl: the file could not be read (permission denied)' }],
    });
    expect(run.index.problems).toEqual([
      { file: '2.jsonl', message: '2.jsonl: the file could not be read (permission denied)' },
    ]);
  });
});

describe('bad folders', () => {
  it('two formats in one folder: both named, TRL taken', async () => {
    const found = await detectRuns(memoryRunFiles('mixed', trlRun({ ...verl(1), ...verl(2) })));
    expect(found.runs).toEqual([{ path: '', name: 'mixed', format: 'trl' }]);
    expect(found.problems).toEqual([
      {
        file: '1.jsonl',
        message:
          "1.jsonl: mixed holds two formats, TRL's completions/ and veRL's {step}.jsonl files (2); read as TRL, " +
          'the veRL ' +
          'files skipped. Open each in a folder of its own.',
      },
    ]);
  });

  it('nothing recognisable: says what was looked for, and why a .jsonl was not taken', async () => {
    const found = await detectRuns(
      memoryRunFiles('stuff', { 'README.md': '# hi', 'notes.jsonl': '{"a": 1}\n', 'data/table.parquet': 'PAR1' }),
    );
    expect(found.runs).toEqual([]);
    expect(found.problems).toEqual([
      {
        file: 'notes.jsonl',
        message:
          'notes.jsonl: not a run: its first line has a; expected step, prompt, completion and rewards ' +
          "(docs/run-formats.md) or veRL's input and output",
      },
      {
        file: 'stuff',
        message: expect.stringMatching(
          /^stuff: no run found; looked for TRL's completions\/completions_\*\.parquet.*records, NeMo-RL's .*db$/,
        ),
      },
    ]);
  });

  it('an unreadable .jsonl and a folder that cannot be listed', async () => {
    const found = await detectRuns(
      memoryRunFiles('r', { 'a.jsonl': line(1, 'x'), 'b.jsonl': line(1, 'y') }, ['a.jsonl']),
    );
    expect(found.runs.map((r) => r.path)).toEqual(['b.jsonl']);
    expect(found.problems).toEqual([
      { file: 'a.jsonl', message: 'a.jsonl: the file could not be read (permission denied)' },
    ]);
    const broken: RunFiles = {
      name: 'gone',
      list: () => Promise.reject(new Error('ENOENT')),
      read: () => Promise.reject(new Error('ENOENT')),
    };
    expect(await detectRuns(broken)).toEqual({
      runs: [],
      problems: [{ file: 'gone', message: 'gone: the folder could not be listed (ENOENT)' }],
    });
  });
});
