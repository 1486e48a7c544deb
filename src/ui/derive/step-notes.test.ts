// The notes the run viewer shows for a step and over a run's problems (step-notes.ts), on steps the real
// readers give: a step whose lines could not be read says so instead of "This run logged no advantages".
import { describe, expect, it } from 'vitest';
import { detectRuns, openRun } from '../../runs/detect.ts';
import { memoryRunFiles } from '../../runs/memory-files.ts';
import { inferScaling } from './run-view-model.ts';
import { problemSummary, runListStatus, stepScalingNote } from './step-notes.ts';

const line = (o: Record<string, unknown>) => JSON.stringify(o);
const files = memoryRunFiles('r', {
  'run.jsonl': [
    line({ step: 1, prompt: 'p', completion: 'a', rewards: { r: 1 } }),
    line({ step: 1, prompt: 'p', completion: 'b', rewards: { r: 0 } }),
    line({ step: 2, prompt: 'p', rewards: { r: 1 } }),
    line({ step: 2, prompt: 'p', rewards: { r: 0 } }),
    line({ step: 3, prompt: 'p', completion: 'a', rewards: { r: 1 } }),
    line({ step: 3, prompt: 'p', completion: 'b', rewards: 'none' }),
  ].join('\n'),
});
const open = () => openRun(files, { path: 'run.jsonl', name: 'r', format: 'jsonl' });

describe('the note above a step', () => {
  it('a step read whole that logged no advantages says the run logged none', async () => {
    const step = await (await open()).readStep(1);
    expect(stepScalingNote(step, inferScaling(step))).toBe(
      'This run logged no advantages: the derivation shows what GRPO (scale_rewards="group") would give.',
    );
  });

  it('a step none of whose lines could be read says so, naming its file and line, not "no advantages"', async () => {
    const step = await (await open()).readStep(2);
    const note = stepScalingNote(step, inferScaling(step));
    expect(note).toMatch(/^Step 2 could not be read: run\.jsonl line 3: "completion" is missing or not text; /);
    expect(note).toMatch(/\(and 1 more problems\)\.$/);
    expect(note).not.toMatch(/logged no advantages/);
  });

  it('a step read in part says so, with the count and the first file', async () => {
    const step = await (await open()).readStep(3);
    expect(stepScalingNote(step, inferScaling(step))).toMatch(
      /^Part of step 3 could not be read \(1 problem, the first in run\.jsonl\); the rows read logged no advantages/,
    );
  });
});

describe("the run's problems, unfolded", () => {
  it('the count and the first problem in full; nothing when there are none', () => {
    expect(problemSummary([], 'while opening')).toBeNull();
    expect(
      problemSummary(
        [
          { file: 'run.rlvr.gz', message: 'run.rlvr.gz: not a readable run record: it is not gzip-compressed' },
          { file: 'b.jsonl', line: 4, message: 'not JSON' },
        ],
        'while opening',
      ),
    ).toBe('2 problems while opening; the first: run.rlvr.gz: not a readable run record: it is not gzip-compressed');
    expect(problemSummary([{ file: 'b.jsonl', line: 4, message: 'not JSON' }], 'in step 2')).toBe(
      '1 problem in step 2; the first: b.jsonl, line 4: not JSON',
    );
  });
});

describe('the run list', () => {
  it('random bytes named run.rlvr.gz, opened, are listed with their problem, not as a healthy run', async () => {
    const junk = memoryRunFiles('f', { 'run.rlvr.gz': Uint8Array.from({ length: 64 }, (_, i) => (i * 31) % 256) });
    const found = (await detectRuns(junk)).runs[0]!;
    const index = (await openRun(junk, found)).index;
    const status = runListStatus({ error: null, loading: false, steps: index.steps.length, problems: index.problems });
    expect(status.bad).toBe(true);
    expect(status.text).toMatch(
      /^0 steps with rollouts; 1 problem found; the first: run\.rlvr\.gz: not a readable run record: it is not gzip/,
    );
  });

  it("a served run not yet opened shows runs.json's errors; a clean run only its steps", () => {
    const listed = { error: null, loading: false, steps: 2, problems: undefined };
    expect(runListStatus({ ...listed, listedErrors: ['a.parquet: not a readable parquet file'] })).toEqual({
      text: '2 steps with rollouts; 1 problem found; the first: a.parquet: not a readable parquet file',
      bad: true,
    });
    expect(runListStatus({ ...listed, listedErrors: [] })).toEqual({ text: '2 steps with rollouts', bad: false });
  });
});
