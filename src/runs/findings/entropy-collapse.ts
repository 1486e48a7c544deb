/**
 * `entropy_collapse`: the policy's entropy, from the logged curves (a metric named like "entropy", not a
 * coefficient or target) or, where none is logged, each step's mean per-token entropy (TokenChannels.entropy),
 * falls below FLOOR of its early level (the mean of its first EARLY_FRACTION of points) and stays there
 * for SUSTAIN points in a row (docs/findings.md).
 */
import { nearestStep } from '../nearest-step.ts';
import { earlyCount, fmt, mean, pct, stepsText } from './numbers.ts';
import type { FindingRule } from './types.ts';

export const FLOOR = 0.2;
export const EARLY_FRACTION = 0.1;
export const SUSTAIN = 2;
export const MIN_POINTS = 4;

const entropyMetric = (key: string) => /entropy/i.test(key) && !/coef|target|bonus|loss|std|min|max/i.test(key);

interface StepMeasure {
  /** Mean per-token entropy of the step's completions, NaN where none carries entropy. */
  tokenEntropy: number;
}

export const entropyCollapse: FindingRule<StepMeasure> = {
  kind: 'entropy_collapse',
  measure(step) {
    let sum = 0;
    let n = 0;
    for (const g of step.groups)
      for (const c of g.completions)
        for (const e of c.tokens?.entropy ?? [])
          if (Number.isFinite(e)) {
            sum += e;
            n++;
          }
    return { tokenEntropy: n ? sum / n : Number.NaN };
  },
  judge(measured, { name, index }) {
    const counts = new Map<string, number>();
    for (const p of index.metrics)
      for (const [k, v] of Object.entries(p.values))
        if (entropyMetric(k) && Number.isFinite(v)) counts.set(k, (counts.get(k) ?? 0) + 1);
    const key = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
    const series = key
      ? index.metrics
          .filter((p) => Number.isFinite(p.values[key]))
          .map((p) => ({ step: p.step, value: p.values[key]! }))
      : measured
          .filter((s) => Number.isFinite(s.value.tokenEntropy))
          .map((s) => ({ step: s.step, value: s.value.tokenEntropy }));
    const source = key ? `the logged "${key}"` : 'the mean per-token entropy';
    if (series.length < MIN_POINTS) return [];
    const early = mean(series.slice(0, earlyCount(series.length, EARLY_FRACTION)).map((p) => p.value));
    if (!(early > 0)) return [];
    let run: { step: number; value: number }[] = [];
    let best: typeof run = [];
    for (const p of series) {
      if (p.value < FLOOR * early) run.push(p);
      else run = [];
      if (run.length > best.length) best = [...run];
    }
    if (best.length < SUSTAIN) return [];
    const first = best[0]!;
    const last = best[best.length - 1]!;
    const low = Math.min(...best.map((p) => p.value));
    const open = nearestStep(index.steps, first.step) ?? first.step;
    return [
      {
        run: name,
        kind: 'entropy_collapse',
        step: open,
        steps: [first.step, last.step],
        group: null,
        rows: [],
        score: Math.min(1, 1 - low / early),
        text:
          `Entropy collapsed: ${source} fell to ${fmt(low)} in ${stepsText(first.step, last.step)}, ` +
          `${pct(low / early)} of its early level ${fmt(early)} (flagged below ${pct(FLOOR)} for ${SUSTAIN}+ ` +
          `points): the policy has stopped exploring; raise the temperature or the entropy bonus, or use clip-higher.`,
      },
    ];
  },
};
