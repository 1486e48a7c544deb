import { v, f3, pct, sat, type Lesson } from './lesson.ts';

export const clipHigher: Lesson = {
  id: 'clip-higher',
  title: 'Clip-higher and entropy',
  paper: 'DAPO; Demystifying RL in Agentic Reasoning',
  claim:
    'DAPO raises the upper clip (epsilon_high 0.28) so low-probability tokens can grow, against entropy collapse; ' +
    '"clip higher, overlong reward shaping, and maintaining adequate policy entropy" are recommended.',
  text:
    'With a symmetric clip, a token whose probability is small can only grow by 20% per update, so exploration ' +
    'dies out. A higher upper clip lets it grow more. Compare entropy and the clip fractions, with four ' +
    'optimisation passes over four minibatches per batch, so the ratio leaves 1 far enough for the clip to act.',
  lookAt: ['entropy', 'clip_ratio/high_mean', 'clip_ratio/low_mean'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'epsilon_high = 0.2', preset: 'grpo', config: { num_iterations: 4, minibatches: 4, learning_rate: 2e-4 } },
    {
      label: 'epsilon_high = 0.28',
      preset: 'grpo',
      config: { num_iterations: 4, minibatches: 4, learning_rate: 2e-4, epsilon_high: 0.28 },
    },
  ],
  measures: [
    { description: 'mean token entropy, last 20 steps', metric: 'entropy', window: 20 },
    { description: 'fraction of tokens clipped high', metric: 'clip_ratio/high_mean', window: 150 },
  ],
  verdict: (m) => {
    const sym = v(m, 0, 'entropy');
    const high = v(m, 1, 'entropy');
    return high > sym * 1.05
      ? {
          shows: true,
          text:
            `Shows: with epsilon_high = 0.28 entropy stayed ${pct(high / sym - 1)} higher (${f3(high)} vs ` +
            `${f3(sym)}).`,
        }
      : {
          shows: false,
          text:
            `Does not show here: entropy ended ${high < sym * 0.95 ? 'lower' : 'about the same'} with ` +
            `epsilon_high = 0.28 (${f3(high)} vs ${f3(sym)}). Only ${pct(v(m, 0, 'clip_ratio/high_mean'))} ` +
            'of tokens reached the upper clip, so its height barely acts and the two runs differ mostly by ' +
            'chance.',
        };
  },
};
