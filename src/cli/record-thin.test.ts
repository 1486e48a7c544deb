// `rlvr record info` and `rlvr record thin`: the shipped lesson records are thinned copies of what
// `rlvr lesson run` wrote (scripts/record-lessons.sh). Thinning keeps every step's metrics, every
// evaluation and checkpoint, and the rollouts of the first, every N-th and the last recorded step, each
// exactly as it was; bad input is refused with the reason and writes nothing.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunRecord } from '../record/run-record.ts';
import { rlvr } from './rlvr-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-record-thin-'));
// Written by `rlvr train --record` (30 steps of SAT, rollouts at every step, the weights after step 30).
const shipped = 'public/records/sat-grpo-30.rlvr.gz';

describe('rlvr record', () => {
  it('thin keeps every metric, evaluation and checkpoint, and the rollouts of steps 1, 11, 21 and 30 unchanged', {
    timeout: 120_000,
  }, async () => {
    const out = join(dir, 'thin.rlvr.gz');
    const r = await rlvr('record', 'thin', shipped, '--out', out, '--rollouts-every', '10');
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout.trim());
    expect(printed.rollout_steps).toEqual([1, 11, 21, 30]);
    expect(printed.bytes).toBeLessThan(printed.from_bytes);
    const full = (await readRunRecord(new Uint8Array(readFileSync(shipped)))).record;
    const thin = (await readRunRecord(new Uint8Array(readFileSync(out)))).record;
    expect(full.rollouts.length).toBe(30);
    expect(thin.steps).toEqual(full.steps);
    expect(thin.evals).toEqual(full.evals);
    expect(thin.config).toEqual(full.config);
    expect(thin.checkpoints.map((c) => [c.step, c.safetensors.length])).toEqual(
      full.checkpoints.map((c) => [c.step, c.safetensors.length]),
    );
    expect(Buffer.from(thin.checkpoints[0]!.safetensors).equals(Buffer.from(full.checkpoints[0]!.safetensors))).toBe(
      true,
    );
    for (const kept of thin.rollouts) expect(kept).toEqual(full.rollouts.find((x) => x.step === kept.step));
    expect(thin.provenance.note).toMatch(/rollouts kept for 4 of the 30 recorded steps \(every 10th, and the last\)/);

    const info = await rlvr('record', 'info', out);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({
      writer: 'rlvr train',
      task: 'sat',
      steps: 30,
      rollout_steps: [1, 11, 21, 30],
      checkpoints: [30],
    });
  });

  it('refuses a file that is not a record, a missing file and a bad stride, writing nothing', {
    timeout: 60_000,
  }, async () => {
    const out = join(dir, 'never.rlvr.gz');
    const notRecord = await rlvr(
      'record',
      'thin',
      'public/lessons/measured.json',
      '--out',
      out,
      '--rollouts-every',
      '5',
    );
    expect(notRecord.code).not.toBe(0);
    expect(notRecord.stderr).toMatch(/cannot read public\/lessons\/measured.json: .*gzip|not a run record/i);
    const missing = await rlvr('record', 'info', join(dir, 'nope.rlvr.gz'));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/does not exist/);
    const stride = await rlvr('record', 'thin', shipped, '--out', out, '--rollouts-every', '0');
    expect(stride.code).not.toBe(0);
    expect(stride.stderr).toMatch(/--rollouts-every must be 1 or more, got 0/);
    expect(existsSync(out)).toBe(false);
  });
});
