// `rlvr lesson run` writes one run record per arm and seed (the writer `rlvr train --record` uses).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getLesson } from '../lessons/index.ts';
import { readRunRecord } from '../record/run-record.ts';
import { lessonRecordPath, runSeed, seedCachePath } from './commands/lessons.ts';

describe('rlvr lesson run: run records', () => {
  it("one record per arm on a seed, holding that arm's config, metrics and rollouts", {
    timeout: 300_000,
  }, async () => {
    const lesson = getLesson('noisy-verifiers');
    const dir = mkdtempSync(join(tmpdir(), 'rlvr-lesson-record-'));
    const steps = 2;
    const result = await runSeed(lesson, steps, 4, (label) => join(dir, `${label}.rlvr.gz`));
    expect(result.runs.map((r) => r.label)).toEqual(lesson.runs.map((r) => r.label));
    for (const [i, arm] of lesson.runs.entries()) {
      const { record } = await readRunRecord(new Uint8Array(readFileSync(join(dir, `${arm.label}.rlvr.gz`))));
      expect(record.provenance).toMatchObject({
        writer: 'rlvr lesson run',
        lesson: { id: lesson.id, arm: arm.label, seed: 4 },
      });
      expect(record.config).toMatchObject({ ...arm.config, task: lesson.task, seed: 4 });
      expect(record.steps.map((s) => s.step)).toEqual([1, 2]);
      expect(record.rollouts.map((r) => r.step)).toEqual([1, 2]);
      // The lesson's measure comes from the same metrics the record holds.
      const m = lesson.measures[0]!.metric;
      expect(result.runs[i]!.values[m]).toBeCloseTo(record.steps.reduce((a, s) => a + s.metrics[m]!, 0) / steps, 12);
    }
  });

  it('by default the records lie next to the cached seed result, named by the arm', () => {
    const lesson = getLesson('noisy-verifiers');
    const p = lessonRecordPath(lesson, 150, 2, '20% flipped');
    expect(p).toBe(seedCachePath(lesson, 150, 2).replace(/\.json$/, '-20_flipped.rlvr.gz'));
  });
});
