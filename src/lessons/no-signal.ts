import { v, f3, pct, sat, hardSat, type Lesson } from './lesson.ts';

export const noSignal: Lesson = {
  id: 'no-signal',
  title: 'No signal: identical rewards in a group',
  paper: 'DeepSeekMath (GRPO); ReST-RL',
  claim:
    'GRPO "faces failure due to insignificant reward variance" (ReST-RL): when every completion sampled for a ' +
    'prompt (its group) gets the same reward, that prompt gives nothing to learn from. Users meet it as "the loss ' +
    'is 0 but the rewards vary": across the batch the rewards vary, but inside every group they were identical.',
  text:
    'For each prompt GRPO samples a group of G completions and gives each an advantage: its reward compared with ' +
    "the mean reward of its own group. The advantage is the only learning signal. If the group's rewards are all " +
    'equal (all right or all wrong), every advantage is 0 and the group is silent: it teaches nothing. If a ' +
    'prompt is solved with probability p on each try, all G completions agree with probability p^G + (1 − p)^G ' +
    '(p^G is p multiplied by itself G times). Near p = 0 or p = 1 almost every group is silent, whatever the ' +
    'batch mean says. Three runs on SAT (find 0/1 values for 5 variables that make every clause true; a clause is ' +
    'an OR of 3 variables, some negated): at 8 clauses (the base policy, the shipped model before RL, solves ' +
    "about 3%) with G = 8 and with G = 16, and at the checkpoint's own level (6 clauses, where the base solves " +
    'about 26%) with G = 8. Larger groups and easier prompts are two levers against silence. Watch the ' +
    'Zero-variance groups chart (frac_reward_zero_std: the share of silent groups) next to accuracy. The loss is ' +
    'no sign of silence: it is 0 by construction in every run here (the lesson "Why is my loss zero?" shows why). ' +
    '(Dynamic sampling, the third lever, refills silent groups instead of preventing them: the lesson "Why ' +
    'groups?" measures it.)',
  lookAt: ['frac_reward_zero_std', 'accuracy', 'sampling_rounds'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'hard, G = 8', preset: 'grpo', config: { difficulty: hardSat } },
    { label: 'hard, G = 16', preset: 'grpo', config: { difficulty: hardSat, num_generations: 16 } },
    { label: 'checkpoint level, G = 8', preset: 'grpo', config: {} },
  ],
  measures: [
    {
      description: 'share of groups with zero reward variance (first sampling round)',
      metric: 'frac_reward_zero_std',
      window: 150,
    },
    { description: 'batch accuracy, last 20 steps', metric: 'accuracy', window: 20 },
  ],
  // Shows when at least 30% of the hard G = 8 run's groups are silent, and both levers cut that share:
  // G = 16 by at least 5 points and the easier level by at least 10 points.
  verdict: (m) => {
    const z = [0, 1, 2].map((i) => v(m, i, 'frac_reward_zero_std')) as [number, number, number];
    const acc = [0, 1, 2].map((i) => v(m, i, 'accuracy')) as [number, number, number];
    const nums =
      `zero-variance groups: hard G = 8 ${pct(z[0])}, hard G = 16 ${pct(z[1])}, checkpoint level ` +
      `${pct(z[2])}; batch accuracy ${f3(acc[0])}, ${f3(acc[1])}, ${f3(acc[2])}`;
    const silent = z[0] >= 0.3;
    const shows = silent && z[1] <= z[0] - 0.05 && z[2] <= z[0] - 0.1;
    if (!silent)
      return { shows: false, text: `Does not show: too few silent groups at the hard level to study (${nums}).` };
    return shows
      ? {
          shows: true,
          text:
            'Shows: most hard groups carried no signal; doubling the group or easing the level gave more of ' +
            `them a signal (${nums}).`,
        }
      : {
          shows: false,
          text:
            'Partly: the hard level left many groups silent, but a larger group or an easier level did not ' +
            `cut that share as expected (${nums}).`,
        };
  },
};
