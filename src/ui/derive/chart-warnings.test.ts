// A chart flags its condition (⚠, chart-warnings.ts) only while the condition holds over the data;
// otherwise MetricChart shows the hint as plain help text.
import { describe, expect, it } from 'vitest';
import { chartWarnings, sharpeningWarning, WINDOW } from './chart-warnings.ts';
import { chartSpecs } from './chart-specs.ts';

const steps = (n: number, row: (i: number) => Record<string, number>) =>
  Array.from({ length: n }, (_, i) => ({ step: i + 1, ...row(i) }));

describe('chart warnings hold only while their condition does', () => {
  it('zero-variance groups: flagged above half over the window, not at or below it, not on a young run', () => {
    const warn = chartWarnings.zero_std!;
    expect(warn(steps(WINDOW, () => ({ frac_reward_zero_std: 0.8 })))).toMatch(
      /^0\.80 of groups had no reward variance .*above half/,
    );
    expect(warn(steps(WINDOW, () => ({ frac_reward_zero_std: 0.3 })))).toBeNull();
    expect(warn(steps(WINDOW, (i) => ({ frac_reward_zero_std: i < 5 ? 1 : 0 })))).toBeNull(); // mean 0.5
    expect(warn(steps(3, () => ({ frac_reward_zero_std: 1 })))).toBeNull();
    // older steps do not count: the run recovered
    expect(
      warn([
        ...steps(30, () => ({ frac_reward_zero_std: 0.9 })),
        ...steps(WINDOW, () => ({ frac_reward_zero_std: 0.1 })),
      ]),
    ).toBeNull();
  });

  it('reward: flagged only when flat', () => {
    expect(chartWarnings.reward!(steps(WINDOW, () => ({ reward: 0 })))).toMatch(/^flat at 0\.0 for the last 10 steps/);
    expect(chartWarnings.reward!(steps(WINDOW, (i) => ({ reward: 0.1 * i })))).toBeNull();
  });

  it('reward std, truncation, entropy, ESS, clipping, ratio, length bias: thresholds over the window mean', () => {
    const at = (id: string, key: string, v: number) => chartWarnings[id]!(steps(WINDOW, () => ({ [key]: v })));
    expect(at('reward_std', 'reward_std', 0)).not.toBeNull();
    expect(at('reward_std', 'reward_std', 0.2)).toBeNull();
    expect(at('truncated', 'completions/clipped_ratio', 0.5)).not.toBeNull();
    expect(at('truncated', 'completions/clipped_ratio', 0.05)).toBeNull();
    expect(at('entropy', 'entropy', 0.01)).not.toBeNull();
    expect(at('entropy', 'entropy', 0.8)).toBeNull();
    expect(at('ess', 'ess', 0.3)).not.toBeNull();
    expect(at('ess', 'ess', 0.95)).toBeNull();
    expect(at('clip', 'clip_ratio/low_mean', 0.4)).not.toBeNull();
    expect(at('clip', 'clip_ratio/low_mean', 0.01)).toBeNull();
    expect(at('ratio', 'ratio/mean', 1.5)).not.toBeNull();
    expect(at('ratio', 'ratio/mean', 1.01)).toBeNull();
    expect(at('length_bias', 'length_bias/push_ratio', 0.6)).not.toBeNull();
    expect(at('length_bias', 'length_bias/push_ratio', 1)).toBeNull();
  });

  it('trends: accuracy falling while reward rises, wrong answers growing, KL doubling, a gradient spike', () => {
    const n = 2 * WINDOW;
    expect(
      chartWarnings.accuracy!(steps(n, (i) => ({ accuracy: i < WINDOW ? 0.6 : 0.4, reward: i < WINDOW ? 0.5 : 0.8 }))),
    ).toMatch(/reward hacking/);
    expect(
      chartWarnings.accuracy!(steps(n, (i) => ({ accuracy: i < WINDOW ? 0.4 : 0.6, reward: i < WINDOW ? 0.5 : 0.8 }))),
    ).toBeNull();
    expect(chartWarnings.length!(steps(n, (i) => ({ 'completions/mean_length_wrong': i < WINDOW ? 10 : 15 })))).toMatch(
      /length bias/,
    );
    expect(chartWarnings.length!(steps(n, () => ({ 'completions/mean_length_wrong': 10 })))).toBeNull();
    expect(chartWarnings.kl!(steps(n, (i) => ({ kl: i < WINDOW ? 0.04 : 0.2 })))).toMatch(/doubled/);
    expect(chartWarnings.kl!(steps(n, () => ({ kl: 0.2 })))).toBeNull();
    expect(chartWarnings.grad_norm!(steps(n, (i) => ({ grad_norm: i === n - 1 ? 30 : 1 })))).toMatch(/spike/);
    expect(chartWarnings.grad_norm!(steps(n, () => ({ grad_norm: 1 })))).toBeNull();
  });

  it('held-out sharpening: pass@1 up while pass@k at the largest k falls', () => {
    const e = (step: number, p1: number, p8: number) => ({ step, pass_at_k: { '1': p1, '8': p8 } });
    expect(sharpeningWarning([e(0, 0.3, 0.8), e(50, 0.45, 0.7)])).toMatch(
      /^pass@1 rose \(0\.30 → 0\.45\) while pass@8 fell/,
    );
    expect(sharpeningWarning([e(0, 0.3, 0.8), e(50, 0.45, 0.85)])).toBeNull();
    expect(sharpeningWarning([e(0, 0.3, 0.8)])).toBeNull();
  });

  it('every chart whose hint names a bad value has a condition; missing metrics never flag', () => {
    for (const id of Object.keys(chartWarnings))
      expect(
        chartSpecs.some((s) => s.id === id),
        id,
      ).toBe(true);
    for (const w of Object.values(chartWarnings)) expect(w(steps(2 * WINDOW, () => ({})))).toBeNull();
  });
});
