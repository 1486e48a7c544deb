import { describe, expect, it } from 'vitest';
import { getLesson, lessons, perSeedVerdicts, type MeasuredLesson, type MeasuredRun } from './lessons.ts';

const measured = (id: string, runs: MeasuredRun[], base?: Record<string, number>): MeasuredLesson => ({ id, steps: 60, seed: 1, date: '2026-11-21', runs, summary: '', ...(base ? { base_pass_at_k: base } : {}) });
const run = (label: string, values: Record<string, number>, final?: Record<string, number>): MeasuredRun => ({ label, values, ...(final ? { final_pass_at_k: final } : {}) });

describe('lesson verdicts follow the measured numbers', () => {
  it('every lesson has a verdict rule that names its numbers', () => {
    for (const l of lessons) {
      const runs = l.runs.map((r) => run(r.label, Object.fromEntries(l.measures.map((m) => [m.metric, 0.5]))));
      const vd = l.verdict(measured(l.id, runs, { '1': 0.5, '16': 0.9 }));
      expect(typeof vd.shows).toBe('boolean');
      expect(vd.text.length).toBeGreaterThan(20);
    }
  });

  it('length normalisation: shows only when GRPO’s wrong answers are clearly longer', () => {
    const l = getLesson('length-normalisation');
    const key = 'completions/mean_length_wrong';
    expect(l.verdict(measured(l.id, [run('GRPO', { [key]: 30 }), run('Dr. GRPO', { [key]: 20 })])).shows).toBe(true);
    const no = l.verdict(measured(l.id, [run('GRPO', { [key]: 21.6 }), run('Dr. GRPO', { [key]: 22.3 })]));
    expect(no.shows).toBe(false);
    expect(no.text).toMatch(/21\.6 vs 22\.3/);
  });

  it('per seed: the rule is applied to each seed alone, while the recorded verdict is the one on the mean', () => {
    const l = getLesson('reward-hacking');
    const seedRuns = (obs: number, acc: number) => [run('strict', { 'accuracy/observed': 0.5, accuracy: 0.5 }), run('leaky', { 'accuracy/observed': obs, accuracy: acc })];
    // Seeds 1 and 2 hack (gap 0.9), seed 3 does not (gap 0.05); the mean gap is 0.62, so the mean shows.
    const per_seed = [
      { seed: 1, runs: seedRuns(0.95, 0.05) },
      { seed: 2, runs: seedRuns(0.95, 0.05) },
      { seed: 3, runs: seedRuns(0.6, 0.55) },
    ];
    const m: MeasuredLesson = { ...measured(l.id, seedRuns((0.95 + 0.95 + 0.6) / 3, (0.05 + 0.05 + 0.55) / 3)), seeds: [1, 2, 3], per_seed };
    expect(l.verdict(m).shows).toBe(true);
    expect(perSeedVerdicts(l, m).map((x) => [x.seed, x.verdict.shows])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(perSeedVerdicts(l, measured(l.id, seedRuns(0.95, 0.05)))).toEqual([]);
  });

  it('reward hacking: shows when the leaky verifier reports far more than the strict one', () => {
    const l = getLesson('reward-hacking');
    const m = (obs: number, acc: number) => measured(l.id, [run('strict', { 'accuracy/observed': 0.57, accuracy: 0.57 }), run('leaky', { 'accuracy/observed': obs, accuracy: acc })]);
    expect(l.verdict(m(0.96, 0)).shows).toBe(true);
    expect(l.verdict(m(0.6, 0.55)).shows).toBe(false);
  });

  it('sharpening: the NSR claim needs NSR at least as good as the base at every k', () => {
    const l = getLesson('sharpening');
    const base = { '1': 0.5, '16': 0.95 };
    const yes = l.verdict(measured(l.id, [run('PSR', {}, { '1': 0.6, '16': 0.9 }), run('NSR', {}, { '1': 0.55, '16': 0.97 })], base));
    expect(yes.shows).toBe(true);
    const no = l.verdict(measured(l.id, [run('PSR', {}, { '1': 0.529, '16': 1 }), run('NSR', {}, { '1': 0.465, '16': 0.938 })], base));
    expect(no.shows).toBe(false);
    expect(no.text).toMatch(/PSR raised pass@16 too/);
    // NSR 15 points below the base at pass@1: far beyond one standard error over 32 prompts (0.088 at 0.5).
    const below = l.verdict(measured(l.id, [run('PSR', {}, { '1': 0.6, '16': 0.9 }), run('NSR', {}, { '1': 0.35, '16': 0.97 })], base));
    expect(below.shows).toBe(false);
    expect(below.text).toMatch(/NSR fell below the base at some k by more than the evaluation noise/);
    // Half a point below a base of 0.985 is within the noise (one standard error there is 0.021).
    const near = l.verdict(measured(l.id, [run('PSR', {}, { '1': 0.6, '16': 0.97 }), run('NSR', {}, { '1': 0.55, '16': 0.98 })], { '1': 0.5, '16': 0.985 }));
    expect(near.shows).toBe(true);
  });

  it('noisy verifiers: learning survives when 40% noise stays within 0.05 of clean', () => {
    const l = getLesson('noisy-verifiers');
    const m = (a40: number) => measured(l.id, [run('clean', { accuracy: 0.6 }), run('20%', { accuracy: 0.58 }), run('40%', { accuracy: a40 })]);
    expect(l.verdict(m(0.57)).shows).toBe(true);
    expect(l.verdict(m(0.4)).shows).toBe(false);
  });
});
