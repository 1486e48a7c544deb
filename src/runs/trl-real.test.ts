// A real TRL 1.13 GRPOTrainer run (scripts/trl-run-fixture.sh: a random-init Qwen2 with a BPE tokenizer
// trained in the script, rewards `correctness` and `has_tag`, log_completions=True, 4 steps on CPU),
// opened with the run readers through the Node RunFiles, compared with what pandas reads from the same
// parquet files and with log_history (scripts/trl_run_dump.py). Then the same folder while TRL "is still
// writing": a step's parquet cut short is a problem naming it, and refresh picks the step up once whole.
//
// The Python side comes from scripts/setup-python.sh; where the local wheels are missing it exits 3, and
// these tests print a banner and are reported as skipped, never passed.
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { nodeRunFiles } from '../node/run-files.ts';
import { parsePythonJson } from './files.ts';
import { detectRuns, openRun } from './detect.ts';
import type { MetricPoint } from './types.ts';

const execFileP = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-trl-real-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
// RLVR_TRL_RUN_DIR names a folder scripts/trl-run-fixture.sh already wrote (to rerun the comparison without
// training again); by default TRL runs here, into a fresh folder.
const reuse = process.env.RLVR_TRL_RUN_DIR;
const out = reuse ? resolve(reuse) : join(tmp, 'grpo-out');
const outName = out.slice(out.lastIndexOf('/') + 1);

interface Dumped {
  files: Record<
    string,
    {
      columns: string[];
      rows: Record<string, unknown>[];
      groups: { prompt: string; size: number; mean: number; std: number }[];
    }
  >;
  curves: Record<string, Record<string, number>>;
  state: string | null;
}

let dumped: Dumped | null = null;
let missing = '';

function banner(lines: string[]): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n\n`);
}

function need(ctx: TestContext): Dumped {
  if (!dumped) {
    banner([`SKIPPED: ${ctx.task.name}`, `the real-TRL reader test did not run: ${missing}`]);
    ctx.skip();
  }
  return dumped!;
}

beforeAll(async () => {
  try {
    if (!reuse)
      await execFileP('bash', [join(root, 'scripts/trl-run-fixture.sh'), out], {
        cwd: root,
        maxBuffer: 64 << 20,
        timeout: 420_000,
      });
  } catch (e) {
    const x = e as { code?: number; stderr?: string; message: string };
    if (x.code === 3) {
      missing = 'scripts/setup-python.sh found no local wheels for torch/transformers/trl (exit 3)';
      return;
    }
    throw new Error(`scripts/trl-run-fixture.sh failed (${x.code ?? x.message}):\n${(x.stderr ?? '').slice(-8000)}`);
  }
  const py = join(root, '.venv-py', 'bin', 'python');
  const r = await execFileP(py, [join(root, 'scripts/trl_run_dump.py'), out], { maxBuffer: 64 << 20 });
  dumped = parsePythonJson(r.stdout) as Dumped;
}, 480_000);

const stepOf = (file: string) => Number(/completions_(\d+)\.parquet$/.exec(file)![1]);

describe('a real TRL GRPOTrainer output_dir', () => {
  it(
    'is found as one TRL run, and its steps, groups, prompts, completions, rewards and advantages are the ' +
      'parquet rows',
    async (ctx) => {
      const d = need(ctx);
      const files = nodeRunFiles(out);
      const found = await detectRuns(files);
      expect(found.problems).toEqual([]);
      expect(found.runs).toEqual([{ path: '', name: outName, format: 'trl' }]);
      const run = await openRun(files, found.runs[0]!);
      expect(run.index.problems).toEqual([]);
      expect(run.index.rewardNames).toEqual(['correctness', 'has_tag']);
      const fileNames = Object.keys(d.files);
      expect(fileNames.length).toBe(4);
      expect(run.index.steps).toEqual(fileNames.map(stepOf));
      let nonZeroAdvantages = 0;
      for (const [file, table] of Object.entries(d.files)) {
        expect(table.columns).toEqual(['step', 'prompt', 'completion', 'correctness', 'has_tag', 'advantage']);
        const step = await run.readStep(stepOf(file));
        expect(step.problems).toEqual([]);
        // Every row's step column is the file's step (TRL writes global_step on each row).
        expect(new Set(table.rows.map((r) => r.step))).toEqual(new Set([step.step]));
        const read = step.groups.flatMap((g) => g.completions);
        expect(read.map((c) => c.row)).toEqual(table.rows.map((_, i) => i));
        expect(read.map((c) => c.prompt)).toEqual(table.rows.map((r) => r.prompt));
        expect(read.map((c) => c.completion)).toEqual(table.rows.map((r) => r.completion));
        expect(read.map((c) => c.rewards)).toEqual(
          table.rows.map((r) => ({ correctness: r.correctness, has_tag: r.has_tag })),
        );
        expect(read.map((c) => c.reward)).toEqual(
          table.rows.map((r) => (r.correctness as number) + (r.has_tag as number)),
        );
        expect(read.map((c) => c.advantage)).toEqual(table.rows.map((r) => r.advantage));
        nonZeroAdvantages += read.filter((c) => c.advantage !== 0).length;
        // Groups: consecutive rows of one prompt, num_generations (4) each, with pandas' mean and std (ddof 1).
        expect(step.groups.map((g) => ({ prompt: g.prompt, size: g.completions.length }))).toEqual(
          table.groups.map((g) => ({ prompt: g.prompt, size: g.size })),
        );
        expect(step.groups.every((g) => g.completions.length === 4)).toBe(true);
        step.groups.forEach((g, i) => {
          expect(g.mean).toBeCloseTo(table.groups[i]!.mean, 12);
          expect(g.std).toBeCloseTo(table.groups[i]!.std, 12);
          // TRL's own advantage (scale_rewards "group", weights 1) is (reward - mean) / (std + 1e-4) in float32:
          // the groups and total rewards read are the ones TRL computed it from.
          for (const c of g.completions) expect(c.advantage!).toBeCloseTo((c.reward - g.mean) / (g.std + 1e-4), 4);
        });
      }
      // The rewards vary in this run, so the advantages are not all zero and a swapped column would show.
      expect(nonZeroAdvantages).toBeGreaterThan(0);
    },
  );

  it("has the curves of the newest checkpoint's log_history, every numeric key", async (ctx) => {
    const d = need(ctx);
    expect(d.state).toBe('checkpoint-4/trainer_state.json');
    const run = await openRun(nodeRunFiles(out), { path: '', name: outName, format: 'trl' });
    const expected: MetricPoint[] = Object.entries(d.curves).map(([step, values]) => ({ step: Number(step), values }));
    expect(run.index.metrics).toEqual(expected);
    expect(run.index.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(Object.keys(run.index.metrics[0]!.values)).toEqual(
      expect.arrayContaining(['reward', 'reward_std', 'rewards/correctness/mean', 'entropy', 'loss']),
    );
  });

  it(
    'while TRL is still writing: a cut-short parquet is a problem naming it, and refresh picks the step up ' +
      'once whole',
    async (ctx) => {
      need(ctx);
      const live = join(tmp, 'live');
      cpSync(out, live, { recursive: true });
      const last = join(live, 'completions', 'completions_00004.parquet');
      const whole = readFileSync(last);
      truncateSync(last, Math.floor(whole.length / 2));
      const run = await openRun(nodeRunFiles(live), { path: '', name: 'live', format: 'trl' });
      expect(run.index.steps).toEqual([1, 2, 3]);
      expect(run.index.problems).toHaveLength(1);
      expect(run.index.problems[0]!.file).toBe('completions/completions_00004.parquet');
      expect(run.index.problems[0]!.message).toMatch(/completions_00004\.parquet: not a readable parquet file .*PAR1/);
      copyFileSync(join(out, 'completions', 'completions_00004.parquet'), last);
      const again = await run.refresh();
      expect(again.steps).toEqual([1, 2, 3, 4]);
      expect(again.problems).toEqual([]);
      expect((await run.readStep(4)).groups.length).toBe(3);
    },
  );
});
