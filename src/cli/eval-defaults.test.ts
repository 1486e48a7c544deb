// `rlvr eval` without --difficulty or --temperature measures a checkpoint where it was trained.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlvr } from './rlvr-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-eval-defaults-'));
const evalJson = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { temperature: number; difficulty: Record<string, unknown> };

describe('rlvr eval defaults', () => {
  it('a trained checkpoint is measured at the difficulty and temperature its run used', {
    timeout: 120_000,
  }, async () => {
    const out = join(dir, 'run');
    const t = await rlvr(
      'train',
      '--task',
      'arithmetic',
      '--steps',
      '1',
      '--seed',
      '1',
      '--out',
      out,
      '--set',
      'temperature=0.6',
      '--set',
      'difficulty.digits=2',
      '--set',
      'prompts_per_step=2',
      '--set',
      'num_generations=4',
      '--set',
      'eval_every=0',
      '--threads',
      '1',
    );
    expect(t.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      recipe: { temperature: number; difficulty: Record<string, unknown> };
      tasks: { difficulty: Record<string, unknown> }[];
    };
    expect(manifest.recipe.temperature).toBe(0.6);
    // not the base recipe's 3 digits: the run's own difficulty
    expect(manifest.tasks[0]!.difficulty.digits).toBe(2);
    expect(manifest.recipe.difficulty).toEqual(manifest.tasks[0]!.difficulty);
    const e = await rlvr(
      'eval',
      '--model',
      join(out, 'manifest.json'),
      '--task',
      'arithmetic',
      '--prompts',
      '2',
      '--n',
      '2',
      '--k',
      '1',
      '--threads',
      '1',
    );
    expect(e.code).toBe(0);
    const r = evalJson(e.stdout);
    expect(r.temperature).toBe(0.6);
    expect(r.difficulty).toEqual(manifest.tasks[0]!.difficulty);
    const e2 = await rlvr(
      'eval',
      '--model',
      join(out, 'manifest.json'),
      '--task',
      'arithmetic',
      '--prompts',
      '2',
      '--n',
      '2',
      '--k',
      '1',
      '--temperature',
      '1.2',
      '--threads',
      '1',
    );
    expect(evalJson(e2.stdout).temperature).toBe(1.2);
  });

  it('--n 4 without --k measures pass@1 and pass@4 (the default k list follows --n)', {
    timeout: 120_000,
  }, async () => {
    const e = await rlvr(
      'eval',
      '--model',
      'public/checkpoints/sat-tiny/manifest.json',
      '--task',
      'sat',
      '--n',
      '4',
      '--prompts',
      '2',
      '--threads',
      '1',
    );
    expect(e.stderr).not.toContain('--k values');
    expect(e.code).toBe(0);
    const r = JSON.parse(e.stdout.trim().split('\n').at(-1)!) as { n: number; pass_at_k: Record<string, number> };
    expect(r.n).toBe(4);
    expect(Object.keys(r.pass_at_k).sort()).toEqual(['1', '4']);
  });

  it('a temperature that is not a positive number is refused by name', async () => {
    const e = await rlvr(
      'eval',
      '--model',
      'public/checkpoints/sort-tiny/manifest.json',
      '--task',
      'sort',
      '--temperature',
      '0',
    );
    expect(e.code).not.toBe(0);
    expect(e.stderr).toContain('--temperature must be a number above 0, got 0');
  });
});
