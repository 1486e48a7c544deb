import { describe, expect, it } from 'vitest';
import { metricsCsv, metricsJsonl } from './exporters.ts';
import type { StepMetrics } from '../../../workers/protocol.ts';

// Steps count updates done: the first update is step 1, step 0 is the base policy.
const metrics: StepMetrics[] = [
  { step: 1, reward: 0.5, 'clip_ratio/low_mean': 0 },
  { step: 2, reward: 0.75, 'clip_ratio/low_mean': 0.1, extra: 2 },
];
const evals = [
  { step: 0, pass_at_k: { '1': 0.2, '8': 0.6 } },
  { step: 2, pass_at_k: { '1': 0.3, '8': 0.7 } },
];

describe('exports', () => {
  it('CSV: row 0 is the base evaluation, then one row per step with the evaluation measured after it', () => {
    const lines = metricsCsv(metrics, evals).trim().split('\n');
    // Columns: step, the metric table's keys in its order (src/rl/metrics.ts), then other keys sorted.
    expect(lines[0]).toBe('step,reward,clip_ratio/low_mean,extra,eval/pass@1,eval/pass@8');
    expect(lines[1]).toBe('0,,,,0.2,0.6');
    expect(lines[2]).toBe('1,0.5,0,,,');
    expect(lines[3]).toBe('2,0.75,0.1,2,0.3,0.7');
    expect(lines).toHaveLength(4);
  });

  it('JSONL: the same lines rlvr train writes (the base evaluation first, as step 0)', () => {
    const objs = metricsJsonl(metrics, evals)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objs[0]).toEqual({ step: 0, eval: { '1': 0.2, '8': 0.6 } });
    expect(objs[1]).toEqual({ step: 1, reward: 0.5, 'clip_ratio/low_mean': 0 });
    expect(objs[2]).toMatchObject({ step: 2, eval: { '1': 0.3 } });
    expect(objs).toHaveLength(3);
  });
});
