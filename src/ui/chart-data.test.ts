import { describe, expect, it } from 'vitest';
import { chartRows, downsample, smooth } from './chart-data.ts';

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
    const r = chartRows([{ step: 0, reward: 1 }, { step: 1, reward: 0 }], ['reward'], 0);
    expect(r).toEqual([
      { step: 1, reward: 1, 'reward~raw': 1 },
      { step: 2, reward: 0, 'reward~raw': 0 },
    ]);
  });
});
