// The dumps of NeMo-RL, prime-rl, ROLL, AReaL and Trackio, written by scripts/framework_dumps.py exactly
// as each framework's writer writes them (the script names each source file and the commit it follows),
// opened with the run readers through the Node RunFiles and compared with what Python's json and sqlite3
// read from the same files (the same script's `read`).
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hfTokenizerConfig, hfTokenizerJson } from '../model/hf-tokenizer.ts';
import { nodeRunFiles } from '../node/run-files.ts';
import { detectRuns, openRun } from './detect.ts';
import { memoryRunFiles } from './memory-files.ts';
import type { OpenedRun, RunCompletion, RunFormat } from './types.ts';

const execFileP = promisify(execFile);
const script = resolve(import.meta.dirname, '..', '..', 'scripts', 'framework_dumps.py');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-frameworks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Expected = Record<string, Record<string, Record<string, unknown>[]>>;
let expected: Expected;

beforeAll(async () => {
  await execFileP('/usr/bin/python3', [script, 'write', tmp]);
  const { stdout } = await execFileP('/usr/bin/python3', [script, 'read', tmp], { maxBuffer: 64 << 20 });
  expected = JSON.parse(stdout) as Expected;
}, 60_000);

const folders: Record<string, RunFormat> = {
  nemo: 'nemo-rl',
  prime: 'prime-rl',
  roll: 'roll',
  areal: 'areal',
  trackio: 'trackio',
};

async function open(folder: string): Promise<OpenedRun> {
  const files = nodeRunFiles(join(tmp, folder));
  const { runs, problems } = await detectRuns(files);
  expect(problems).toEqual([]);
  expect(runs.map((r) => r.format)).toEqual([folders[folder]]);
  return openRun(files, runs[0]!);
}

const rowsOf = async (run: OpenedRun, step: number): Promise<RunCompletion[]> =>
  (await run.readStep(step)).groups.flatMap((g) => g.completions).sort((a, b) => a.row - b.row);

describe('framework dumps, read as Python reads them', () => {
  it('each folder is found as its framework, with its steps', async () => {
    for (const folder of Object.keys(folders)) {
      const run = await open(folder);
      expect(run.index.steps.map(String)).toEqual(Object.keys(expected[folders[folder]!]!));
      expect(run.index.problems).toEqual([]);
    }
  });

  it('NeMo-RL: text, rewards, advantages, token ids and both log-probs at every step', async () => {
    const run = await open('nemo');
    for (const [step, want] of Object.entries(expected['nemo-rl']!)) {
      const rows = await rowsOf(run, Number(step));
      expect(
        rows.map((r) => ({
          prompt: r.prompt,
          completion: r.completion,
          reward: r.reward,
          advantage: r.advantage,
          ids: r.tokens?.ids,
          logprobs: r.tokens?.logprobs,
          newLogprobs: r.tokens?.newLogprobs,
        })),
      ).toEqual(want);
      expect(rows.every((r) => r.tokens!.text.length === r.tokens!.ids!.length && r.lengthUnit === 'tokens')).toBe(
        true,
      );
      expect(rows[0]!.tokens!.text[0]).toBe(`[${rows[0]!.tokens!.ids![0]}]`);
    }
    expect((await run.readStep(1)).groups.map((g) => g.completions.length)).toEqual([3, 3]);
  });

  it("NeMo-RL with the model's tokenizer.json in the folder: each token is its piece, not its id", async () => {
    cpSync(join(tmp, 'nemo'), join(tmp, 'nemo-tok'), { recursive: true });
    const json = hfTokenizerJson();
    writeFileSync(join(tmp, 'nemo-tok', 'tokenizer.json'), JSON.stringify(json));
    writeFileSync(join(tmp, 'nemo-tok', 'tokenizer_config.json'), JSON.stringify(hfTokenizerConfig(64)));
    const pieceOf = new Map(
      Object.entries((json.model as { vocab: Record<string, number> }).vocab).map(([piece, id]) => [id, piece]),
    );
    const files = nodeRunFiles(join(tmp, 'nemo-tok'));
    const run = await openRun(files, (await detectRuns(files)).runs[0]!);
    const rows = await rowsOf(run, 1);
    expect(rows.map((r) => r.tokens!.text)).toEqual(rows.map((r) => r.tokens!.ids!.map((id) => pieceOf.get(id))));
    expect(rows.map((r) => r.tokens!.ids)).toEqual(expected['nemo-rl']!['1']!.map((r) => r.ids));
  });

  it('prime-rl: effective episodes, rewards as score × weight, tokens, truncation, the metrics curve', async () => {
    const run = await open('prime');
    for (const [step, want] of Object.entries(expected['prime-rl']!)) {
      const rows = await rowsOf(run, Number(step));
      expect(
        rows.map((r) => ({
          prompt: r.prompt,
          completion: r.completion,
          rewards: r.rewards,
          reward: r.reward,
          advantage: r.advantage,
          ids: r.tokens?.ids,
          logprobs: r.tokens?.logprobs,
          truncated: r.truncated,
        })),
      ).toEqual(want);
    }
    expect(run.index.metrics).toEqual([
      { step: 0, values: { 'reward/mean': 0.25 } },
      { step: 1, values: { 'reward/mean': 0.5 } },
    ]);
    expect((await run.readStep(0)).groups.map((g) => g.completions.length)).toEqual([2, 2]);
  });

  it('ROLL: each column of the one line is a row', async () => {
    const run = await open('roll');
    for (const [step, want] of Object.entries(expected.roll!)) {
      const rows = await rowsOf(run, Number(step));
      expect(rows.map((r) => ({ prompt: r.prompt, completion: r.completion, reward: r.reward }))).toEqual(want);
      expect(rows[0]!.extra.tag).toBe('math');
    }
  });

  it('AReaL: every task file of a version, a group per task, lengths in tokens', async () => {
    const run = await open('areal');
    for (const [step, want] of Object.entries(expected.areal!)) {
      const rows = await rowsOf(run, Number(step));
      expect(
        rows.map((r) => ({ prompt: r.prompt, completion: r.completion, reward: r.reward, length: r.length })),
      ).toEqual(want);
    }
    expect((await run.readStep(1)).groups.map((g) => g.completions.length)).toEqual([3, 3]);
  });

  it('Trackio: every trace row of the SQLite file (interior pages and overflow pages), and the metrics', async () => {
    const run = await open('trackio');
    for (const [step, want] of Object.entries(expected.trackio!)) {
      const rows = await rowsOf(run, Number(step));
      expect(
        rows.map((r) => ({
          prompt: r.prompt,
          completion: r.completion,
          rewards: r.rewards,
          reward: r.reward,
          advantage: r.advantage,
        })),
      ).toEqual(want);
    }
    expect(run.index.metrics).toEqual([
      { step: 0, values: { 'train/reward': 0.5 } },
      { step: 1, values: { 'train/reward': 1.5 } },
    ]);
    expect(expected.trackio!['0']!.some((r) => (r.completion as string).length > 6000)).toBe(true);
  });
});

describe('prime-rl, tailed while it is written', () => {
  it('refresh() shows the lines and the steps appended since, and a half-written line only once whole', async () => {
    const dir = join(tmp, 'prime-live');
    mkdirSync(join(dir, 'rollouts', 'step_0', 'train', 'all'), { recursive: true });
    const file = (s: number) => join(dir, 'rollouts', `step_${s}`, 'train', 'all', 'traces.jsonl');
    const episode = (step: number, k: number) =>
      `${JSON.stringify({
        id: `e${step}${k}`,
        task: { type: 'Task', data: { q: step } },
        group: { id: `g${step}` },
        ok: true,
        errors: [],
        traces: [
          {
            nodes: [
              { message: { role: 'user', content: `Q${step}` }, sampled: false, token_ids: [1], mask: [false] },
              {
                parent: 0,
                message: { role: 'assistant', content: `A${k}` },
                sampled: true,
                token_ids: [5, 6],
                mask: [true, true],
                logprobs: [-0.5, -0.25],
              },
            ],
            rewards: { correct: { score: k, weight: 1 } },
            stop_condition: 'completed',
          },
        ],
      })}\n`;
    writeFileSync(file(0), episode(0, 0));
    const files = nodeRunFiles(dir);
    const { runs } = await detectRuns(files);
    expect(runs.map((r) => r.format)).toEqual(['prime-rl']);
    const run = await openRun(files, runs[0]!);
    expect(run.index.steps).toEqual([0]);
    expect((await rowsOf(run, 0)).map((r) => r.completion)).toEqual(['A0']);
    const second = episode(0, 1);
    appendFileSync(file(0), second.slice(0, 40));
    await run.refresh();
    expect((await rowsOf(run, 0)).map((r) => r.completion)).toEqual(['A0']);
    expect(run.index.problems).toEqual([]);
    appendFileSync(file(0), second.slice(40));
    mkdirSync(join(dir, 'rollouts', 'step_1', 'train', 'all'), { recursive: true });
    writeFileSync(file(1), episode(1, 1));
    await run.refresh();
    expect(run.index.steps).toEqual([0, 1]);
    expect((await rowsOf(run, 0)).map((r) => r.completion)).toEqual(['A0', 'A1']);
    expect((await rowsOf(run, 1)).map((r) => r.reward)).toEqual([1]);
  });

  it('a last line left half-written when the file stops growing is a problem naming the file and line', async () => {
    const dir = join(tmp, 'prime-cut');
    mkdirSync(join(dir, 'rollouts', 'step_3', 'train', 'all'), { recursive: true });
    writeFileSync(join(dir, 'rollouts', 'step_3', 'train', 'all', 'traces.jsonl'), '{"id": "e", "task": {}, "tr');
    const files = nodeRunFiles(dir);
    const run = await openRun(files, (await detectRuns(files)).runs[0]!);
    expect(await rowsOf(run, 3)).toEqual([]);
    await run.refresh();
    expect(run.index.problems).toEqual([
      expect.objectContaining({ file: 'rollouts/step_3/train/all/traces.jsonl', line: 1 }),
    ]);
    expect(run.index.problems[0]!.message).toMatch(/stopped growing/);
  });
});

describe('what is and is not taken for a framework dump', () => {
  it("veRL's {step}.jsonl in a folder named rollout/3/ stays veRL: AReaL's first line decides", async () => {
    const line = JSON.stringify({ input: 'q', output: 'a', score: 1, step: 1 });
    const { runs } = await detectRuns(memoryRunFiles('r', { 'rollout/3/1.jsonl': `${line}\n` }));
    expect(runs.map((r) => [r.format, r.path])).toEqual([['verl', 'rollout/3']]);
  });

  it("Trackio: writes still in the project's -wal file are named in a note, not silently missing", async () => {
    cpSync(join(tmp, 'trackio'), join(tmp, 'trackio-wal'), { recursive: true });
    writeFileSync(join(tmp, 'trackio-wal', 'my-project.db-wal'), new Uint8Array(4096));
    const files = nodeRunFiles(join(tmp, 'trackio-wal'));
    const run = await openRun(files, (await detectRuns(files)).runs[0]!);
    expect(run.index.notes).toContainEqual(
      expect.stringMatching(/^my-project\.db-wal holds writes .* not shown yet\.$/),
    );
  });
});
