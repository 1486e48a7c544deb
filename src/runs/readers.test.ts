// The run readers on each format: veRL's rollout dump (written as verl/trainer/ppo/ray_trainer.py
// `_dump_generations` writes it, src/runs/verl-fixture.ts), the documented JSONL, TRL parquet files from a
// real TRL run (src/runs/fixtures/README.md), and detection of many runs under one root; search and
// refresh over them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRunFiles } from '../node/run-files.ts';
import { detectRuns, openRun } from './detect.ts';
import { parsePythonJson } from './files.ts';
import { groupRows } from './opened-run.ts';
import { memoryRunFiles } from './memory-files.ts';
import { pythonFloat, verlDumpGenerations } from './verl-fixture.ts';
import type { RunFiles } from './types.ts';

const fixtures = join(import.meta.dirname, 'fixtures');

/** Three veRL steps of 2 prompts × 2 samples (interleaved, as veRL repeats the batch), with `acc` per sample. */
function verlStep(step: number, scores = [1, 0, 0.5, 0.5]) {
  return verlDumpGenerations({
    step,
    inputs: ['Q: 2+2? ünï', 'Q: 2+2? ünï', 'Q: 3+3?', 'Q: 3+3?'],
    outputs: [`4 (step ${step})`, '5', '6', 'six'],
    gts: ['4', '4', '6', '6'],
    scores,
    rewardExtraInfos: { acc: [true, false, true, true], pred: ['4', '5', '6', null], short: ['too few'] },
  });
}

function documentedLine(
  step: number,
  prompt: string,
  completion: string,
  rewards: Record<string, number>,
  more: Record<string, unknown> = {},
) {
  return JSON.stringify({ step, prompt, completion, rewards, ...more });
}

describe('veRL rollout_data_dir', () => {
  it('the fixture writes what Python json.dumps writes', () => {
    // Python 3.11: [json.dumps(x) for x in xs]
    const xs = [0, 1, -1, 0.5, 1e-5, 1e16, 123456789.123, 0.1 + 0.2, 2.5e-300, NaN, Infinity, 1e15, 0.0001];
    const py = [
      '0.0',
      '1.0',
      '-1.0',
      '0.5',
      '1e-05',
      '1e+16',
      '123456789.123',
      '0.30000000000000004',
      '2.5e-300',
      'NaN',
      'Infinity',
      '1000000000000000.0',
      '0.0001',
    ];
    expect(xs.map(pythonFloat)).toEqual(py);
    const one = verlDumpGenerations({
      step: 3,
      inputs: ['héllo\n"x"'],
      outputs: ['o'],
      gts: null,
      scores: [1],
      rewardExtraInfos: { acc: [true], pred: [null] },
    });
    // json.dumps({'input': 'héllo\n"x"', 'output': 'o', 'score': 1.0, 'step': 3, 'acc': True, 'pred': None},
    //            ensure_ascii=False)
    expect(one).toEqual({
      name: '3.jsonl',
      text: '{"input": "héllo\\n\\"x\\"", "output": "o", "score": 1.0, "step": 3, "acc": true, "pred": null}\n',
    });
  });

  it('opens: steps from file names, groups of consecutive lines sharing input, score as the reward', async () => {
    const files = memoryRunFiles(
      'rollouts',
      Object.fromEntries([1, 2, 3].map((s) => verlStep(s, [1, 0, 0.5, NaN])).map((d) => [d.name, d.text])),
    );
    const found = await detectRuns(files);
    expect(found).toEqual({ runs: [{ path: '', name: 'rollouts', format: 'verl' }], problems: [] });
    const run = await openRun(files, found.runs[0]!);
    expect(run.index.steps).toEqual([1, 2, 3]);
    expect(run.index.rewardNames).toEqual(['score', 'acc']);
    const step = await run.readStep(2);
    expect(step.problems).toEqual([]);
    expect(step.groups.map((g) => [g.prompt, g.completions.length])).toEqual([
      ['Q: 2+2? ünï', 2],
      ['Q: 3+3?', 2],
    ]);
    const [a, b] = step.groups[0]!.completions;
    expect(a).toMatchObject({
      row: 0,
      completion: '4 (step 2)',
      reward: 1,
      rewards: { score: 1, acc: 1 },
      length: 10,
      lengthUnit: 'chars',
      extra: { gts: '4', pred: '4' },
    });
    expect(b).toMatchObject({ row: 1, reward: 0, rewards: { score: 0, acc: 0 } });
    expect(step.groups[0]!.mean).toBe(0.5);
    expect(step.groups[0]!.std).toBeCloseTo(Math.SQRT1_2, 12);
    // The bare NaN score Python wrote is read as NaN and left out of the group's mean.
    expect(step.groups[1]!.completions[1]!.reward).toBeNaN();
    expect(step.groups[1]!.mean).toBe(0.5);
  });

  it('a run being written: refresh adds new step files; a half-written line waits until complete', async () => {
    const s1 = verlStep(1);
    const files = memoryRunFiles('live', { [s1.name]: s1.text });
    const run = await openRun(files, { path: '', name: 'live', format: 'verl' });
    expect(run.index.steps).toEqual([1]);
    const s2 = verlStep(2);
    const cut = s2.text.lastIndexOf('{') + 10;
    files.put(s2.name, s2.text.slice(0, cut));
    expect((await run.refresh()).steps).toEqual([1, 2]);
    const partial = await run.readStep(2);
    expect(partial.problems).toEqual([]);
    expect(partial.groups.flatMap((g) => g.completions)).toHaveLength(3);
    files.put(s2.name, s2.text);
    await run.refresh();
    expect((await run.readStep(2)).groups.flatMap((g) => g.completions)).toHaveLength(4);
    expect(run.index.problems).toEqual([]);
  });
});

describe('the documented JSONL', () => {
  const lines = [
    documentedLine(1, 'p1', 'a', { correct: 1, format: 0.5 }, { advantage: 0.8, tokens: ['a'] }),
    documentedLine(
      1,
      'p1',
      'bb',
      { correct: 0, format: 0.5 },
      { advantage: -0.8, truncated: true, tokens: { text: ['b', 'b'], ids: [5, 5], logprobs: [-0.1, -0.2] } },
    ),
    documentedLine(1, 'p2', 'c', { correct: 0, format: 0 }, { advantage: 0, source: 'x' }),
    documentedLine(2, [{ role: 'user', content: 'hi' }] as unknown as string, 'hello', { correct: 1, format: 1 }),
    documentedLine(2, [{ role: 'user', content: 'hi' }] as unknown as string, 'hey', { correct: 1, format: 1 }),
  ];

  it('opens with steps, groups, tokens, chat prompts rendered, extra fields kept', async () => {
    const files = memoryRunFiles('root', { 'exp/rollouts.jsonl': `${lines.join('\n')}\n` });
    const found = await detectRuns(files);
    expect(found).toEqual({
      runs: [{ path: 'exp/rollouts.jsonl', name: 'exp/rollouts.jsonl', format: 'jsonl' }],
      problems: [],
    });
    const run = await openRun(files, found.runs[0]!);
    expect(run.index).toMatchObject({
      format: 'jsonl',
      steps: [1, 2],
      rewardNames: ['correct', 'format'],
      problems: [],
    });
    const s1 = await run.readStep(1);
    expect(s1.groups.map((g) => g.completions.length)).toEqual([2, 1]);
    const b = s1.groups[0]!.completions[1]!;
    expect(b).toMatchObject({
      reward: 0.5,
      advantage: -0.8,
      truncated: true,
      length: 2,
      lengthUnit: 'tokens',
      tokens: { text: ['b', 'b'], ids: [5, 5], logprobs: [-0.1, -0.2] },
    });
    expect(s1.groups[1]!.completions[0]!.extra).toEqual({ source: 'x' });
    const s2 = await run.readStep(2);
    expect(s2.groups).toHaveLength(1);
    expect(s2.groups[0]!.prompt).toBe('user: hi');
    expect(s2.groups[0]!.std).toBe(0);
  });

  it(
    'searches every step: text, regex, reward range, advantage sign, length, zero variance, truncated, exact ' +
      'prompt',
    async () => {
      const run = await openRun(memoryRunFiles('r', { 'a.jsonl': lines.join('\n') }), {
        path: 'a.jsonl',
        name: 'a',
        format: 'jsonl',
      });
      const rows = async (q: Parameters<typeof run.search>[0]) =>
        (await run.search(q)).hits.map((h) => `${h.step}/${h.completion}`);
      expect(await rows({ text: 'H' })).toEqual(['2/hello', '2/hey']);
      expect(await rows({ text: 'p2', in: 'completion' })).toEqual([]);
      expect(await rows({ text: 'p2', in: 'prompt' })).toEqual(['1/c']);
      expect(await rows({ text: '^b+$', regex: true })).toEqual(['1/bb']);
      expect(await rows({ rewardMin: 1.5 })).toEqual(['1/a', '2/hello', '2/hey']);
      expect(await rows({ rewardMax: 0 })).toEqual(['1/c']);
      expect(await rows({ advantageSign: 'negative' })).toEqual(['1/bb']);
      expect(await rows({ advantageSign: 'zero' })).toEqual(['1/c']);
      expect(await rows({ lengthMin: 2, lengthMax: 3 })).toEqual(
        ['1/bb', '2/hello', '2/hey'].filter((x) => x !== '2/hello'),
      );
      expect(await rows({ zeroVarianceGroups: true })).toEqual(['1/c', '2/hello', '2/hey']);
      expect(await rows({ truncated: true })).toEqual(['1/bb']);
      expect(await rows({ prompt: 'p1' })).toEqual(['1/a', '1/bb']);
      await expect(run.search({ text: '(', regex: true })).rejects.toThrow(/not a valid regular expression: \/\(\//);
      const progress: number[] = [];
      const r = await run.search({}, { limit: 2, onProgress: (p) => progress.push(p.done) });
      expect(r).toMatchObject({ count: 5, stepsSearched: 2, cancelled: false });
      expect(r.hits).toHaveLength(2);
      expect(progress).toEqual([1, 2]);
    },
  );

  it('search stops when its signal is aborted, between steps, and says so', async () => {
    const many = Array.from({ length: 20 }, (_, s) => documentedLine(s + 1, 'p', 'x', { r: 1 })).join('\n');
    const run = await openRun(memoryRunFiles('r', { 'a.jsonl': many }), {
      path: 'a.jsonl',
      name: 'a',
      format: 'jsonl',
    });
    const abort = new AbortController();
    const r = await run.search({}, { signal: abort.signal, onProgress: (p) => p.done === 5 && abort.abort() });
    expect(r).toMatchObject({ cancelled: true, stepsSearched: 5, count: 5 });
  });

  it('a file being written: refresh reads on from the last whole line; a half-written line is a note', async () => {
    const files = memoryRunFiles('live', {
      'run.jsonl': `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 20)}`,
    });
    const run = await openRun(files, { path: 'run.jsonl', name: 'live', format: 'jsonl' });
    expect(run.index.steps).toEqual([1]);
    expect(run.index.problems).toEqual([]);
    expect(run.index.notes.join(' ')).toMatch(/run\.jsonl line 4 is not complete yet/);
    files.put('run.jsonl', `${lines.join('\n')}\n`);
    const again = await run.refresh();
    expect(again.steps).toEqual([1, 2]);
    expect(again.problems).toEqual([]);
    expect(again.notes).toEqual([]);
    expect((await run.readStep(2)).groups[0]!.completions).toHaveLength(2);
  });
});

describe('TRL output_dir (parquet files of a real TRL run)', () => {
  it('opens with the first and newest footers read, a step with one read of its file', async () => {
    const disk = nodeRunFiles(join(fixtures, 'trl-tiny'));
    const reads: [string, number][] = [];
    const files: RunFiles = {
      name: 'trl-tiny',
      list: () => disk.list(),
      read: async (p, s, e) => {
        const b = await disk.read(p, s, e);
        reads.push([p, b.length]);
        return b;
      },
    };
    const run = await openRun(files, { path: '', name: 'trl-tiny', format: 'trl' });
    expect(run.index).toMatchObject({ steps: [1, 2, 3], rewardNames: ['correctness', 'has_tag'], problems: [] });
    expect(run.index.metrics.map((m) => m.step)).toEqual([1, 2]);
    const parquetReads = () => reads.filter(([p]) => p.endsWith('.parquet')).map(([p]) => p);
    // The first and newest footers are read at once, so their order is not fixed.
    expect([...new Set(parquetReads())].sort()).toEqual([
      'completions/completions_00001.parquet',
      'completions/completions_00003.parquet',
    ]);
    reads.length = 0;
    const step = await run.readStep(2);
    expect(parquetReads()).toEqual(['completions/completions_00002.parquet']);
    expect(step.groups.map((g) => g.completions.length)).toEqual([4, 4, 4]);
    expect(step.groups[0]!.completions[0]).toMatchObject({
      prompt: expect.stringMatching(/^\d\+\d=$/),
      lengthUnit: 'chars',
      extra: {},
    });
    const total = (await run.search({})).count;
    expect(total).toBe(36);
  });
});

describe('TRL output_dir while TRL writes it', () => {
  it("refresh adds a new step file and the newer checkpoint's curves", async () => {
    const disk = nodeRunFiles(join(fixtures, 'trl-tiny'));
    const all: Record<string, Uint8Array> = {};
    for (const f of await disk.list()) all[f.path] = await disk.read(f.path);
    const step3 = 'completions/completions_00003.parquet';
    const state = 'checkpoint-2/trainer_state.json';
    const files = memoryRunFiles(
      'live',
      Object.fromEntries(Object.entries(all).filter(([p]) => p !== step3 && p !== state)),
    );
    const run = await openRun(files, { path: '', name: 'live', format: 'trl' });
    expect(run.index).toMatchObject({ steps: [1, 2], metrics: [] });
    files.put(step3, all[step3]!);
    files.put(state, all[state]!);
    const again = await run.refresh();
    expect(again.steps).toEqual([1, 2, 3]);
    expect(again.metrics.map((m) => m.step)).toEqual([1, 2]);
    expect(again.rewardNames).toEqual(['correctness', 'has_tag']);
    expect((await run.readStep(3)).groups).toHaveLength(3);
  });
});

describe('detectRuns over a root of many runs', () => {
  it('finds each run in its sub-folder, and a record file beside a TRL run as a run of its own', async () => {
    const disk = nodeRunFiles(join(fixtures, 'trl-tiny'));
    const trl: Record<string, Uint8Array> = {};
    for (const f of await disk.list()) trl[`exp-a/${f.path}`] = await disk.read(f.path);
    const v = verlStep(1);
    const files = memoryRunFiles('logs', {
      ...trl,
      'exp-a/run.rlvr.gz': new Uint8Array([0x1f, 0x8b]),
      [`exp-b/rollouts/${v.name}`]: v.text,
      'exp-c/dump.jsonl': documentedLine(1, 'p', 'c', { r: 1 }),
      '.cache/x.jsonl': documentedLine(1, 'p', 'c', { r: 1 }),
    });
    const found = await detectRuns(files);
    expect(found.runs).toEqual([
      { path: 'exp-a', name: 'exp-a', format: 'trl' },
      { path: 'exp-b/rollouts', name: 'exp-b/rollouts', format: 'verl' },
      { path: 'exp-c/dump.jsonl', name: 'exp-c/dump.jsonl', format: 'jsonl' },
      { path: 'exp-a/run.rlvr.gz', name: 'exp-a/run.rlvr.gz', format: 'record' },
    ]);
    expect(found.problems).toEqual([]);
    const trlRun = await openRun(files, found.runs[0]!);
    expect(trlRun.index.steps).toEqual([1, 2, 3]);
    const bad = await openRun(files, found.runs[3]!);
    expect(bad.index.steps).toEqual([]);
    expect(bad.index.problems[0]!.file).toBe('exp-a/run.rlvr.gz');
    expect(bad.index.problems[0]!.message).toMatch(/^exp-a\/run\.rlvr\.gz: not a readable run record: /);
    expect(readFileSync(join(fixtures, 'README.md'), 'utf8')).toMatch(/trl-run-fixture\.sh/);
  });
});

describe('groups', () => {
  const row = (prompt: string, reward: number, i: number) => ({
    row: i,
    prompt,
    completion: `c${i}`,
    rewards: { r: reward },
    reward,
    length: 2,
    lengthUnit: 'chars' as const,
    extra: {},
  });
  it('a prompt sampled twice back to back is two groups of the usual size; numbered groups stay', () => {
    const prompts = ['a', 'a', 'b', 'b', 'b', 'b', 'c', 'c', 'd', 'd', 'd'];
    const rows = prompts.map((p, i) => row(p, i % 2, i));
    expect(groupRows(rows).map((g) => [g.prompt, g.completions.length])).toEqual([
      ['a', 2],
      ['b', 2],
      ['b', 2],
      ['c', 2],
      ['d', 3],
    ]);
    expect(groupRows(rows).map((g) => g.index)).toEqual([0, 1, 2, 3, 4]);
    const numbered = groupRows(rows, [0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3]);
    expect(numbered.map((g) => g.completions.length)).toEqual([2, 4, 2, 3]);
    expect(groupRows(rows)[0]).toMatchObject({ mean: 0.5, std: Math.SQRT1_2 });
  });
});

describe('Python JSON', () => {
  it('bare NaN and ±Infinity outside strings are numbers; inside strings they stay text', () => {
    const v = parsePythonJson(
      '{"a": NaN, "b": [Infinity, -Infinity], "s": "NaN Infinity \\" NaN", "n": 1.5}',
    ) as Record<string, unknown>;
    expect(v.a).toBeNaN();
    expect(v.b).toEqual([Infinity, -Infinity]);
    expect(v.s).toBe('NaN Infinity " NaN');
    expect(v.n).toBe(1.5);
    expect(() => parsePythonJson('{"a": NaNa}')).toThrow(SyntaxError);
  });
});
