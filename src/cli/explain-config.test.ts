// `rlvr train … --explain-config`: one line per field (name, value, source in words), exit 0, no training.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFields, fieldTable, type FieldDecl } from '../rl/config.ts';
import { rlvr } from './rlvr-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-explain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The printed table as field → [value, source]. */
function table(stdout: string): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  for (const line of stdout.trim().split('\n')) {
    const m = /^(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    expect(m, line).not.toBeNull();
    rows.set(m![1]!, [m![2]!, m![3]!]);
  }
  return rows;
}

describe('rlvr train --explain-config', () => {
  it('prints every field with its value and where it came from, then exits without training', async () => {
    const file = join(dir, 'run.json');
    writeFileSync(file, JSON.stringify({ num_generations: 4, top_k: 5 }));
    const out = join(dir, 'never');
    const r = await rlvr(
      'train',
      '--task',
      'sort',
      '--preset',
      'dapo',
      '--config',
      file,
      '--set',
      'top_k=7',
      '--set',
      'difficulty.length=6',
      '--seed',
      '4',
      '--out',
      out,
      '--explain-config',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(out)).toBe(false);
    const rows = table(r.stdout);
    // Every field of the config table is listed (weights by part, the difficulty by knob).
    for (const k of configFields) {
      const d: FieldDecl = fieldTable[k];
      if (k === 'difficulty')
        expect([...rows.keys()].filter((f) => f.startsWith('difficulty.')).length).toBeGreaterThan(0);
      else if (d.kind === 'weights')
        for (const part of Object.keys(d.parts)) expect(rows.has(`${k}.${part}`), `${k}.${part}`).toBe(true);
      else expect(rows.has(k), k).toBe(true);
    }
    expect(rows.get('temperature')).toEqual(['0.7', 'recipe of sort-tiny']);
    expect(rows.get('difficulty.maxValue')).toEqual(['9', 'recipe of sort-tiny']);
    expect(rows.get('epsilon_high')).toEqual(['0.28', 'preset dapo']);
    expect(rows.get('num_generations')).toEqual(['4', 'config file']);
    expect(rows.get('top_k')).toEqual(['7', '--set']);
    expect(rows.get('difficulty.length')).toEqual(['6', '--set']);
    expect(rows.get('seed')).toEqual(['4', 'flag --seed']);
    expect(rows.get('task')).toEqual(['"sort"', 'flag --task']);
    expect(rows.get('learning_rate')).toEqual(['0.0001', 'default']);
  });

  it("takes --model: the recipe named is that checkpoint's", async () => {
    const shipped = resolve('public/checkpoints/sat-tiny');
    const manifest = JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    manifest.name = 'sat-mine';
    manifest.recipe = { difficulty: { n: 5, k: 3, m: 6, ratio: 0 }, eval_prompts: 24 };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    copyFileSync(join(shipped, manifest.weights as string), join(dir, manifest.weights as string));
    const r = await rlvr('train', '--model', join(dir, 'manifest.json'), '--explain-config');
    expect(r.code).toBe(0);
    expect(table(r.stdout).get('eval_prompts')).toEqual(['24', 'recipe of sat-mine']);
  });

  it('names a bad value and exits non-zero', async () => {
    const r = await rlvr('train', '--task', 'sort', '--set', 'top_p=0', '--explain-config');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/top_p: must be > 0/);
    expect(r.stdout).toBe('');
  });
});
