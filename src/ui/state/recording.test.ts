import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRunRecord, type RunRecord } from '../../record/run-record.ts';
import { compareWithLive, recordedStepRollouts, scrubBy, scrubTo, showLive, showRecord } from './recording.ts';
import { getState, patch, setState } from './store.ts';

// The shipped demo record (written by `rlvr train --record`, scripts/record-lessons.sh), decoded by the real reader.
let record: RunRecord;
beforeAll(async () => {
  const r = await decodeRunRecord(
    new Uint8Array(readFileSync(join(__dirname, '../../../public/records/sat-grpo-30.rlvr.gz'))),
  );
  if (!r.ok) throw new Error(r.error);
  record = r.record;
});

describe('a recording in the store', () => {
  it('opens on its last step, feeds the views from the record and leaves the live run alone', () => {
    const liveMetrics = getState().run.metrics;
    patch('inspector', { step: 7, channel: 'kl' }); // the live inspector's state, given back later
    showRecord('demo', record);
    const s = getState();
    expect(s.recording!.series.step).toBe(30);
    expect(s.recording!.series.metrics).toHaveLength(30);
    expect(s.recording!.series.evals.map((e) => e.step)).toEqual([0, 10, 20, 30]);
    expect(s.inspector.data!.step).toBe(30);
    expect(s.inspector.data!.records).toBe(record.rollouts.find((r) => r.step === 30)!.records);
    expect(s.inspector.data!.settings.loss_type).toBe(record.config.loss_type);
    expect(s.run.metrics).toBe(liveMetrics);
  });

  it('the scrubber moves the charts, the histogram and the inspector to a step; an open completion stays open', () => {
    scrubTo(1);
    let s = getState();
    expect(s.recording!.series.metrics.map((m) => m.step)).toEqual([1]);
    expect(s.recording!.series.evals.map((e) => e.step)).toEqual([0]);
    expect(s.recording!.histogram).toEqual(record.steps.find((x) => x.step === 1)!.advantage_histogram ?? null);
    expect(s.inspector.data!.step).toBe(1);
    patch('inspector', { open: { group: 1, index: 2 }, token: 3 });
    scrubBy(1);
    s = getState();
    expect(s.recording!.series.step).toBe(2);
    expect(s.inspector.data!.step).toBe(2);
    expect(s.inspector.open).toEqual({ group: 1, index: 2 });
    expect(s.inspector.token).toBe(3);
    // Step 0 (the base) has no rollouts: the inspector stays on the first recorded step.
    scrubTo(0);
    s = getState();
    expect(s.recording!.series.metrics).toEqual([]);
    expect(s.inspector.step).toBe(1);
    scrubBy(-1);
    expect(getState().recording!.series.step).toBe(0);
    // A step the record does not have goes to the nearest one below it.
    scrubTo(999);
    expect(getState().recording!.series.step).toBe(30);
  });

  it('recordedStepRollouts: a recorded step in the inspector shape, null for one without rollouts', () => {
    expect(recordedStepRollouts(record, 5)!.records).toHaveLength(
      record.config.prompts_per_step * record.config.num_generations,
    );
    expect(recordedStepRollouts(record, 0)).toBeNull();
  });

  it('back to the live run gives the live inspector back; Compare takes the recording as C', () => {
    showLive();
    expect(getState().recording!.showing).toBe(false);
    expect(getState().inspector.step).toBe(7);
    expect(getState().inspector.channel).toBe('kl');
    setState({ view: 'charts' });
    compareWithLive();
    const s = getState();
    expect(s.view).toBe('compare');
    expect(s.compare.c!.state).toBe('recorded');
    expect(s.compare.c!.metrics).toHaveLength(30);
    expect(s.compare.c!.config!.seed).toBe(record.config.seed);
    expect(s.setup.draft.task).toBe(record.config.task);
    expect(s.setup.draft.edits.seed).toBe(String(record.config.seed));
  });
});
