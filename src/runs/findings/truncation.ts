/**
 * `truncation`: completions the writer marked as cut at the length limit (RunCompletion.truncated).
 * Flags a step whose truncated share is at least STEP_RATE and at least JUMP times the median share of
 * the steps before it (docs/findings.md).
 */
import { median, pct } from './numbers.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

export const STEP_RATE = 0.25;
export const JUMP = 2;

interface StepMeasure {
  completions: number;
  truncated: number[];
}

export const truncation: FindingRule<StepMeasure> = {
  kind: 'truncation',
  measure(step) {
    const m: StepMeasure = { completions: 0, truncated: [] };
    for (const g of step.groups)
      for (const c of g.completions) {
        m.completions++;
        if (c.truncated === true) m.truncated.push(c.row);
      }
    return m;
  },
  judge(measured, { name }) {
    const out: Finding[] = [];
    const rates: number[] = [];
    for (const { step, value: m } of measured) {
      const rate = m.completions ? m.truncated.length / m.completions : 0;
      const before = rates.length ? median(rates) : 0;
      const against = rates.length
        ? `against a median of ${pct(before)} in the steps before`
        : "at the run's first step with rollouts";
      rates.push(rate);
      if (rate < STEP_RATE || rate < JUMP * before) continue;
      out.push({
        run: name,
        kind: 'truncation',
        step,
        group: null,
        rows: m.truncated.slice(0, MAX_FINDING_ROWS),
        score: rate,
        text:
          `Step ${step}: ${m.truncated.length} of ${m.completions} completions (${pct(rate)}) were cut at the ` +
          `length limit, ${against} (flagged at >= ${pct(STEP_RATE)} ` +
          `and >= ${JUMP}x that median): raise the completion length limit or penalise length.`,
      });
    }
    return out;
  },
};
