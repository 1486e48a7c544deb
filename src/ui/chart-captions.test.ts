// Chart captions on a record TRL made (e2e/fixtures/trl-arithmetic-2steps.rlvr.gz, written by
// train_grpo.py's record writer under real TRL): a metric TRL does not log (the length bias) gives no
// caption instead of "undefined", and a caption shows the value the plot draws, saying when it is smoothed.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunRecord } from '../rl/run-record.ts';
import { chartRows, fmt, plottedCaption, plottedSummary } from './chart-data.ts';
import { chartSpecs } from './components/charts/specs.ts';

const root = resolve(import.meta.dirname, '..', '..');

async function trlMetrics(): Promise<Record<string, number>[]> {
  const { record } = await readRunRecord(new Uint8Array(readFileSync(join(root, 'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz'))));
  return record.steps.map((s) => s.metrics as Record<string, number>);
}

describe('chart captions', () => {
  it('never print "undefined" on a TRL-made record; a metric it lacks has no caption', async () => {
    const metrics = await trlMetrics();
    expect(metrics.length).toBeGreaterThan(0);
    for (const smoothing of [0, 0.6]) {
      for (const spec of chartSpecs) {
        const rows = chartRows(metrics, spec.lines.map((l) => l.key), smoothing);
        const caption = plottedCaption(rows, spec.lines[0]!.key, smoothing);
        const summary = plottedSummary(rows, spec.lines, smoothing);
        expect(`${caption} ${summary}`, spec.id).not.toMatch(/undefined|NaN/);
      }
    }
    const lengthBias = chartRows(metrics, ['length_bias/push_ratio'], 0.6);
    expect(plottedCaption(lengthBias, 'length_bias/push_ratio', 0.6)).toBeNull();
    expect(plottedSummary(lengthBias, [{ key: 'length_bias/push_ratio', label: 'ratio' }], 0.6)).toMatch(/^no values for this chart/);
  });

  it('shows the value the plot draws, and says when it is smoothed', () => {
    // Reward std from TRL: a tiny last value under a smoothed curve that is not tiny.
    const metrics = [0.2, 0.15, 0.11, 7.451e-9].map((v, i) => ({ step: i + 1, reward_std: v }));
    const rows = chartRows(metrics, ['reward_std'], 0.6);
    const drawn = rows.at(-1)!.reward_std!;
    expect(drawn).toBeGreaterThan(0.01);
    expect(plottedCaption(rows, 'reward_std', 0.6)).toBe(`${fmt(drawn)} smoothed (step 4 measured 7.451e-9)`);
    expect(plottedSummary(rows, [{ key: 'reward_std', label: 'std' }], 0.6)).toBe(`latest (step 4), smoothed with weight 0.6: std ${fmt(drawn)} (measured 7.451e-9)`);
    // Without smoothing the plot draws the measured value, and the caption says only that.
    const raw = chartRows(metrics, ['reward_std'], 0);
    expect(plottedCaption(raw, 'reward_std', 0)).toBe('7.451e-9');
    expect(plottedSummary(raw, [{ key: 'reward_std', label: 'std' }], 0)).toBe('latest (step 4): std 7.451e-9');
  });
});
