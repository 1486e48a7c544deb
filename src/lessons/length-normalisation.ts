import { v, pct, sat, type Lesson } from './lesson.ts';

export const lengthNormalisation: Lesson = {
  id: 'length-normalisation',
  title: 'Length and normalisation: GRPO vs Dr. GRPO',
  paper: 'Understanding R1-Zero-Like Training (Dr. GRPO)',
  claim:
    'Dr. GRPO removes the per-sequence length normalisation and the std scaling that bias GRPO toward long wrong ' +
    'answers.',
  text:
    "GRPO divides each answer's loss by the answer's length. In a group, every wrong answer gets the same " +
    'negative advantage, so a long wrong answer is pushed down less per token than a short one: its penalty ' +
    "is spread over more tokens. (The push on a token is how hard the update lowers that token's " +
    "probability: the answer's advantage times the token's aggregation weight, the factor its loss is " +
    'multiplied by.) The Dr. GRPO paper reports that, over long training, this lets wrong answers grow. Dr. ' +
    "GRPO divides every answer's loss by the same constant instead, so every token of every wrong answer in " +
    "a group is pushed down alike. Dr. GRPO also stops dividing each group's advantages by their standard " +
    'deviation (the std scaling); the paper names that a second bias, by question difficulty rather than ' +
    'length, and this lesson does not measure it. What this lesson shows is the push itself, in the live ' +
    'update. The Length bias chart shows, in each group, the push per token on its longest wrong answer ' +
    'divided by that on its shortest: 1 means alike; below 1, the long answer gets off lighter. Under GRPO ' +
    "the ratio is, by arithmetic, the shortest answer's length over the longest's: not a new finding, but " +
    "the bias made visible. Dr. GRPO's sits at 1, off only where two wrong answers in a group earned " +
    'different rewards (a well-formed wrong answer earns a small format reward, a malformed one none). On ' +
    "single tokens: in a step's rollouts, click a token of a long and of a short wrong answer in the same " +
    'group and compare their aggregation weight. The result is in the box below. What does not show at this ' +
    'scale is the growth. Watch the Length of wrong answers chart: wrong answers come out longer under one ' +
    'objective on some seeds and under the other on others, here and in earlier trials on six task families ' +
    '(docs/sweeps.md). Why: the lighter push can only lengthen answers by making the model stop later, and ' +
    'this model ends every answer right after </answer> all but certainly, so the push barely moves that ' +
    'choice.',
  lookAt: ['length_bias/push_ratio', 'completions/mean_length_wrong'],
  task: sat,
  steps: 150,
  // Re-staged (session 20): the verdict judges the bias in the update itself, which every step
  // shows; the length of wrong answers, which no trial moved (docs/sweeps.md), is reported, not
  // judged. Fresh seeds for the new measurement.
  seeds: [32, 33, 34],
  runs: [
    { label: 'GRPO', preset: 'grpo', config: { max_completion_length: 64 } },
    { label: 'Dr. GRPO', preset: 'dr_grpo', config: { max_completion_length: 64 } },
  ],
  measures: [
    {
      description: "per-token push on a group's longest wrong answer over its shortest's (1 = alike), all steps",
      metric: 'length_bias/push_ratio',
      window: 150,
    },
    {
      description: 'mean length of wrong completions (tokens), last 20 steps',
      metric: 'completions/mean_length_wrong',
      window: 20,
    },
  ],
  // Shows (rule fixed before the measurement, on the mean of seeds 32-34) when GRPO pushes a group's
  // longest wrong answer down at least 10% less per token than its shortest, relative to Dr. GRPO,
  // and Dr. GRPO pushes them alike (within 5%).
  verdict: (m) => {
    const grpo = v(m, 0, 'length_bias/push_ratio');
    const dr = v(m, 1, 'length_bias/push_ratio');
    const lg = v(m, 0, 'completions/mean_length_wrong');
    const ld = v(m, 1, 'completions/mean_length_wrong');
    const lengthGap =
      lg > ld * 1.1
        ? ', longer under GRPO, as the paper reports'
        : ld > lg * 1.1
          ? ": longer under Dr. GRPO, the opposite of the paper's direction (at this scale the gap goes " +
            'either way from seed to seed)'
          : ': about as long under both';
    const lengths =
      `wrong answers ended ${lg.toFixed(1)} tokens long ` +
      `under GRPO and ${ld.toFixed(1)} under Dr. GRPO${lengthGap}`;
    const nums =
      `the per-token push on a group's longest wrong answer was ${pct(grpo)} of that on its shortest under ` +
      `GRPO, ${pct(dr)} under Dr. GRPO; ${lengths}`;
    return grpo <= 0.9 * dr && Math.abs(dr - 1) <= 0.05
      ? {
          shows: true,
          text:
            `Shows: GRPO's per-answer divisor let long wrong answers off lighter, Dr. GRPO's constant one ` +
            `did not (${nums}).`,
        }
      : { shows: false, text: `Does not show: the per-token push did not differ as the rule asks (${nums}).` };
  },
};
