// The command-line contract: sample -> verify round trip at full reward, exit codes and messages.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rlvr } from '../cli/rlvr-process.ts';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-cli-'));

describe('rlvr CLI', () => {
  it('lists the families as JSON', async () => {
    const [r, text] = await Promise.all([rlvr('tasks', '--json'), rlvr('tasks')]);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { id: string; knobs: { name: string; default: unknown }[] }[];
    expect(list.map((f) => f.id)).toEqual(['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain', 'custom']);
    expect(list.find((f) => f.id === 'sat')!.knobs.map((k) => k.name)).toEqual(['n', 'k', 'm', 'ratio']);
    expect(text.stdout).toMatch(/countdown/);
  });

  it('sample then verify the reference gives the max reward, for every family', async () => {
    const tasks = ['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain'];
    const samples = await Promise.all(
      tasks.map((task) =>
        rlvr('sample', '--task', task, '--seed', '17', '--difficulty', task === 'sat' ? '{"n":6,"m":7}' : '{}'),
      ),
    );
    const verdicts = await Promise.all(
      tasks.map((task, i) => {
        const s = samples[i]!;
        expect(s.code, s.stderr).toBe(0);
        const inst = JSON.parse(s.stdout);
        expect(inst).toMatchObject({ task, seed: 17 });
        for (const f of ['difficulty', 'prompt', 'reference', 'answer', 'data']) expect(inst).toHaveProperty(f);
        writeFileSync(join(dir, `${task}.json`), s.stdout);
        writeFileSync(join(dir, `${task}.txt`), inst.reference);
        return rlvr(
          'verify',
          '--task',
          task,
          '--instance',
          join(dir, `${task}.json`),
          '--completion',
          join(dir, `${task}.txt`),
        );
      }),
    );
    for (const v of verdicts) {
      expect(v.code, v.stderr).toBe(0);
      const out = JSON.parse(v.stdout);
      expect(out.reward).toBeCloseTo(1, 12);
      expect(out.correct).toBe(true);
      expect(out.components).toMatchObject({ correctness: 0.9, format: 0.1 });
      expect(typeof out.reason).toBe('string');
    }
  });

  it('exits 0 with reward 0.1 for a well-formed wrong answer, and applies --leaky', async () => {
    writeFileSync(join(dir, 'bad.txt'), '<think>hmm</think><answer>1</answer>');
    const [bad, leaky] = await Promise.all([
      rlvr(
        'verify',
        '--task',
        'countdown',
        '--instance',
        join(dir, 'countdown.json'),
        '--completion',
        join(dir, 'bad.txt'),
      ),
      rlvr(
        'verify',
        '--task',
        'sat',
        '--instance',
        join(dir, 'sat.json'),
        '--completion',
        join(dir, 'bad.txt'),
        '--leaky',
      ),
    ]);
    expect(bad.code).toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ correct: false, reward: 0.1 });
    expect(leaky.code).toBe(0);
    expect(JSON.parse(leaky.stdout)).toMatchObject({ leaky: true });
  });

  it('fails with a message on a garbage or mismatched instance file', async () => {
    const garbage = join(dir, 'garbage.json');
    writeFileSync(garbage, 'this is not json');
    writeFileSync(join(dir, 'c.txt'), 'x');
    writeFileSync(
      join(dir, 'wrongtask.json'),
      JSON.stringify({ task: 'sort', seed: 1, difficulty: {}, prompt: '', reference: '', answer: '', data: {} }),
    );
    const [g, w, missing] = await Promise.all([
      rlvr('verify', '--task', 'sat', '--instance', garbage, '--completion', join(dir, 'c.txt')),
      rlvr('verify', '--task', 'sat', '--instance', join(dir, 'wrongtask.json'), '--completion', join(dir, 'c.txt')),
      rlvr('verify', '--task', 'sat', '--instance', join(dir, 'nope.json'), '--completion', join(dir, 'c.txt')),
    ]);
    expect(g.code).not.toBe(0);
    expect(g.stderr).toMatch(/not JSON/);
    expect(w.code).not.toBe(0);
    expect(w.stderr).toMatch(/invalid instance.*not "sat"/);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/cannot read instance file/);
  });

  it('rejects bad flags and knobs with a message', async () => {
    const [k, t] = await Promise.all([
      rlvr('sample', '--task', 'sudoku', '--seed', '1', '--difficulty', '{"blanks":99}'),
      rlvr('sample', '--task', 'chess', '--seed', '1'),
    ]);
    expect(k.code).not.toBe(0);
    expect(k.stderr).toMatch(/"blanks"/);
    expect(t.code).not.toBe(0);
    expect(t.stderr).toMatch(/unknown task "chess"/);
  });

  it('samples from a JSONL dataset for the custom task and verifies it', async () => {
    const data = join(dir, 'd.jsonl');
    writeFileSync(data, '{"prompt":"2+2=","answer":"4"}\nbroken\n');
    const s = await rlvr('sample', '--task', 'custom', '--seed', '1', '--dataset', data, '--verifier', 'numeric');
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(/d\.jsonl:2: not valid JSON/);
    writeFileSync(join(dir, 'custom.json'), s.stdout);
    writeFileSync(join(dir, 'custom.txt'), '<think></think><answer>4.0</answer>');
    const v = await rlvr(
      'verify',
      '--task',
      'custom',
      '--instance',
      join(dir, 'custom.json'),
      '--completion',
      join(dir, 'custom.txt'),
    );
    expect(JSON.parse(v.stdout)).toMatchObject({ correct: true, reward: 1 });
  });
});
