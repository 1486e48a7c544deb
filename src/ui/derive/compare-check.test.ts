import { describe, expect, it } from 'vitest';
import { checkOverrides, passAt1StdErr, passAt1Verdict } from './compare-check.ts';

describe("Compare: B's overrides checked as typed", () => {
  it('accepts valid overrides and builds the patch', () => {
    const r = checkOverrides(
      { loss_type: 'dr_grpo' },
      'epsilon_high=0.28, learning_rate=0.0002\nreward_weights.format=0.2',
    );
    expect(r.errors).toEqual([]);
    expect(r.patch).toMatchObject({
      loss_type: 'dr_grpo',
      epsilon_high: 0.28,
      learning_rate: 0.0002,
      reward_weights: { format: 0.2 },
    });
  });

  it('reports every error at once, each naming its field or line', () => {
    const r = checkOverrides({}, 'learning_rat=0.1, num_generations=1\ntemperature=hot\nnonsense\ndifficulty.m=0');
    expect(r.patch).toBeNull();
    const text = r.errors.join('\n');
    expect(r.errors.length).toBeGreaterThanOrEqual(4);
    expect(text).toMatch(/"nonsense": expected key=value/);
    expect(text).toMatch(/learning_rat: unknown field/);
    expect(text).toMatch(/num_generations: must be >= 2/);
    expect(text).toMatch(/temperature: must be a number/);
  });

  it('checks difficulty knobs against the task family', () => {
    const r = checkOverrides({ task: 'arithmetic' }, 'difficulty.digits=0');
    expect(r.errors.join()).toMatch(/^difficulty\.digits: /);
  });
});

describe('Compare: the held-out pass@1 verdict', () => {
  const a = { label: 'A', passAt1: 0.5, prompts: 16, n: 8, step: 20 };
  it('names the winner, the margin and whether it exceeds twice the binomial standard error', () => {
    expect(passAt1StdErr(a)).toBeCloseTo(Math.sqrt(0.25 / 128), 12);
    const big = passAt1Verdict(a, { ...a, label: 'B', passAt1: 0.7 });
    expect(big.significant).toBe(true);
    expect(big.text).toMatch(
      new RegExp(
        String.raw`^B did better on held-out pass@1 at step 20: 70\.0% vs 50\.0% \(\+20\.0 points\), ` +
          String.raw`more than twice the noise \(standard error of the difference 6\.0 points`,
      ),
    );
    const small = passAt1Verdict({ ...a, passAt1: 0.55 }, { ...a, label: 'B', passAt1: 0.5 });
    expect(small.significant).toBe(false);
    expect(small.text).toMatch(/^A did better .* \(\+5\.0 points\), but that is within the noise/);
    expect(passAt1Verdict(a, { ...a, label: 'B' }).text).toMatch(/^A and B tie/);
  });
});
