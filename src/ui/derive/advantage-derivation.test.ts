import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../../workers/protocol.ts';
import { deriveAdvantage } from './advantage-derivation.ts';

const rec = (group: number, index: number, reward: number, advantage = 0): RolloutRecord =>
  ({ group, index, reward, correct: reward === 1, advantage }) as unknown as RolloutRecord;
const grpo = { advantage_estimator: 'grpo', scale_rewards: 'group', positive_weight: 1, negative_weight: 1 } as const;

describe('the token panel derives the advantage from its group', () => {
  it("GRPO: (r − mean) / (std + 1e-4) with the group's numbers, in float64 by hand", () => {
    const step = [rec(0, 0, 1), rec(0, 1, 0), rec(0, 2, 0), rec(0, 3, 1), rec(1, 0, 0.5), rec(1, 1, 0.5)];
    const std = Math.sqrt((4 * 0.25) / 3);
    const expected = 0.5 / (std + 1e-4);
    const d = deriveAdvantage(step, { ...step[3]!, advantage: expected }, grpo);
    expect(d.rewards).toEqual([1, 0, 0, 1]);
    expect(d.self).toBe(3);
    expect(d.mean).toBe(0.5);
    expect(d.std).toBeCloseTo(std, 12);
    expect(d.value).toBeCloseTo(expected, 12);
    expect(d.matches).toBe(true);
    expect(d.substituted).toBe(`A = (1 − 0.5000) / (${std.toFixed(4)} + 0.0001) = ${expected.toFixed(4)}`);
    // A recorded advantage that is not the group's is flagged.
    expect(deriveAdvantage(step, { ...step[3]!, advantage: 2.474 }, grpo).matches).toBe(false);
    // A group where every completion got the same reward: 0, said so.
    expect(deriveAdvantage(step, step[4]!, grpo).formula).toMatch(/^A = 0 /);
  });
  it(
    'RLOO without scaling: r minus the mean of the ' +
      'others; batch scaling divides by the std of every ' +
      'reward of the step',
    () => {
      const step = [rec(0, 0, 1), rec(0, 1, 0), rec(0, 2, 0.5), rec(1, 0, 0), rec(1, 1, 1)];
      const d = deriveAdvantage(step, step[0]!, { ...grpo, advantage_estimator: 'rloo', scale_rewards: 'none' });
      expect(d.value).toBeCloseTo(1 - 0.25, 12);
      expect(d.substituted).toBe('A = (1 − 0.2500) = 0.7500');
      const b = deriveAdvantage(step, step[4]!, { ...grpo, scale_rewards: 'batch' });
      const all = [1, 0, 0.5, 0, 1];
      const m = all.reduce((a, x) => a + x, 0) / all.length;
      const bstd = Math.sqrt(all.reduce((a, x) => a + (x - m) ** 2, 0) / (all.length - 1));
      expect(b.divisor).toEqual({ kind: 'batch', std: bstd });
      expect(b.value).toBeCloseTo(0.5 / (bstd + 1e-4), 12);
    },
  );
  it(
    'REINFORCE++ (baseline): r − group mean, whitened ' +
      'over every completion token of the step, as the ' +
      'trainer did',
    () => {
      const withTokens = (r: RolloutRecord, n: number, truncated = false) =>
        ({ ...r, tokens: new Array(n).fill(1), truncated }) as RolloutRecord;
      const step = [
        withTokens(rec(0, 0, 1), 3),
        withTokens(rec(0, 1, 0), 5),
        withTokens(rec(1, 0, 1), 2),
        withTokens(rec(1, 1, 0.5), 4, true),
      ];
      const s = {
        ...grpo,
        advantage_estimator: 'reinforce_plus_plus_baseline',
        mask_truncated_completions: true,
      } as const;
      // By hand: centred values 0.5, -0.5, 0.25, -0.25 over 3, 5, 2 and 0 counted tokens.
      const x = [0.5, -0.5, 0.25],
        n = [3, 5, 2];
      const count = 10;
      const mean = x.reduce((a, v, i) => a + v * n[i]!, 0) / count;
      const variance = (x.reduce((a, v, i) => a + n[i]! * (v - mean) ** 2, 0) / count) * (count / (count - 1));
      const d = deriveAdvantage(step, step[0]!, s);
      expect(d.value).toBeCloseTo((0.5 - mean) / Math.sqrt(variance + 1e-8), 12);
      expect(d.divisor).toBeNull();
      expect(d.formula).toMatch(/whiten\(\(r − mean of the group\)\) over every completion token/);
      expect(deriveAdvantage(step, step[3]!, s).value).toBe(0); // its tokens were left out of the loss
    },
  );
});
