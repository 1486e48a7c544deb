/**
 * `length_blowup`: the mean completion length of a step at least RATIO times its early level (the mean
 * over the first EARLY_FRACTION of steps) and at least MIN_GROWTH tokens (or 4x as many characters)
 * above it, for at least SUSTAIN steps in a row (docs/findings.md).
 */
import { earlyCount, fmt, mean, stepsText } from './numbers.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

export const RATIO = 2;
export const EARLY_FRACTION = 0.1;
export const MIN_GROWTH = 20;
export const SUSTAIN = 2;

interface StepMeasure {
  unit: 'tokens' | 'chars';
  rows: number[];
  lengths: number[];
}

export const lengthBlowup: FindingRule<StepMeasure> = {
  kind: 'length_blowup',
  measure(step) {
    const m: StepMeasure = { unit: 'tokens', rows: [], lengths: [] };
    for (const g of step.groups)
      for (const c of g.completions) {
        m.rows.push(c.row);
        m.lengths.push(c.length);
        if (c.lengthUnit === 'chars') m.unit = 'chars';
      }
    return m;
  },
  judge(measured, { name }) {
    const withRows = measured.filter((s) => s.value.rows.length > 0);
    if (withRows.length < SUSTAIN + 1) return [];
    const early = mean(withRows.slice(0, earlyCount(withRows.length, EARLY_FRACTION)).flatMap((s) => s.value.lengths));
    if (!(early > 0)) return [];
    const unit = withRows.some((s) => s.value.unit === 'chars') ? 'chars' : 'tokens';
    const growth = unit === 'chars' ? MIN_GROWTH * 4 : MIN_GROWTH;
    const out: Finding[] = [];
    let stretch: { step: number; mean: number; measure: StepMeasure }[] = [];
    const close = () => {
      if (stretch.length >= SUSTAIN) {
        const first = stretch[0]!;
        const last = stretch[stretch.length - 1]!;
        const peak = Math.max(...stretch.map((s) => s.mean));
        const long = first.measure.rows.filter((_, i) => first.measure.lengths[i]! >= RATIO * early);
        out.push({
          run: name,
          kind: 'length_blowup',
          step: first.step,
          steps: [first.step, last.step],
          group: null,
          rows: long.slice(0, MAX_FINDING_ROWS),
          score: Math.min(1, peak / early / (2 * RATIO)),
          text:
            `Mean completion length rose to ${fmt(peak)} ${unit} in ${stepsText(first.step, last.step)}, ` +
            `${fmt(peak / early)}x its early level of ${fmt(early)} (flagged at >= ${RATIO}x and >= ${growth} ` +
            `${unit} more, for ${SUSTAIN}+ steps in a row): check for rambling or a length-rewarding bias.`,
        });
      }
      stretch = [];
    };
    for (const { step, value } of withRows) {
      const m = mean(value.lengths);
      if (m >= RATIO * early && m - early >= growth) stretch.push({ step, mean: m, measure: value });
      else close();
    }
    close();
    return out;
  },
};
