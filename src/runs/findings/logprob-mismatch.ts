/**
 * `logprob_mismatch`: where a completion's tokens carry both the sampler's log-probs (`logprobs`) and the
 * trainer's (`newLogprobs`) computed with the same weights (TokenChannels.newLogprobsBeforeUpdate is not
 * false): tokens whose |Δ log p| exceeds TOKEN_NATS, and completions whose sequence ratio exp(mean Δ)
 * leaves [SEQ_LOW, SEQ_HIGH]. After an update of the batch the two legitimately differ (a record's later
 * minibatches and iterations, src/runs/record.ts), and those rows are not compared (docs/findings.md).
 */
import { fmt, pct } from './numbers.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

export const TOKEN_NATS = 0.5;
export const SEQ_LOW = 0.8;
export const SEQ_HIGH = 1.25;

interface StepMeasure {
  compared: number;
  rows: number[];
  tokensOver: number;
  tokens: number;
  sequencesOut: number;
  worst: { row: number; delta: number; token: number } | null;
}

export const logprobMismatch: FindingRule<StepMeasure> = {
  kind: 'logprob_mismatch',
  measure(step) {
    const m: StepMeasure = { compared: 0, rows: [], tokensOver: 0, tokens: 0, sequencesOut: 0, worst: null };
    for (const g of step.groups)
      for (const c of g.completions) {
        const t = c.tokens;
        if (!t?.logprobs || !t.newLogprobs || t.newLogprobsBeforeUpdate === false) continue;
        const n = Math.min(t.logprobs.length, t.newLogprobs.length);
        let sum = 0;
        let count = 0;
        let over = 0;
        for (let i = 0; i < n; i++) {
          const d = t.newLogprobs[i]! - t.logprobs[i]!;
          if (!Number.isFinite(d)) continue; // `nonfinite`'s to report
          sum += d;
          count++;
          if (Math.abs(d) > TOKEN_NATS) over++;
          if (Math.abs(d) > TOKEN_NATS && (!m.worst || Math.abs(d) > Math.abs(m.worst.delta)))
            m.worst = { row: c.row, delta: d, token: i };
        }
        if (count === 0) continue;
        m.compared++;
        m.tokens += count;
        const ratio = Math.exp(sum / count);
        const out = ratio < SEQ_LOW || ratio > SEQ_HIGH;
        if (out) m.sequencesOut++;
        m.tokensOver += over;
        if (out || over > 0) m.rows.push(c.row);
      }
    return m;
  },
  judge(measured, { name }) {
    const out: Finding[] = [];
    for (const { step, value: m } of measured) {
      if (!m.rows.length) continue;
      const worst = m.worst
        ? `; the largest, row ${m.worst.row} token ${m.worst.token}: Δ ${fmt(m.worst.delta)} nats`
        : '';
      out.push({
        run: name,
        kind: 'logprob_mismatch',
        step,
        group: null,
        rows: m.rows.slice(0, MAX_FINDING_ROWS),
        score: 0.5 + 0.5 * Math.min(1, m.rows.length / m.compared),
        text:
          `Step ${step}: in ${m.rows.length} of ${m.compared} completions the sampler's and the trainer's log-probs ` +
          `disagree: ${m.tokensOver} of ${m.tokens} tokens (${pct(m.tokensOver / m.tokens)}) and ${m.sequencesOut} ` +
          `sequence${m.sequencesOut === 1 ? '' : 's'}${worst} ` +
          `(flagged at any token with |Δ log p| > ${TOKEN_NATS} nats, a ratio outside ` +
          `[${fmt(Math.exp(-TOKEN_NATS))}, ${fmt(Math.exp(TOKEN_NATS))}], or a sequence with exp(mean Δ) outside ` +
          `[${SEQ_LOW}, ${SEQ_HIGH}]): check the sampler's weight sync, dtype and sampling settings.`,
      });
    }
    return out;
  },
};
