import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../rl/config.ts';
import { autoDomain, latestSummary } from './chart-data.ts';
import { chartSpecs } from './chart-specs.ts';

const spec = (id: string) => chartSpecs.find((s) => s.id === id)!;

describe('charts that cannot move say why', () => {
  it('KL is off at beta = 0 and charted at beta > 0', () => {
    expect(spec('kl').constantWhen!({ ...defaultConfig, beta: 0 })).toMatch(/^KL is off: beta = 0/);
    expect(spec('kl').constantWhen!({ ...defaultConfig, beta: 0.04 })).toBeNull();
  });

  it('clip fraction, ratio and ESS are constant only when updates are on-policy', () => {
    for (const id of ['clip', 'ratio', 'ess']) {
      expect(spec(id).constantWhen!({ ...defaultConfig, num_iterations: 1, minibatches: 1 })).toMatch(
        /on-policy \(num_iterations = 1, minibatches = 1\)/,
      );
      expect(spec(id).constantWhen!({ ...defaultConfig, num_iterations: 2, minibatches: 1 })).toBeNull();
      expect(spec(id).constantWhen!({ ...defaultConfig, num_iterations: 1, minibatches: 4 })).toBeNull();
    }
    expect(spec('reward').constantWhen).toBeUndefined();
  });

  it('fractions have a 0–1 axis', () => {
    for (const id of ['accuracy', 'zero_std', 'truncated', 'clip', 'ess']) expect(spec(id).yDomain).toEqual([0, 1]);
  });
});

describe('axes and summaries', () => {
  it('widens a flat series so ticks differ (a ratio of 1 ± rounding)', () => {
    const rows = [1, 1.0000001, 0.9999999].map((r, i) => ({ step: i + 1, 'ratio/mean': r }));
    const d = autoDomain(rows, ['ratio/mean'])!;
    expect(d[0]).toBeCloseTo(0.98, 10);
    expect(d[1]).toBeCloseTo(1.02, 10);
    expect(
      autoDomain(
        [
          { step: 1, kl: -3e-9 },
          { step: 2, kl: -5.5e-9 },
        ],
        ['kl'],
      ),
    ).toEqual([-0.001, 0.001]);
  });

  it('leaves a series that moves to the chart library, and ignores missing values', () => {
    expect(
      autoDomain(
        [
          { step: 1, r: 0.1 },
          { step: 2, r: 0.6 },
        ],
        ['r'],
      ),
    ).toBeUndefined();
    expect(autoDomain([{ step: 1, r: null }], ['r'])).toBeUndefined();
  });

  it('summarises the latest values of every series', () => {
    const metrics = [
      { step: 1, reward: 0.1, 'rewards/correctness/mean': 0.05 },
      { step: 2, reward: 0.41, 'rewards/correctness/mean': 0.375 },
    ];
    expect(
      latestSummary(metrics, [
        { key: 'reward', label: 'total' },
        { key: 'rewards/correctness/mean', label: 'correctness' },
      ]),
    ).toBe('latest (step 2): total 0.4100, correctness 0.3750');
    expect(latestSummary([], [{ key: 'reward', label: 'total' }])).toBe('no steps yet');
    // The row's own step number (updates done), never one more: the header and the CSV say the same.
    expect(latestSummary([{ step: 7, reward: 0.5 }], [{ key: 'reward', label: 'total' }])).toBe(
      'latest (step 7): total 0.5000',
    );
  });
});
