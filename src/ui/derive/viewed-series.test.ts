import { describe, expect, it } from 'vitest';
import type { RunIndex } from '../../runs/types.ts';
import { viewedSeries } from './viewed-series.ts';

const index = (metrics: RunIndex['metrics'], steps: number[] = []): RunIndex => ({
  name: 'trl-run',
  format: 'trl',
  steps,
  metrics,
  rewardNames: ['correctness'],
  problems: [],
  notes: [],
});

describe('a viewed run as the series Compare draws', () => {
  it('one row per logged step, values by their own names, non-finite ones left out; recorded, at its last step', () => {
    const s = viewedSeries(
      index([
        { step: 1, values: { reward: 0.25, kl: 0, 'completions/mean_length': 12 } },
        { step: 2, values: { reward: 0.5, kl: Number.NaN } },
      ]),
    );
    expect(s.metrics).toEqual([
      { step: 1, reward: 0.25, kl: 0, 'completions/mean_length': 12 },
      { step: 2, reward: 0.5 },
    ]);
    expect(s).toMatchObject({ state: 'recorded', step: 2, evals: [], error: null });
  });

  it('a run that logged no curves has no rows, at its last step with rollouts', () => {
    expect(viewedSeries(index([], [3, 7]))).toMatchObject({ metrics: [], step: 7 });
  });
});
