import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import {
  formatMeasured,
  getLesson,
  lessons,
  lessonSeeds,
  measureKey,
  perSeedVerdicts,
  type MeasuredLesson,
  type MeasuredRun,
} from './index.ts';

const measured = (id: string, runs: MeasuredRun[], base?: Record<string, number>): MeasuredLesson => ({
  id,
  steps: 60,
  seed: 1,
  date: '2026-11-21',
  runs,
  summary: '',
  ...(base ? { base_pass_at_k: base } : {}),
});
const run = (label: string, values: Record<string, number>, final?: Record<string, number>): MeasuredRun => ({
  label,
  values,
  ...(final ? { final_pass_at_k: final } : {}),
});

describe('what a lesson says to look at', () => {
  it('includes every metric its verdict judges, so the charts it highlights are the ones judged', () => {
    const missing = lessons.flatMap((l) =>
      (l.measures ?? [])
        .filter((m) => !(l.lookAt as readonly string[]).includes(m.metric))
        .map((m) => `${l.id}: ${m.metric}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('lesson verdicts follow the measured numbers', () => {
  it('every lesson has a verdict rule that names its numbers', () => {
    for (const l of lessons) {
      const runs = l.runs.map((r) => run(r.label, Object.fromEntries(l.measures.map((m) => [m.metric, 0.5]))));
      const vd = l.verdict(measured(l.id, runs, { '1': 0.5, '16': 0.9 }));
      expect(typeof vd.shows).toBe('boolean');
      expect(vd.text.length).toBeGreaterThan(20);
    }
  });

  it(
    'length normalisation: shows when GRPO pushes long wrong answers clearly less per token and Dr. GRPO ' +
      'alike; lengths are reported, not judged',
    () => {
      const l = getLesson('length-normalisation');
      const push = 'length_bias/push_ratio';
      const len = 'completions/mean_length_wrong';
      const m = (g: number, d: number, lg = 22, ld = 22) =>
        measured(l.id, [run('GRPO', { [push]: g, [len]: lg }), run('Dr. GRPO', { [push]: d, [len]: ld })]);
      expect(l.verdict(m(0.82, 1.0)).shows).toBe(true);
      expect(l.verdict(m(0.82, 1.0)).text).toMatch(
        /was 82\.0% of that on its shortest under GRPO, 100\.0% under Dr\. GRPO/,
      );
      expect(l.verdict(m(0.82, 1.0)).text).toMatch(/about as long under both/);
      expect(l.verdict(m(0.82, 1.0, 30, 20)).text).toMatch(/longer under GRPO, as the paper reports/);
      expect(l.verdict(m(0.82, 1.0, 21.3, 27.6)).text).toMatch(
        /longer under Dr\. GRPO, the opposite of the paper's direction/,
      );
      expect(l.verdict(m(0.95, 1.0)).shows).toBe(false);
      // Dr. GRPO must push alike: a constant divisor that still favoured long answers shows nothing.
      expect(l.verdict(m(0.7, 0.9)).shows).toBe(false);
      expect(l.runs.map((r) => r.preset)).toEqual(['grpo', 'dr_grpo']);
    },
  );

  it('per seed: the rule is applied to each seed alone, while the recorded verdict is the one on the mean', () => {
    const l = getLesson('reward-hacking');
    const seedRuns = (obs: number, acc: number) => [
      run('strict', { 'accuracy/observed': 0.5, accuracy: 0.5 }),
      run('leaky', { 'accuracy/observed': obs, accuracy: acc }),
    ];
    // Seeds 1 and 2 hack (gap 0.9), seed 3 does not (gap 0.05); the mean gap is 0.62, so the mean shows.
    const per_seed = [
      { seed: 1, runs: seedRuns(0.95, 0.05) },
      { seed: 2, runs: seedRuns(0.95, 0.05) },
      { seed: 3, runs: seedRuns(0.6, 0.55) },
    ];
    const m: MeasuredLesson = {
      ...measured(l.id, seedRuns((0.95 + 0.95 + 0.6) / 3, (0.05 + 0.05 + 0.55) / 3)),
      seeds: [1, 2, 3],
      per_seed,
    };
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
    const m = (obs: number, acc: number) =>
      measured(l.id, [
        run('strict', { 'accuracy/observed': 0.57, accuracy: 0.57 }),
        run('leaky', { 'accuracy/observed': obs, accuracy: acc }),
      ]);
    expect(l.verdict(m(0.96, 0)).shows).toBe(true);
    expect(l.verdict(m(0.6, 0.55)).shows).toBe(false);
  });

  it(
    'sharpening: shows when both raise pass@1, PSR falls below the base at some k, and NSR falls less far ' +
      'than PSR',
    () => {
      const l = getLesson('sharpening');
      expect(lessonSeeds(l)).toEqual([11, 12, 13]);
      const base = { '1': 0.54, '4': 0.945, '8': 0.994, '16': 1 };
      const m = (psr: Record<string, number>, nsr: Record<string, number>) =>
        measured(l.id, [run('PSR', {}, psr), run('NSR', {}, nsr)], base);
      // The mean of the first staging's seeds 1-3: PSR's largest dip 0.031 (k = 4 here 0.029), NSR's 0.017.
      const yes = l.verdict(
        m({ '1': 0.609, '4': 0.916, '8': 0.976, '16': 1 }, { '1': 0.632, '4': 0.932, '8': 0.977, '16': 1 }),
      );
      expect(yes.shows).toBe(true);
      expect(yes.text).toMatch(/PSR 0\.029 \(at k = 4\), NSR 0\.017 \(at k = 8\)/);
      // NSR dips further than PSR.
      expect(
        l.verdict(m({ '1': 0.609, '4': 0.93, '8': 0.98, '16': 1 }, { '1': 0.632, '4': 0.91, '8': 0.97, '16': 1 }))
          .shows,
      ).toBe(false);
      // PSR at or above the base everywhere: no sharpening.
      const noSharp = l.verdict(
        m({ '1': 0.609, '4': 0.956, '8': 0.996, '16': 1 }, { '1': 0.613, '4': 0.92, '8': 0.973, '16': 1 }),
      );
      expect(noSharp.shows).toBe(false);
      expect(noSharp.text).toMatch(/no sharpening/);
      // NSR did not raise pass@1 by 3 points.
      expect(
        l.verdict(m({ '1': 0.609, '4': 0.916, '8': 0.976, '16': 1 }, { '1': 0.55, '4': 0.94, '8': 0.99, '16': 1 }))
          .shows,
      ).toBe(false);
    },
  );

  it(
    'noisy verifiers: shows when (1 − 2p)^−2 more prompts recover three quarters of the clean held-out ' +
      'gain, more than without them',
    () => {
      const l = getLesson('noisy-verifiers');
      expect(l.runs.map((r) => r.config.prompts_per_step ?? 8)).toEqual([8, 8, 22]);
      const base = { '1': 0.3, '16': 0.8 };
      const m = (clean: number, n20: number, n20x: number) =>
        measured(
          l.id,
          [run('clean', {}, { '1': clean }), run('20%', {}, { '1': n20 }), run('20% x', {}, { '1': n20x })],
          base,
        );
      expect(l.verdict(m(0.6, 0.45, 0.55)).shows).toBe(true); // recovers 83% of +0.30, against 50%
      expect(l.verdict(m(0.6, 0.45, 0.5)).shows).toBe(false); // 67%: below three quarters
      expect(l.verdict(m(0.6, 0.58, 0.55)).shows).toBe(false); // the extra samples did not help
      expect(l.verdict(m(0.32, 0.3, 0.33)).text).toMatch(/clean run did not learn/);
    },
  );

  it('zero loss: shows when μ = 1, β = 0 keeps |loss| at 0 while the policy learns, and β > 0 or μ > 1 move it', () => {
    const l = getLesson('zero-loss');
    expect(l.measures.find((x) => x.metric === 'loss')?.abs).toBe(true);
    const m = (l0: number, l1: number, l2: number, grad: number, final: number) =>
      measured(
        l.id,
        [
          run('a', { '|loss|': l0, grad_norm: grad }, { '1': final }),
          run('b', { '|loss|': l1, grad_norm: 1 }),
          run('c', { '|loss|': l2, grad_norm: 1 }),
        ],
        { '1': 0.3 },
      );
    expect(l.verdict(m(2e-8, 1e-3, 1.5e-3, 1.1, 0.5)).shows).toBe(true);
    expect(l.verdict(m(2e-3, 1e-3, 1.5e-3, 1.1, 0.5)).shows).toBe(false); // the loss was not 0
    expect(l.verdict(m(2e-8, 1e-3, 1.5e-3, 1.1, 0.32)).shows).toBe(false); // no learning
    expect(l.verdict(m(2e-8, 1e-7, 1.5e-3, 1.1, 0.5)).shows).toBe(false); // β did not move the loss
    expect(l.verdict(m(2e-8, 1e-3, 1.5e-3, 1.1, 0.5)).text).toMatch(/2\.0e-8/);
  });

  it(
    'no signal: shows when the hard level leaves ≥ 30% of groups silent and a larger group or an easier ' +
      'level cut that share',
    () => {
      const l = getLesson('no-signal');
      expect(l.runs.length).toBeLessThanOrEqual(3); // the page compares at most three runs
      const m = (z8: number, z16: number, zEasy: number) =>
        measured(l.id, [
          run('8', { frac_reward_zero_std: z8, accuracy: 0.1 }),
          run('16', { frac_reward_zero_std: z16, accuracy: 0.1 }),
          run('easy', { frac_reward_zero_std: zEasy, accuracy: 0.5 }),
        ]);
      expect(l.verdict(m(0.75, 0.6, 0.25)).shows).toBe(true);
      expect(l.verdict(m(0.2, 0.1, 0.05)).shows).toBe(false);
      expect(l.verdict(m(0.75, 0.73, 0.25)).shows).toBe(false);
      expect(l.verdict(m(0.75, 0.6, 0.7)).shows).toBe(false);
    },
  );

  it(
    'forking tokens: shows when full training learns, the top 20% keeps up with it, and a random 20% falls ' +
      '5 points behind the top',
    () => {
      const l = getLesson('forking-tokens');
      expect(l.task).toBe('sudoku');
      expect(lessonSeeds(l)).toEqual([11, 12, 13]);
      expect(l.runs.map((r) => [r.config.top_entropy_quantile, r.config.random_token_fraction])).toEqual([
        [undefined, undefined],
        [0.2, undefined],
        [undefined, 0.2],
      ]);
      const m = (all: number, top: number, rand: number) =>
        measured(
          l.id,
          [
            run('all', { accuracy: 0.5 }, { '1': all }),
            run('top', { accuracy: 0.5 }, { '1': top }),
            run('random', { accuracy: 0.5 }, { '1': rand }),
          ],
          { '1': 0.43 },
        );
      expect(l.verdict(m(0.6, 0.59, 0.47)).shows).toBe(true);
      expect(l.verdict(m(0.6, 0.59, 0.47)).text).toMatch(/random 20% 0\.470/);
      // 0.15 behind: beyond one standard error (0.087)
      expect(l.verdict(m(0.6, 0.45, 0.4)).text).toMatch(/fell behind full training/);
      expect(l.verdict(m(0.6, 0.59, 0.56)).text).toMatch(/random fifth did about as well/);
      expect(l.verdict(m(0.46, 0.5, 0.4)).text).toMatch(/full training did not learn/);
    },
  );

  it(
    "easy to hard: the target is sudoku's hardest 4×4 level, the ladder climbs to it from 8 blanks, judged " +
      "by the first staging's rule on six new seeds",
    () => {
      const l = getLesson('easy-to-hard');
      expect(l.task).toBe('sudoku');
      expect(lessonSeeds(l)).toEqual([23, 24, 25, 26, 27, 28]);
      expect(l.runs.map((r) => r.config.difficulty)).toEqual([
        { size: 4, blanks: 10 },
        { size: 4, blanks: 10 },
      ]);
      // 8 puzzles a step, set in the lesson (unset, sudoku-tiny's recipe gives 64): at 16 direct
      // training finds rare successes and catches up.
      expect(l.runs.map((r) => r.config.prompts_per_step)).toEqual([8, 8]);
      expect(l.runs[1]!.config).toMatchObject({ curriculum: 'ladder', ladder_start: 2 });
      const m = (fixed: number, ladder: number) =>
        measured(
          l.id,
          [run('fixed', { accuracy: 0.3 }, { '1': fixed }), run('ladder', { accuracy: 0.3 }, { '1': ladder })],
          { '1': 0 },
        );
      expect(l.verdict(m(0.2, 0.28)).shows).toBe(true);
      expect(l.verdict(m(0.23, 0.227)).shows).toBe(false);
      expect(l.verdict(m(0.2, 0.22)).shows).toBe(false); // within 0.03
    },
  );

  it('a measure of |x| is recorded under its own key, and tiny numbers print in exponent form', () => {
    expect(measureKey({ description: '', metric: 'loss', window: 5, abs: true })).toBe('|loss|');
    expect(measureKey({ description: '', metric: 'loss', window: 5 })).toBe('loss');
    expect(formatMeasured(2.3e-8)).toBe('2.3e-8');
    expect(formatMeasured(0)).toBe('0.000');
    expect(formatMeasured(0.5)).toBe('0.500');
    expect(formatMeasured(24.46)).toBe('24.5');
  });

  it(
    'CISPO vs clipping: shows when the clip acts, the clipped objective learns, and CISPO falls clearly ' + 'behind it',
    () => {
      const l = getLesson('cispo-vs-clip');
      expect(l.runs.map((r) => r.preset)).toEqual(['grpo', 'cispo']);
      // The same sixteen updates a batch for both runs: only the loss (objective and averaging) differs.
      expect(l.runs[0]!.config).toEqual({ num_iterations: 4, minibatches: 4 });
      expect(l.runs[1]!.config).toEqual(l.runs[0]!.config);
      const m = (silenced: number, grpo: number, cispo: number) =>
        measured(
          l.id,
          [
            run('grpo', { 'clip_ratio/region_mean': silenced, entropy: 0.4 }, { '1': grpo }),
            run('cispo', { 'clip_ratio/region_mean': 0, entropy: 0.5 }, { '1': cispo }),
          ],
          { '1': 0.3 },
        );
      expect(l.verdict(m(0.02, 0.65, 0)).shows).toBe(true);
      expect(l.verdict(m(0.02, 0.65, 0)).text).toMatch(
        /CISPO, which keeps every token's gradient, collapsed below the base/,
      );
      expect(l.verdict(m(0.02, 0.65, 0.55)).shows).toBe(true);
      expect(l.verdict(m(0.02, 0.65, 0.55)).text).toMatch(/fell behind it/);
      // Within max(0.03, one standard error of pass@1 near 0.65, about 0.084) is keeping up.
      expect(l.verdict(m(0.02, 0.65, 0.6)).shows).toBe(false);
      expect(l.verdict(m(0.02, 0.65, 0.6)).text).toMatch(/CISPO kept up/);
      expect(l.verdict(m(0.005, 0.65, 0)).text).toMatch(/clip barely acted/);
      // The clip must itself learn: two collapsed runs show nothing.
      expect(l.verdict(m(0.02, 0.33, 0)).shows).toBe(false);
      expect(l.verdict(m(0.02, 0.33, 0)).text).toMatch(/clipped objective itself did not learn/);
    },
  );

  it('every lesson compares at most three runs (the page shows A, B, C)', () => {
    for (const l of lessons) expect(l.runs.length, l.id).toBeLessThanOrEqual(3);
  });

  it('each shipped measurement is on exactly the seeds its lesson names, and each of those seeds is recorded', () => {
    const measured = JSON.parse(
      readFileSync(new URL('../../public/lessons/measured.json', import.meta.url), 'utf8'),
    ) as Record<string, MeasuredLesson>;
    // The shipped records as the page finds them: public/records/index.json (scripts/records-index.mjs).
    const index = JSON.parse(readFileSync(new URL('../../public/records/index.json', import.meta.url), 'utf8')) as {
      records: { file: string; lesson?: { id: string; arm: string; seed: number } }[];
    };
    const recorded = (id: string, arm: string, seed: number) =>
      index.records.find((r) => r.lesson?.id === id && r.lesson.arm === arm && r.lesson.seed === seed);
    for (const l of lessons) {
      const m = measured[l.id];
      if (!m) continue;
      expect(m.seeds ?? [m.seed], l.id).toEqual([...lessonSeeds(l)]);
      expect(
        (m.per_seed ?? []).map((p) => p.seed),
        l.id,
      ).toEqual(lessonSeeds(l).length > 1 ? [...lessonSeeds(l)] : []);
      for (const seed of lessonSeeds(l)) {
        for (const r of l.runs) {
          const rec = recorded(l.id, r.label, seed);
          expect(
            rec && existsSync(new URL(`../../public/${rec.file}`, import.meta.url)),
            `${l.id} seed ${seed} "${r.label}" recorded`,
          ).toBe(true);
        }
      }
    }
    // A lesson's seeds are fixed before its measurement: no pilot's seeds are among them (the CISPO
    // re-staging's pilots ran on seeds 4 and 5; seeds up to 28 were used by earlier measurements).
    expect(lessonSeeds(getLesson('cispo-vs-clip'))).toEqual([29, 30, 31]);
    expect(lessonSeeds(getLesson('length-normalisation'))).toEqual([32, 33, 34]);
    expect(lessonSeeds(getLesson('why-groups'))).toEqual([1, 2, 3, 8, 9, 10]);
    expect(lessonSeeds(getLesson('no-signal'))).toEqual([1, 2, 3]);
  });
});
