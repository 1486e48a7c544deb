import { v, f3, pct, sat, hardSat, type Lesson } from './lesson.ts';

export const whyGroups: Lesson = {
  id: 'why-groups',
  title: 'Why groups? Zero-variance groups and dynamic sampling',
  paper: 'DeepSeekMath (GRPO); DAPO (dynamic sampling); ReST-RL',
  claim:
    'GRPO "faces failure due to insignificant reward variance" (ReST-RL); DAPO drops groups whose rewards are all ' +
    'equal and refills the batch.',
  text:
    'GRPO scores each completion against the other completions of the same prompt. When all of them get the same ' +
    'reward, every advantage is zero and that prompt teaches nothing. Dynamic sampling throws such groups away ' +
    'and samples more prompts until the batch is full of useful groups. Both runs train on SAT with 8 clauses, ' +
    'two more than the default: the base solves about 3% of these on the first try, so most groups come back all ' +
    'wrong. Compare the runs on the accuracy of their first sampling round, before any refill: the batch dynamic ' +
    'sampling trains on has had its all-wrong groups replaced, so its accuracy is higher by construction, not ' +
    'because the policy learned more.',
  lookAt: ['frac_reward_zero_std', 'accuracy/first_round', 'sampling_rounds'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'GRPO', preset: 'grpo', config: { difficulty: hardSat } },
    {
      label: 'GRPO + dynamic sampling',
      preset: 'grpo',
      config: { difficulty: hardSat, dynamic_sampling: true, max_refill_rounds: 2 },
    },
  ],
  measures: [
    {
      description: 'share of groups with zero reward variance (first sampling round)',
      metric: 'frac_reward_zero_std',
      window: 150,
    },
    {
      description: 'accuracy of the first sampling round (before any refill), last 20 steps',
      metric: 'accuracy/first_round',
      window: 20,
    },
  ],
  // Six seeds, not three: at 8 clauses a run either takes off or stays all wrong, and on seeds 1-3
  // that decided each seed (GRPO / dynamic sampling first-round accuracy 0.445 / 0.000, 0.000 /
  // 0.391, 0.320 / 0.431). Seeds 4 and 5 were piloted (docs/sweeps.md) and are not among these.
  seeds: [1, 2, 3, 8, 9, 10],
  // The rule of the first staging, now judged on the first round's accuracy: the trained batch's
  // accuracy (the metric it was judged on first) counts dynamic sampling's refills, which replace
  // all-wrong groups, so it rose under dynamic sampling whether or not the policy improved.
  verdict: (m) => {
    const zero = v(m, 0, 'frac_reward_zero_std');
    const gain = v(m, 1, 'accuracy/first_round') - v(m, 0, 'accuracy/first_round');
    if (zero < 0.15)
      return {
        shows: false,
        text:
          `Does not show at this difficulty: only ${pct(zero)} of GRPO's groups had zero reward variance, ` +
          `so dynamic sampling had almost nothing to replace (accuracy ${gain >= 0 ? '+' : ''}${f3(gain)}).`,
      };
    return gain > 0.03
      ? {
          shows: true,
          text:
            `Shows: ${pct(zero)} of GRPO's groups carried no signal; refilling them raised the accuracy of ` +
            `the first sampling round by ${f3(gain)}.`,
        }
      : {
          shows: false,
          text:
            `${pct(zero)} of GRPO's groups carried no signal, but refilling them did not raise the accuracy ` +
            `of the first sampling round here (${gain >= 0 ? '+' : ''}${f3(gain)}).`,
        };
  },
};
