import { describe, expect, it } from 'vitest';
import { metricsCsv, metricsJsonl } from './exporters.ts';
import type { StepMetrics } from '../../workers/protocol.ts';


const metrics: StepMetrics[] = [
  { step: 0, reward: 0.5, 'clip_ratio/low_mean': 0 },
  { step: 1, reward: 0.75, 'clip_ratio/low_mean': 0.1, extra: 2 },
];
const evals = [
  { step: 0, pass_at_k: { '1': 0.2, '8': 0.6 } },
  { step: 2, pass_at_k: { '1': 0.3, '8': 0.7 } },
];

describe('exports', () => {
  it('CSV: one row per step, union of columns, evaluations on the step after which they ran', () => {
    const lines = metricsCsv(metrics, evals).trim().split('\n');
    expect(lines[0]).toBe('step,clip_ratio/low_mean,extra,reward,eval/pass@1,eval/pass@8');
    expect(lines[1]).toBe('0,0,,0.5,,');
    expect(lines[2]).toBe('1,0.1,2,0.75,0.3,0.7');
  });

  it('JSONL: the same lines rlvr train writes (base evaluation first as step -1)', () => {
    const objs = metricsJsonl(metrics, evals).trim().split('\n').map((l) => JSON.parse(l));
    expect(objs[0]).toEqual({ step: -1, eval: { '1': 0.2, '8': 0.6 } });
    expect(objs[2]).toMatchObject({ step: 1, eval: { '1': 0.3 } });
    expect(objs).toHaveLength(3);
  });
});
