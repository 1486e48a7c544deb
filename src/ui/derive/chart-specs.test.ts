import { describe, expect, it } from 'vitest';
import { isMetricKey, metricKeys } from '../../rl/metrics.ts';
import { chartSpecs, type ChartSpec } from './chart-specs.ts';

// Type-level check, run by `tsc -b` (tsconfig.tests.json): a chart naming a key the metric table
// lacks is a compile error. If the line below ever compiles, tsc reports the unused directive.
const mistyped: ChartSpec = {
  id: 'typo',
  title: 'Typo',
  // @ts-expect-error 'rewrad' is not a metric key
  lines: [{ key: 'rewrad', label: 'total' }],
};

describe('chart specs draw metrics from the one metric table', () => {
  it('every line and info key is a key of the metric table', () => {
    const keys = chartSpecs.flatMap((s) => [...s.lines.map((l) => l.key), ...(s.info ? [s.info] : [])]);
    expect(keys.filter((k) => !isMetricKey(k))).toEqual([]);
    expect(keys.every((k) => (metricKeys as string[]).includes(k))).toBe(true);
  });

  it('the metric-key guard refuses a mistyped key (what a hand-written chart or a record would carry)', () => {
    expect(isMetricKey(mistyped.lines[0]!.key)).toBe(false);
    expect(isMetricKey('rewards/format/mean')).toBe(true);
    expect(isMetricKey('__proto__')).toBe(false);
  });
});
