/**
 * `logprob_mismatch` on a NeMo-RL dump (train_data_step{N}.jsonl), written by scripts/framework_dumps.py as
 * NeMo-RL's grpo.py and log_batched_dict_as_jsonl write it (the commit is named there): its sampler's
 * `generation_logprobs` and trainer's `prev_logprobs` 0.01 nats apart everywhere (a clean run), and the same
 * dump with one completion token 2 nats apart (found at that step and row, nowhere else).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeRunFiles } from '../../node/run-files.ts';
import { detectRuns, openRun } from '../detect.ts';
import { findRunFindings } from './find.ts';

const script = resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'framework_dumps.py');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-nemo-findings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function mismatches(folder: string, plant: number[]) {
  const out = join(tmp, folder);
  await promisify(execFile)('/usr/bin/python3', [script, 'write-nemo-mismatch', out, ...plant.map(String)]);
  const files = nodeRunFiles(out);
  const { runs } = await detectRuns(files);
  expect(runs.map((r) => r.format)).toEqual(['nemo-rl']);
  const { findings } = await findRunFindings(await openRun(files, runs[0]!), { kinds: ['logprob_mismatch'] });
  return findings;
}

describe('logprob_mismatch on a NeMo-RL dump', () => {
  it("one token whose trainer log-prob is 2 nats off the sampler's: found at its step and row", async () => {
    const found = await mismatches('planted', [2, 4, 1]);
    expect(found.map((f) => ({ kind: f.kind, step: f.step, rows: f.rows }))).toEqual([
      { kind: 'logprob_mismatch', step: 2, rows: [4] },
    ]);
    expect(found[0]!.text).toMatch(/nats|ratio/);
  });

  it('sampler and trainer 0.01 nats apart everywhere: nothing found', async () => {
    // a step the dump does not have plants nothing
    expect(await mismatches('clean', [9, 0, 0])).toEqual([]);
  });
});
