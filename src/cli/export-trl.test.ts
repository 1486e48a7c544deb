// rlvr export --format trl from the command line: the config is resolved as rlvr train resolves it
// (file with its preset, --preset, --set), the difficulty falls back to the base checkpoint's, and
// bad input is refused with a message naming it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rlvr } from './rlvr-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-export-trl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rlvr export --format trl', () => {
  it('writes the project for --task/--preset/--set, at the shipped checkpoint’s difficulty', async () => {
    const out = join(dir, 'sat');
    const r = await rlvr(
      'export',
      '--format',
      'trl',
      '--task',
      'sat',
      '--preset',
      'dr_grpo',
      '--set',
      'learning_rate=3e-5',
      '--set',
      'reward_weights.partial=0.5',
      '--seed',
      '2',
      '--prompts',
      '16',
      '--out',
      out,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      task: 'sat',
      prompts: 16,
      difficulty: { n: 5, k: 3, m: 6, ratio: 0 },
    });
    const script = readFileSync(join(out, 'train_grpo.py'), 'utf8');
    for (const line of ['loss_type="dr_grpo",', 'scale_rewards="none",', 'learning_rate=0.00003,', 'seed=2,'])
      expect(script).toContain(line);
    expect(readFileSync(join(out, 'rewards.py'), 'utf8')).toContain(
      'REWARD_WEIGHTS = {"correctness": 0.9, "format": 0.1, "partial": 0.5}',
    );
    expect(readFileSync(join(out, 'prompts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(16);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/accelerate launch train_grpo\.py --model \.\/hf/);
  });

  it(
    'reads a config file with its preset; a disagreeing --preset, an unknown task and a missing config are ' +
      'refused',
    async () => {
      const cfg = join(dir, 'run.json');
      writeFileSync(cfg, JSON.stringify({ preset: 'gspo', task: 'sort', difficulty: { length: 4 } }));
      const out = join(dir, 'sort');
      const ok = await rlvr('export', '--format', 'trl', '--config', cfg, '--prompts', '5', '--out', out);
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.stdout).difficulty).toMatchObject({ length: 4 });
      expect(readFileSync(join(out, 'train_grpo.py'), 'utf8')).toContain('importance_sampling_level="sequence",');
      const clash = await rlvr('export', '--format', 'trl', '--config', cfg, '--preset', 'grpo', '--out', out);
      expect(clash.code).toBe(2);
      expect(clash.stderr).toMatch(/--preset: grpo disagrees with "preset": "gspo" in .*run\.json/);
      const chess = await rlvr('export', '--format', 'trl', '--task', 'chess', '--out', out);
      expect(chess.code).toBe(2);
      expect(chess.stderr).toMatch(
        /reward functions for arithmetic, countdown, sat, sudoku, sort, chain; not for task "chess"/,
      );
      const none = await rlvr('export', '--format', 'trl', '--out', out);
      expect(none.stderr).toMatch(/needs --config FILE or --task T/);
      const format = await rlvr('export', '--format', 'tf', '--out', out);
      expect(format.stderr).toMatch(/--format must be .*got "tf"/);
    },
  );
});
