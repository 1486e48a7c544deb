// `rlvr train --record FILE`: the CLI writes one run record that decodes and holds what the run's
// other files hold (metrics.jsonl, rollouts.jsonl, config.json), plus the checkpoints asked for.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWeights } from '../model/checkpoint.ts';
import { readRunRecord } from '../record/run-record.ts';
import { rlvr } from './rlvr-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-train-record-'));
const small = [
  '--set',
  'prompts_per_step=2',
  '--set',
  'num_generations=4',
  '--set',
  'max_completion_length=24',
  '--set',
  'eval_every=2',
  '--set',
  'eval_prompts=2',
  '--threads',
  '1',
];

describe('rlvr train --record', () => {
  it('writes a record that decodes and matches metrics.jsonl, rollouts.jsonl and config.json, with ' +
    'checkpoints at the chosen steps', {
    timeout: 300_000,
  }, async () => {
    const out = join(dir, 'run');
    const file = join(dir, 'run.rlvr.gz');
    const r = await rlvr(
      'train',
      '--task',
      'sat',
      '--steps',
      '3',
      '--seed',
      '5',
      '--out',
      out,
      '--record',
      file,
      '--record-checkpoints',
      '0,3',
      ...small,
    );
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { record: string; record_bytes: number };
    expect(printed.record).toBe(file);
    const bytes = new Uint8Array(readFileSync(file));
    expect(printed.record_bytes).toBe(bytes.length);
    const { record, notes } = await readRunRecord(bytes);
    expect(notes).toEqual([]);

    expect(record.config).toEqual(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')));
    expect(record.provenance.writer).toBe('rlvr train');
    expect(record.provenance.command).toContain('--record');
    expect(record.provenance.base.name).toBe('sat-tiny');

    // metrics.jsonl: the base's evaluation line, then one line per update with its difficulty, histogram and any
    // evaluation.
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { step: number });
    const updates = lines.filter((l) => 'reward' in l);
    expect(record.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(
      record.steps.map((s) => ({ ...s.metrics, difficulty: s.difficulty, advantage_histogram: s.advantage_histogram })),
    ).toEqual(updates.map(({ eval: _e, eval_pass1_se: _s, wall_time: _w, ...m }) => m));
    expect(record.evals).toEqual(
      lines.filter((l) => l.eval).map((l) => ({ step: l.step, pass_at_k: l.eval, pass1_se: l.eval_pass1_se })),
    );
    expect(record.evals.map((e) => e.step)).toEqual([0, 2, 3]);

    // rollouts.jsonl (--rollouts all): the same completions, every per-token channel (old log-probs and weights as
    // float32).
    const f32 = (xs: number[]) => Array.from(new Float32Array(xs));
    const rollouts = readFileSync(join(out, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const recorded = record.rollouts.flatMap((x) => x.records);
    expect(recorded).toHaveLength(rollouts.length);
    for (let i = 0; i < rollouts.length; i++)
      expect(recorded[i]).toEqual({
        ...rollouts[i],
        oldLogp: f32(rollouts[i].oldLogp),
        weight: f32(rollouts[i].weight),
      });

    // Checkpoints: the base at step 0 and the trained weights after step 3 (what the run saved as model.safetensors).
    expect(record.checkpoints.map((c) => c.step)).toEqual([0, 3]);
    const m = record.checkpoints[1]!.manifest;
    const tensors = (b: Uint8Array) =>
      [...loadWeights(m, b)].map(([k, v]) => [k, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')]);
    expect(tensors(record.checkpoints[1]!.safetensors)).toEqual(
      tensors(new Uint8Array(readFileSync(join(out, 'model.safetensors')))),
    );
    expect(tensors(record.checkpoints[0]!.safetensors)).not.toEqual(tensors(record.checkpoints[1]!.safetensors));
    expect(record.checkpoints[1]!.manifest.training.steps).toBe(3);
  });

  it('refuses checkpoint steps outside the run and --record-checkpoints without --record', async () => {
    const a = await rlvr(
      'train',
      '--task',
      'sat',
      '--steps',
      '2',
      '--out',
      join(dir, 'x'),
      '--record',
      join(dir, 'x.rlvr.gz'),
      '--record-checkpoints',
      '0,5',
    );
    expect(a.code).not.toBe(0);
    expect(a.stderr).toMatch(
      /--record-checkpoints: each step must be a whole number from 0 to --steps \(2\), got "0,5"/,
    );
    const b = await rlvr(
      'train',
      '--task',
      'sat',
      '--steps',
      '2',
      '--out',
      join(dir, 'y'),
      '--record-checkpoints',
      '0',
    );
    expect(b.code).not.toBe(0);
    expect(b.stderr).toMatch(/--record-checkpoints needs --record FILE/);
  });
});
