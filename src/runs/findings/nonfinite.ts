/**
 * `nonfinite`: NaN or infinite values where a finite number is needed: a completion's total reward, its
 * advantage, an infinite reward component, or a sampler's, trainer's or reference log-prob. A single
 * component's NaN is not flagged: TRL logs a reward function's None (not applicable to the row) as NaN
 * and sums the others (src/runs/opened-run.ts meanStd leaves it out too); the total is NaN only when
 * every function returned None (docs/findings.md).
 */
import type { RunCompletion } from '../types.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

interface StepMeasure {
  rows: number[];
  /** How many values of each field were not finite. */
  fields: Record<string, number>;
  completions: number;
}

/** The fields of a completion that are not finite, with how many values each. */
export function nonfiniteFields(c: RunCompletion): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (field: string, n: number) => {
    if (n > 0) out[field] = (out[field] ?? 0) + n;
  };
  if (!Number.isFinite(c.reward)) add('reward', 1);
  if (c.advantage !== undefined && !Number.isFinite(c.advantage)) add('advantage', 1);
  for (const [k, v] of Object.entries(c.rewards)) if (v === Infinity || v === -Infinity) add(`reward ${k}`, 1);
  const t = c.tokens;
  const count = (xs: number[] | undefined) => (xs ? xs.reduce((n, x) => (Number.isFinite(x) ? n : n + 1), 0) : 0);
  add('sampler log-probs', count(t?.logprobs));
  add('trainer log-probs', count(t?.newLogprobs));
  add('reference log-probs', count(t?.refLogprobs));
  return out;
}

export const nonfinite: FindingRule<StepMeasure> = {
  kind: 'nonfinite',
  measure(step) {
    const m: StepMeasure = { rows: [], fields: {}, completions: 0 };
    for (const g of step.groups)
      for (const c of g.completions) {
        m.completions++;
        const bad = nonfiniteFields(c);
        if (!Object.keys(bad).length) continue;
        m.rows.push(c.row);
        for (const [k, n] of Object.entries(bad)) m.fields[k] = (m.fields[k] ?? 0) + n;
      }
    return m;
  },
  judge(measured, { name }) {
    const out: Finding[] = [];
    for (const { step, value: m } of measured) {
      if (!m.rows.length) continue;
      const what = Object.entries(m.fields)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      out.push({
        run: name,
        kind: 'nonfinite',
        step,
        group: null,
        rows: m.rows.slice(0, MAX_FINDING_ROWS),
        score: 1 + m.rows.length / Math.max(1, m.completions),
        text:
          `Step ${step}: ${m.rows.length} of ${m.completions} completions have NaN or infinite values (${what}; ` +
          `flagged at any): find the reward function or numerics that produced them before they reach the loss.`,
      });
    }
    return out;
  },
};
