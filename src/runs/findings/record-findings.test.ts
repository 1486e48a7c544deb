/**
 * `logprob_mismatch` on run records: a shipped recording, and one the Python recorder wrote
 * (e2e/fixtures/recorder-1proc.rlvr.gz), re-encoded by the record writer (src/record/writer.ts) with one
 * completion's trainer log-probs moved, are found at that step and row; records whose trainer log-probs
 * legitimately moved after updates (the playground's 2 minibatches x 2 passes, src/rl/trainer.ts records the
 * last pass; TRL's num_iterations 2, e2e/fixtures/recorder-2proc.rlvr.gz) give none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeRunRecord, encodeRunRecord } from '../../record/run-record.ts';
import { openRun } from '../detect.ts';
import { memoryRunFiles } from '../memory-files.ts';
import { findRunFindings } from './find.ts';
import { TOKEN_NATS } from './logprob-mismatch.ts';

const records = join(__dirname, '..', '..', '..', 'public', 'records');
/** Records the Python recorder wrote (python/rlvr_playground/trainer.py RecordingGRPOTrainer; e2e/fixtures). */
const pythonRecords = join(__dirname, '..', '..', '..', 'e2e', 'fixtures');
const openRecord = (bytes: Uint8Array) =>
  openRun(memoryRunFiles('r', { 'run.rlvr.gz': bytes }), { path: 'run.rlvr.gz', name: 'run', format: 'record' });

describe('logprob_mismatch on run records', () => {
  it('a record written with one completion mismatched: found at its step and row, and nowhere else', async () => {
    const decoded = await decodeRunRecord(readFileSync(join(records, 'sat-grpo-30.rlvr.gz')));
    if (!decoded.ok) throw new Error(decoded.error);
    const record = decoded.record;
    expect(record.config.num_iterations).toBe(1);
    expect(record.config.minibatches).toBe(1);
    const batch = record.rollouts[1]!;
    const rollout = batch.records[5]!;
    rollout.newLogp = rollout.newLogp.map((x, i) => (i === 2 ? x - 2 * TOKEN_NATS : x));
    const run = await openRecord(await encodeRunRecord(record));
    const { findings } = await findRunFindings(run, { kinds: ['logprob_mismatch'] });
    expect(findings.map((f) => ({ step: f.step, rows: f.rows }))).toEqual([{ step: batch.step, rows: [5] }]);
    expect(findings[0]!.text).toContain('1 of 64 completions');
  });

  it('a record whose later minibatches and passes moved the trainer log-probs: not compared, none found', async () => {
    const bytes = readFileSync(join(records, 'lessons/zero-loss/seed-1/_=_2_2_minibatches.rlvr.gz'));
    const run = await openRecord(bytes);
    // The trainer's log-probs did move after the first update (what a naive comparison would flag).
    const step = await run.readStep(run.index.steps[1]!);
    const rows = step.groups.flatMap((g) => g.completions);
    const moved = rows.filter((c) => c.tokens!.newLogprobs!.some((x, i) => Math.abs(x - c.tokens!.logprobs![i]!) > 0));
    expect(moved.length).toBeGreaterThan(0);
    expect(rows.every((c) => c.tokens!.newLogprobsBeforeUpdate === false)).toBe(true);
    const { findings } = await findRunFindings(run, { kinds: ['logprob_mismatch'] });
    expect(findings).toEqual([]);
  });

  it("the Python recorder's record (one pass): agrees exactly; with one token planted, found at that row", async () => {
    const bytes = readFileSync(join(pythonRecords, 'recorder-1proc.rlvr.gz'));
    expect((await findRunFindings(await openRecord(bytes), { kinds: ['logprob_mismatch'] })).findings).toEqual([]);
    const decoded = await decodeRunRecord(bytes);
    if (!decoded.ok) throw new Error(decoded.error);
    expect(decoded.record.provenance.writer).toBe('trl RecordingGRPOTrainer');
    const batch = decoded.record.rollouts[2]!;
    batch.records[3]!.newLogp[1]! += 3 * TOKEN_NATS;
    const run = await openRecord(await encodeRunRecord(decoded.record));
    const { findings } = await findRunFindings(run, { kinds: ['logprob_mismatch'] });
    expect(findings.map((f) => ({ step: f.step, rows: f.rows }))).toEqual([{ step: batch.step, rows: [3] }]);
  });

  it("the Python recorder's record of two passes per batch (num_iterations 2): moved, none found", async () => {
    const run = await openRecord(readFileSync(join(pythonRecords, 'recorder-2proc.rlvr.gz')));
    const rows = (await run.readStep(run.index.steps[0]!)).groups.flatMap((g) => g.completions);
    const largest = Math.max(
      ...rows.flatMap((c) => c.tokens!.newLogprobs!.map((x, i) => Math.abs(x - c.tokens!.logprobs![i]!))),
    );
    expect(largest).toBeGreaterThan(TOKEN_NATS); // what a comparison that ignored the updates would flag
    expect((await findRunFindings(run, { kinds: ['logprob_mismatch'] })).findings).toEqual([]);
  });
});
