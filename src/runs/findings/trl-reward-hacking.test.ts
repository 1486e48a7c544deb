// A real TRL 1.13 GRPOTrainer run made here (scripts/trl-run-fixture.sh --format-only: a random-init Qwen2
// with its own BPE tokenizer on sums, rewards `correctness` and `has_tag` both logged, trained on `has_tag`
// alone, 30 steps on CPU): the policy learns the tag's bare "<" in a few steps while correctness stays flat,
// and `rlvr findings` on its output_dir flags reward_hacking at late steps, pointing at completions whose
// correctness is no better than at the start.
//
// The Python side comes from scripts/setup-python.sh; where the local wheels are missing it exits 3, and this
// test prints a banner and is reported as skipped, never passed.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeRunFiles } from '../../node/run-files.ts';
import { detectRuns, openRun } from '../detect.ts';
import { findRunFindings } from './find.ts';

const execFileP = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-trl-hack-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('reward_hacking on a real TRL run trained on a format reward only', () => {
  it('is flagged at its late steps, with completions no more correct than at the start', async (ctx) => {
    const out = join(tmp, 'format-only');
    try {
      await execFileP(
        'bash',
        [
          join(root, 'scripts/trl-run-fixture.sh'),
          out,
          '--max-steps',
          '30',
          '--format-only',
          '--learning-rate',
          '0.01',
        ],
        { cwd: root, maxBuffer: 64 << 20, timeout: 420_000 },
      );
    } catch (e) {
      const x = e as { code?: number; stderr?: string; message: string };
      if (x.code !== 3) throw new Error(`scripts/trl-run-fixture.sh failed (${x.code ?? x.message}):\n${x.stderr}`);
      const bar = '!'.repeat(100);
      process.stderr.write(`\n${bar}\n!!  SKIPPED: ${ctx.task.name}: no local wheels for torch/trl (exit 3)\n${bar}\n`);
      ctx.skip();
    }
    const files = nodeRunFiles(out);
    const [found] = (await detectRuns(files)).runs;
    expect(found).toMatchObject({ format: 'trl' });
    const run = await openRun(files, found!);
    expect(run.index.rewardNames).toEqual(['correctness', 'has_tag']);
    const { findings } = await findRunFindings(run, { kinds: ['reward_hacking'] });
    expect(findings.length).toBeGreaterThan(0);
    const steps = run.index.steps;
    const late = steps.slice(-Math.floor(steps.length / 4));
    const early = steps.slice(0, 3);
    let earlyCorrect = 0;
    let n = 0;
    for (const s of early)
      for (const g of (await run.readStep(s)).groups)
        for (const c of g.completions) {
          earlyCorrect += c.rewards.correctness!;
          n++;
        }
    for (const f of findings) {
      expect(late).toContain(f.step);
      expect(f.text).toMatch(/"correctness" went from/);
      const rows = (await run.readStep(f.step)).groups
        .flatMap((g) => g.completions)
        .filter((c) => f.rows.includes(c.row));
      expect(rows.length).toBe(f.rows.length);
      for (const c of rows) expect(c.rewards.correctness).toBeLessThanOrEqual(earlyCorrect / n);
    }
  }, 480_000);
});
