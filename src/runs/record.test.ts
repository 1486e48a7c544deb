// The playground's own run record through the run readers: a shipped lesson record (written by
// `rlvr lesson run`, public/records/) opens as a `record` run whose steps, rows, token channels and curves
// are the record's as decodeRunRecord reads them.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRunFiles } from '../node/run-files.ts';
import { decodeRunRecord } from '../record/run-record.ts';
import { gunzipSync } from 'node:zlib';
import { detectRuns, openRun } from './detect.ts';
import { memoryRunFiles } from './memory-files.ts';

const folder = resolve(
  import.meta.dirname,
  '..',
  '..',
  'public',
  'records',
  'lessons',
  'length-normalisation',
  'seed-33',
);

describe('a run record', () => {
  it('opens with its rollouts, per-token channels and step metrics', async () => {
    const decoded = await decodeRunRecord(new Uint8Array(readFileSync(join(folder, 'GRPO.rlvr.gz'))));
    if (!decoded.ok) throw new Error(decoded.error);
    const record = decoded.record;
    const files = nodeRunFiles(folder);
    const found = await detectRuns(files);
    expect(found.problems).toEqual([]);
    const entry = found.runs.find((r) => r.path === 'GRPO.rlvr.gz')!;
    expect(entry).toEqual({ path: 'GRPO.rlvr.gz', name: 'GRPO.rlvr.gz', format: 'record' });
    const run = await openRun(files, entry);
    expect(run.index.problems).toEqual([]);
    expect(run.index.steps).toEqual(record.rollouts.map((r) => r.step));
    expect(run.index.metrics.map((m) => m.step)).toEqual(record.steps.map((s) => s.step));
    expect(run.index.metrics[0]!.values.reward_mean).toBe(record.steps[0]!.metrics.reward_mean);
    expect(run.index.notes.join(' ')).toMatch(/^Written by rlvr lesson run/);
    const first = record.rollouts[0]!;
    const step = await run.readStep(first.step);
    const rows = step.groups.flatMap((g) => g.completions);
    expect(rows.map((c) => c.completion)).toEqual(first.records.map((r) => r.completion));
    expect(rows.map((c) => c.reward)).toEqual(first.records.map((r) => r.reward));
    expect(rows.map((c) => c.advantage)).toEqual(first.records.map((r) => r.advantage));
    const r0 = first.records[0]!;
    expect(rows[0]!.tokens).toMatchObject({
      text: r0.tokenText,
      ids: r0.tokens,
      logprobs: r0.oldLogp,
      newLogprobs: r0.newLogp,
      ratio: r0.ratio,
      clipped: r0.clipped,
      entropy: r0.entropy,
    });
    expect(rows[0]).toMatchObject({ length: r0.tokens.length, lengthUnit: 'tokens', truncated: r0.truncated });
    // Groups: the record's groups, in order.
    expect(step.groups.map((g) => g.completions.length)).toEqual(
      [...new Set(first.records.map((r) => r.group))].map((g) => first.records.filter((r) => r.group === g).length),
    );
    const all = await run.search({});
    expect(all.count).toBe(record.rollouts.reduce((n, r) => n + r.records.length, 0));
  });

  it("a TRL record's rows list no playground-only field it never had (hint, hinted, flipped)", async () => {
    // Written by real TRL through the recorder (scripts/trl-record-fixture.sh): no hints, no noisy verifier.
    const fixtures = resolve(import.meta.dirname, '..', '..', 'e2e', 'fixtures');
    const files = nodeRunFiles(fixtures);
    const run = await openRun(files, { path: 'trl-arithmetic-2steps.rlvr.gz', name: 'trl', format: 'record' });
    const rows = (await run.readStep(run.index.steps[0]!)).groups.flatMap((g) => g.completions);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(Object.keys(r.extra)).not.toContain('hint');
      expect(Object.keys(r.extra)).not.toContain('hinted');
      expect(Object.keys(r.extra)).not.toContain('flipped');
      expect(r.extra).toHaveProperty('correct');
    }
  });

  it('opens a record served unpacked (Content-Encoding: gzip) by the decode the page uses', async () => {
    // src/record/record-file.ts: the one decode of a record file's bytes, shared with the page's recordings.
    const unpacked = new Uint8Array(gunzipSync(readFileSync(join(folder, 'GRPO.rlvr.gz'))));
    const files = memoryRunFiles('served', { 'GRPO.rlvr.gz': unpacked });
    const run = await openRun(files, { path: 'GRPO.rlvr.gz', name: 'GRPO.rlvr.gz', format: 'record' });
    expect(run.index.problems).toEqual([]);
    expect(run.index.steps.length).toBeGreaterThan(0);
  });
});
