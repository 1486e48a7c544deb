// Chart captions: on a record TRL made (e2e/fixtures/trl-arithmetic-2steps.rlvr.gz,
// written by train_grpo.py's record writer under real TRL) a metric TRL does not log (the length bias)
// says it is not in this record instead of printing "undefined"; a caption prints the value the plot
// draws at the latest step, says when it is smoothed, and gives the measured value beside it.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunRecord } from '../../record/run-record.ts';
import { captionValue, chartRows, chartSummary, fmt, latestValue } from './chart-data.ts';
import { chartSpecs } from './chart-specs.ts';

const root = resolve(import.meta.dirname, '..', '..', '..');
const fixture = join(root, 'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz');

async function trlMetrics(): Promise<Record<string, number>[]> {
  const { record } = await readRunRecord(new Uint8Array(readFileSync(fixture)));
  return record.steps.map((s) => s.metrics as Record<string, number>);
}

describe('chart captions', () => {
  it('never print "undefined" or "NaN" on a TRL-made record; a metric it lacks is "not in this record"', async () => {
    const metrics = await trlMetrics();
    expect(metrics.length).toBe(2);
    for (const smoothing of [0, 0.6]) {
      for (const spec of chartSpecs) {
        const caption = captionValue(latestValue(metrics, spec.lines[0]!.key, smoothing));
        const summary = chartSummary(metrics, spec.lines, smoothing);
        expect(`${caption} ${summary}`, spec.id).not.toMatch(/undefined|NaN/);
        expect(summary, spec.id).toMatch(/^latest \(step 2\)/);
      }
    }
    const lengthBias = [{ key: 'length_bias/push_ratio', label: 'ratio' }];
    expect(captionValue(latestValue(metrics, 'length_bias/push_ratio', 0.6))).toBe('not in this record');
    expect(chartSummary(metrics, lengthBias, 0.6)).toBe('latest (step 2): not in this record: the run did not log it');
    expect(captionValue(latestValue(metrics, 'length_bias/push_ratio', 0.6), 'run')).toBe('not in this run');
  });

  it('prints the value the plot draws at the latest step, says it is smoothed, and gives the measured one', () => {
    // Reward std as TRL logged it: a tiny last value under a smoothed curve that is not tiny.
    const metrics = [0.2, 0.15, 0.11, 7.451e-9].map((v, i) => ({ step: i + 1, reward_std: v }));
    const drawn = chartRows(metrics, ['reward_std'], 0.6).at(-1)!.reward_std!;
    expect(drawn).toBeGreaterThan(0.01);
    const v = latestValue(metrics, 'reward_std', 0.6);
    expect(v).toEqual({ step: 4, drawn, measured: 7.451e-9, smoothed: true });
    expect(captionValue(v)).toBe(`${fmt(drawn)} smoothed (measured 7.451e-9)`);
    expect(chartSummary(metrics, [{ key: 'reward_std', label: 'std' }], 0.6)).toBe(
      `latest (step 4), smoothed with weight 0.6: std ${fmt(drawn)} (measured 7.451e-9)`,
    );
    // Without smoothing the plot draws the measured value, and the caption says only that.
    expect(captionValue(latestValue(metrics, 'reward_std', 0))).toBe('7.451e-9');
    expect(chartSummary(metrics, [{ key: 'reward_std', label: 'std' }], 0)).toBe('latest (step 4): std 7.451e-9');
  });

  it('names the latest step even when a line has no value there, and says which', () => {
    const metrics = [{ step: 1, x: 0.5 }, { step: 2 }] as Record<string, number>[];
    expect(captionValue(latestValue(metrics, 'x', 0.6))).toBe('no value at step 2');
    expect(chartSummary(metrics, [{ key: 'x', label: 'x' }], 0.6)).toBe('latest (step 2): no value at this step');
    expect(chartSummary([], [{ key: 'x', label: 'x' }], 0.6)).toBe('no steps yet');
  });

  it('a long run: the plot, downsampled, draws the latest step itself, the value the caption prints', () => {
    const metrics = Array.from({ length: 1000 }, (_, i) => ({ step: i + 1, reward: Math.sin(i) }));
    for (const smoothing of [0, 0.6]) {
      const rows = chartRows(metrics, ['reward'], smoothing);
      expect(rows.length).toBeLessThanOrEqual(300);
      const v = latestValue(metrics, 'reward', smoothing);
      expect(v && 'drawn' in v).toBe(true);
      expect(rows.at(-1)).toMatchObject({ step: 1000, reward: (v as { drawn: number }).drawn });
      expect(rows.at(-1)!['reward~raw']).toBe(Math.sin(999));
    }
  });
});
