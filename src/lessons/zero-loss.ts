import { v, pk, f3, sat, type Lesson } from './lesson.ts';

export const zeroLoss: Lesson = {
  id: 'zero-loss',
  title: 'Why is my loss zero?',
  paper: 'DeepSeekMath (GRPO); PPO (Schulman et al., 2017)',
  claim:
    'A common question from GRPO users: the logged loss starts at 0 and stays there, while the rewards rise. It ' +
    'is not a bug.',
  text:
    'First the words. The policy π is the model being trained; π_old is the same model as it was when it ' +
    'sampled the batch. For each prompt GRPO (Group Relative Policy Optimization) samples a group of ' +
    "completions, and each completion's advantage is its reward minus its group's mean reward (divided by " +
    "the group's spread): above 0 means better than the others of its group. The ratio π/π_old says how " +
    'much likelier a token has become since it was sampled. With one optimisation pass per batch (μ = 1; μ ' +
    'is the number of passes) the model has not changed yet when the loss is computed, so the ratio is ' +
    "exactly 1 and each completion's loss is minus its advantage. A group's advantages are centred on their " +
    "mean, so they add up to 0, and so do the group's losses. β (the weight of the KL penalty, which keeps " +
    'π close to a frozen copy of the starting model; KL measures how far apart two probability ' +
    'distributions are) is 0, so there is no KL term. The loss is 0 by construction, but its gradient is ' +
    "not: it is the gradient of each token's log-probability, weighted by the advantage, and it trains the " +
    'policy. Three runs: μ = 1 and β = 0 (the loss is 0); β = 0.04 (the KL term makes it positive); μ = 2 ' +
    'passes over 2 minibatches (the batch split in two halves, one update each), so after the first update ' +
    "the ratio leaves 1 and the clipped objective (PPO's loss, which caps how far one update may move the " +
    'ratio) is no longer 0. Watch the loss, Gradient norm (the size of the gradient) and Reward charts side ' +
    'by side: the loss stays flat while the reward rises.',
  lookAt: ['loss', 'grad_norm', 'reward', 'eval'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'μ = 1, β = 0', preset: 'grpo', config: {} },
    { label: 'β = 0.04', preset: 'grpo', config: { beta: 0.04 } },
    { label: 'μ = 2, 2 minibatches', preset: 'grpo', config: { num_iterations: 2, minibatches: 2 } },
  ],
  measures: [
    { description: 'mean |loss| over all steps', metric: 'loss', window: 150, abs: true },
    { description: 'mean gradient norm over all steps', metric: 'grad_norm', window: 150 },
    { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
  ],
  // Shows when the μ = 1, β = 0 run's loss stays below 1e-5 in magnitude while its gradient norm
  // averages over 0.1 and its held-out pass@1 rises 5 points over the base, and each of the other two
  // runs' |loss| is at least 100 times the first run's.
  verdict: (m) => {
    const loss = [0, 1, 2].map((i) => v(m, i, '|loss|')) as [number, number, number];
    const grad = v(m, 0, 'grad_norm');
    const gain = pk(m.runs[0]?.final_pass_at_k, 1) - pk(m.base_pass_at_k, 1);
    const e = (x: number) => x.toExponential(1);
    const nums =
      `mean |loss|: μ = 1, β = 0 ${e(loss[0])}; β = 0.04 ${e(loss[1])}; μ = 2 ${e(loss[2])}. Gradient norm ` +
      `of the first run ${f3(grad)}, its held-out pass@1 ${gain >= 0 ? '+' : ''}${f3(gain)} over the base`;
    const zeroButLearns = loss[0] < 1e-5 && grad > 0.1 && gain > 0.05;
    const othersMove = loss[1] >= 100 * loss[0] && loss[2] >= 100 * loss[0];
    return zeroButLearns && othersMove
      ? {
          shows: true,
          text:
            'Shows: the loss stayed at 0 while the gradient trained the policy, and β > 0 or μ > 1 moved ' +
            `the loss off 0 (${nums}).`,
        }
      : { shows: false, text: `Does not show as stated (${nums}).` };
  },
};
