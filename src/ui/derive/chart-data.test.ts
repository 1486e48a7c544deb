import { describe, expect, it } from 'vitest';
import { chartRows, compactHistory, downsample, emptyChartText, smooth } from './chart-data.ts';

describe('chart data', () => {
  it('smooths without bias at the start and passes raw values at weight 0', () => {
    expect(smooth([1, 1, 1], 0.9)).toEqual([1, 1, 1].map(() => expect.closeTo(1, 10)));
    expect(smooth([1, 2, 3], 0)).toEqual([1, 2, 3]);
    expect(smooth([1, null, 3], 0.5)[1]).toBeNull();
  });

  it('downsamples to at most max rows, keeping the last step', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ step: i + 1, x: i }));
    const d = downsample(rows, 300);
    expect(d.length).toBeLessThanOrEqual(300);
    expect(d[d.length - 1]!.step).toBe(1000);
  });

  it('builds rows with smoothed and raw columns', () => {
    const r = chartRows(
      [
        { step: 1, reward: 1 },
        { step: 2, reward: 0 },
      ],
      ['reward'],
      0,
    );
    expect(r).toEqual([
      { step: 1, reward: 1, 'reward~raw': 1 },
      { step: 2, reward: 0, 'reward~raw': 0 },
    ]);
  });

  it('keeps a 100,000-step history bounded, recent steps exact and averages weighted by the steps merged', () => {
    let rows: { step: number; reward: number; merged_steps?: number }[] = [];
    let sum = 0;
    for (let step = 0; step < 100_000; step++) {
      const reward = Math.sin(step) + step / 1000;
      sum += reward;
      rows.push({ step, reward });
      rows = compactHistory(rows, 1000);
      expect(rows.length).toBeLessThanOrEqual(1000);
    }
    // The most recent 500 steps are kept one row each, untouched.
    const recent = rows.slice(-500);
    expect(recent.map((r) => r.step)).toEqual(Array.from({ length: 500 }, (_, i) => 99_500 + i));
    expect(recent[499]!.reward).toBe(Math.sin(99_999) + 99.999);
    // Steps stay increasing, every step is accounted for once, and the merged means keep the total.
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.step).toBeGreaterThan(rows[i - 1]!.step);
    const steps = rows.reduce((a, r) => a + (r.merged_steps ?? 1), 0);
    expect(steps).toBe(100_000);
    const total = rows.reduce((a, r) => a + r.reward * (r.merged_steps ?? 1), 0);
    expect(total).toBeCloseTo(sum, 3);
  });

  it('leaves short histories alone', () => {
    const rows = [
      { step: 0, x: 1 },
      { step: 1, x: 2 },
    ];
    expect(compactHistory(rows, 10)).toBe(rows);
  });
});

describe("an empty chart's words", () => {
  it(
    'says no steps before any, nothing while values ' +
      'wait to be drawn, and that the runs lack a metric ' +
      'they lack',
    () => {
      expect(emptyChartText([{ metrics: [] }, { metrics: [] }], 'kl')).toBe('no steps yet');
      expect(emptyChartText([{ metrics: [{ kl: 0.1 }] }, { metrics: [] }], 'kl')).toBe('');
      expect(emptyChartText([{ metrics: [{ reward: 1 }] }, { metrics: [{ reward: 0 }] }], 'kl')).toBe(
        'these runs have no values of it',
      );
    },
  );
});
