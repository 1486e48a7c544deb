/**
 * The token panel's advantage, derived on screen from its group's rewards: the rewards, their mean and
 * standard deviation, the chosen estimator's formula with the numbers put in, and the result. The value
 * comes from computeAdvantages (src/rl/advantages.ts), the function the trainer used, over the step's
 * recorded groups, so it can be checked against the advantage the record carries. Pure TypeScript
 * (advantage-derivation.test.ts).
 */
import { computeAdvantages } from '../../rl/advantages.ts';
import { isZeroVariance } from '../../rl/metrics.ts';
import type { ObjectiveSettings, RolloutRecord } from '../../../workers/protocol.ts';

export interface AdvantageDerivation {
  /** The group's rewards in completion order, and which one is this completion. */
  rewards: number[];
  self: number;
  mean: number;
  /** Unbiased standard deviation of the group's rewards (as torch.std; 0 for one completion). */
  std: number;
  /** The standard deviation the advantage is divided by: the group's, the batch's, or none. */
  divisor: { kind: 'group' | 'batch'; std: number } | null;
  /** The estimator's formula in symbols, then with this completion's numbers. */
  formula: string;
  substituted: string;
  value: number;
  /** Whether `value` equals the advantage the record carries (to float32 rounding). */
  matches: boolean;
}

const f = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(4));

function stdOf(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
}

/**
 * What the derivation reads of a completion: the playground's own rollout records have it, and so does
 * a completion of a run made elsewhere (src/ui/derive/run-view-model.ts maps one onto it).
 */
export type DerivationRecord = Pick<
  RolloutRecord,
  'group' | 'index' | 'reward' | 'correct' | 'advantage' | 'truncated'
> & {
  tokens: { length: number };
};

export function deriveAdvantage(
  step: DerivationRecord[],
  rec: DerivationRecord,
  s: Pick<ObjectiveSettings, 'advantage_estimator' | 'scale_rewards' | 'positive_weight' | 'negative_weight'> &
    Partial<Pick<ObjectiveSettings, 'mask_truncated_completions'>>,
): AdvantageDerivation {
  const groupIds = [...new Set(step.map((r) => r.group))].sort((a, b) => a - b);
  const groups = groupIds.map((g) => step.filter((r) => r.group === g).sort((a, b) => a.index - b.index));
  const gi = groupIds.indexOf(rec.group);
  const group = groups[gi]!;
  const self = group.findIndex((r) => r.index === rec.index);
  const rewards = group.map((r) => r.reward);
  const reinforcePP =
    s.advantage_estimator === 'reinforce_plus_plus' || s.advantage_estimator === 'reinforce_plus_plus_baseline';
  const all = computeAdvantages(
    groups.map((g) => g.map((r) => r.reward)),
    groups.map((g) => g.map((r) => r.correct)),
    s,
    // The tokens each completion counts for the loss, as the trainer passes them (only REINFORCE++ whitens over them).
    reinforcePP
      ? groups.map((g) => g.map((r) => (s.mask_truncated_completions && r.truncated ? 0 : r.tokens.length)))
      : undefined,
  );
  const value = all[gi]![self]!;
  const n = rewards.length;
  const sum = rewards.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const std = stdOf(rewards);
  const r = rewards[self]!;
  const divisor = reinforcePP
    ? null
    : s.scale_rewards === 'group'
      ? { kind: 'group' as const, std }
      : s.scale_rewards === 'batch'
        ? { kind: 'batch' as const, std: stdOf(groups.flat().map((x) => x.reward)) }
        : null;
  let formula: string;
  let substituted: string;
  if (reinforcePP) {
    const base = s.advantage_estimator === 'reinforce_plus_plus' ? 'r' : '(r − mean of the group)';
    formula =
      `A = whiten(${base}) over every completion token of ` +
      'the batch: (x − token mean) / token std   ' +
      `(advantage_estimator ${s.advantage_estimator}; ` +
      'scale_rewards is not used)';
    substituted =
      `A = whiten(${s.advantage_estimator === 'reinforce_plus_plus' ? f(r) : `${f(r)} − ${f(mean)}`}` +
      `) = ${value.toFixed(4)}`;
  } else if (s.advantage_estimator !== 'signed' && isZeroVariance(rewards)) {
    formula = 'A = 0   (every completion of the group got the same reward: no signal)';
    substituted = `A = 0`;
  } else {
    let top: string;
    let topNum: string;
    if (s.advantage_estimator === 'signed') {
      top = '(+1 if correct, −1 if not)';
      topNum = rec.correct ? '+1' : '−1';
    } else if (s.advantage_estimator === 'rloo') {
      top = '(r − mean of the other G − 1 rewards)';
      topNum = `(${f(r)} − ${f(n > 1 ? (sum - r) / (n - 1) : 0)})`;
    } else {
      top = '(r − mean)';
      topNum = `(${f(r)} − ${f(mean)})`;
    }
    const under = divisor ? ` / (${divisor.kind === 'group' ? 'std of the group' : 'std of the batch'} + 0.0001)` : '';
    const underNum = divisor ? ` / (${f(divisor.std)} + 0.0001)` : '';
    const raw = value;
    const weight =
      raw > 0 && s.positive_weight !== 1
        ? ` × positive_weight ${f(s.positive_weight)}`
        : raw < 0 && s.negative_weight !== 1
          ? ` × negative_weight ${f(s.negative_weight)}`
          : '';
    const weightSym =
      s.positive_weight !== 1 || s.negative_weight !== 1 ? ' × (positive_weight if > 0, negative_weight if < 0)' : '';
    formula =
      `A = ${top}${under}${weightSym}   ` +
      `(advantage_estimator ${s.advantage_estimator}, ` +
      `scale_rewards ${s.scale_rewards})`;
    substituted = `A = ${topNum}${underNum}${weight} = ${value.toFixed(4)}`;
  }
  const matches = Math.abs(value - rec.advantage) <= 1e-5 + 1e-4 * Math.abs(rec.advantage);
  return { rewards, self, mean, std, divisor, formula, substituted, value, matches };
}
