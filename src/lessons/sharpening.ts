import { pk, f3, largestShortfall, sat, trainedSat, type Lesson } from './lesson.ts';

export const sharpening: Lesson = {
  id: 'sharpening',
  title: 'Sharpening or new ability? pass@k, PSR and NSR',
  paper:
    'Does RL Really Incentivize Reasoning Capacity Beyond the Base Model?; The Surprising Effectiveness of ' +
    'Negative Reinforcement',
  claim:
    'pass@k is the chance that at least one of k tries is right. RL (reinforcement learning) wins at k = 1, but ' +
    'base models, before RL, "can achieve a comparable or even higher pass@k" at large k; training on negative ' +
    'samples only (NSR) "consistently improves performance over the base model across the entire Pass@k ' +
    'spectrum", while positive samples only (PSR) improves Pass@1 but degrades higher k.',
  text:
    'Words first. The policy is the model being trained; the base policy is the shipped model before any RL. ' +
    'pass@1 is first-try accuracy; pass@16 says whether the model can solve a puzzle at all within 16 tries. Both ' +
    'are measured on held-out puzzles, never trained on. The puzzles are SAT: give each of 5 variables the value ' +
    '0 or 1 so that every clause (an OR of 3 variables, some negated) is true, here with 5 clauses (n, k and m in ' +
    'the experiment below: variables, variables per clause, clauses), the level the base was trained on, so it ' +
    'already solves about half on the first try and nearly all within 16 tries. PSR (positive sample ' +
    'reinforcement) trains only on the right answers and makes them likelier; NSR (negative sample reinforcement) ' +
    'trains only on the wrong ones and makes them less likely, which spreads their probability over every other ' +
    "answer. Each run takes 150 training steps. Watch the Held-out pass@k chart: the base's curve against each " +
    "run's. Expect both runs to lift pass@1. PSR concentrates the model's probability on answers it already " +
    'finds, so the base catches up with it and overtakes it at larger k: that is sharpening. NSR removes wrong ' +
    'answers without choosing among the right ones, so it keeps more of the puzzles the base could solve in some ' +
    'try. The lesson shows its effect when both runs raise pass@1 by 3 points, PSR falls more than a point below ' +
    "the base at some k, and NSR's largest dip below the base is smaller than PSR's. A seed fixes a run's " +
    "random draws; the measured numbers below are means over three seeds. In the paper's 7-billion-parameter " +
    'model NSR stayed at or above the base at every k; an earlier version of this lesson (seeds 1 to 3) saw NSR ' +
    "dip a little below the base at k = 4 to 8 as well (its largest dip 0.020, PSR's 0.031), which is why the " +
    'verdict compares the two dips. Read the verdict with care: it holds on the mean of the three seeds and on ' +
    "none alone, and two other seeds, evaluated on four times as many puzzles, did not show it (the project's " +
    'docs/sweeps.md): at this size PSR and NSR differ by less than one seed differs from the next.',
  lookAt: ['eval'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'PSR only', preset: 'psr_only', config: { difficulty: trainedSat } },
    { label: 'NSR only', preset: 'nsr_only', config: { difficulty: trainedSat } },
  ],
  measures: [
    { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
  ],
  // Re-staged with this rule before it was measured on seeds 11, 12 and 13 (never used for this
  // lesson). The first staging asked NSR to be at least as good as the base at every k, the paper's
  // 7B result; on seeds 1-3 both PSR and NSR fell below the base at k = 4..8, NSR less far (largest
  // shortfall 0.020 against PSR's 0.031, mean of seeds 1-3), so the first staging did not show.
  // The rule now tests what this scale can: both raise pass@1 by at least 3 points, PSR sharpens (the
  // base is ahead of it by more than one point at some k), and NSR's largest shortfall below the base
  // over k = 1..16 is smaller than PSR's.
  seeds: [11, 12, 13],
  verdict: (m) => {
    const b1 = pk(m.base_pass_at_k, 1);
    const ks = Object.keys(m.base_pass_at_k ?? {}).map(Number);
    const kMax = ks.length ? Math.max(...ks) : 1;
    const psr = m.runs[0]?.final_pass_at_k;
    const nsr = m.runs[1]?.final_pass_at_k;
    const psrGap = largestShortfall(m.base_pass_at_k, psr);
    const nsrGap = largestShortfall(m.base_pass_at_k, nsr);
    const bothUp = pk(psr, 1) >= b1 + 0.03 && pk(nsr, 1) >= b1 + 0.03;
    const psrSharpens = psrGap.gap > 0.01;
    const nsrKeepsMore = nsrGap.gap < psrGap.gap;
    const gapText = (g: { gap: number; k: number }) =>
      g.gap > 0 ? `${f3(g.gap)} (at k = ${g.k})` : 'none (at or above the base at every k)';
    const nums =
      `pass@1: base ${f3(b1)}, PSR ${f3(pk(psr, 1))}, NSR ${f3(pk(nsr, 1))}; largest shortfall below the ` +
      `base over k = 1..${kMax}: PSR ${gapText(psrGap)}, NSR ${gapText(nsrGap)}`;
    if (!bothUp) return { shows: false, text: `Does not show: not both runs raised pass@1 by 3 points (${nums}).` };
    if (!psrSharpens)
      return {
        shows: false,
        text:
          'Does not show: PSR stayed within a point of the base at every k, so there was no sharpening to ' +
          `compare against (${nums}).`,
      };
    return nsrKeepsMore
      ? {
          shows: true,
          text:
            'Shows: both raised pass@1, PSR sharpened (the base overtook it at large k), and NSR stayed ' +
            `closer to the base's pass@k than PSR did (${nums}).`,
        }
      : {
          shows: false,
          text: `Does not show: PSR sharpened, but NSR fell as far or further below the base at large k (${nums}).`,
        };
  },
};
