// `rlvr train --dataset FILE.jsonl`: the custom task from the command line, with the page's checks.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rlvr } from './rlvr-process.ts';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-train-dataset-'));

describe('rlvr train --dataset', () => {
  it("trains on the file's lines, reporting bad lines as FILE:LINE", { timeout: 120_000 }, async () => {
    const file = join(dir, 'sums.jsonl');
    writeFileSync(file, ['{"prompt": "1+2=", "answer": "3"}', 'oops', '{"prompt": "3+4=", "answer": 7}'].join('\n'));
    const out = join(dir, 'run');
    const r = await rlvr(
      'train',
      '--dataset',
      file,
      '--steps',
      '2',
      '--seed',
      '1',
      '--out',
      out,
      '--set',
      'prompts_per_step=2',
      '--set',
      'num_generations=4',
      '--set',
      'eval_every=0',
      '--threads',
      '1',
    );
    expect(r.stderr).toContain(`${file}:2: not valid JSON`);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).task).toBe('custom');
    const prompts = readFileSync(join(out, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    expect(prompts.length).toBeGreaterThan(0);
    for (const p of prompts) expect(['1+2=', '3+4=']).toContain(p);
  });

  it('refuses a file with no usable line, and the custom task without a file', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"prompt": "caf\u00e9", "answer": "x"}\n');
    const r = await rlvr('train', '--dataset', bad, '--steps', '1', '--seed', '1', '--out', join(dir, 'x'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/line 1: character "é".*not in the model's vocabulary/);
    const r2 = await rlvr('train', '--task', 'custom', '--steps', '1', '--seed', '1', '--out', join(dir, 'y'));
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toMatch(/custom task needs --dataset/);
  });

  it("trains on the dataset a saved config embeds (the playground's Save config), and names one it only names", {
    timeout: 120_000,
  }, async () => {
    const config = join(dir, 'saved.json');
    const text = '{"prompt": "5+1=", "answer": "6"}\n{"prompt": "2+6=", "answer": "8"}\n';
    writeFileSync(
      config,
      JSON.stringify({
        preset: 'grpo',
        task: 'custom',
        prompts_per_step: 2,
        num_generations: 4,
        eval_every: 0,
        dataset: { name: 'sums.jsonl', verifier: { kind: 'exact' }, text },
      }),
    );
    const out = join(dir, 'from-config');
    const r = await rlvr('train', '--config', config, '--steps', '1', '--seed', '1', '--out', out, '--threads', '1');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).task).toBe('custom');
    const prompts = readFileSync(join(out, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    expect(prompts.length).toBeGreaterThan(0);
    for (const p of prompts) expect(['5+1=', '2+6=']).toContain(p);
    const named = join(dir, 'named.json');
    writeFileSync(
      named,
      JSON.stringify({
        task: 'custom',
        dataset: { name: 'big.jsonl', verifier: { kind: 'exact' }, note: 'too large to embed' },
      }),
    );
    const r2 = await rlvr('train', '--config', named, '--steps', '1', '--seed', '1', '--out', join(dir, 'z'));
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toMatch(
      /names the dataset big\.jsonl without embedding it \(too large to embed\): give it with --dataset big\.jsonl/,
    );
  });
});
