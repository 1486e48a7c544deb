import type { RunConfig } from './config.ts';

export interface Preset {
  id: string;
  title: string;
  paper: string;
  explanation: string;
  /** Only the fields that differ from the defaults: a preset is a value of the config, not code. */
  config: Partial<RunConfig>;
}

export const presets: Preset[] = [
  {
    id: 'grpo',
    title: 'GRPO',
    paper: 'DeepSeekMath (Shao et al., 2024)',
    explanation:
      'Group Relative Policy Optimization: sample a group of completions per prompt and use each reward ' +
      'minus the group mean, divided by the group standard deviation, as the advantage of every token. No ' +
      'value network. Token losses are averaged per sequence, then over sequences, and the PPO ratio is ' +
      'clipped at 1 ± epsilon. Groups where every completion gets the same reward have zero advantage and ' +
      'teach nothing; ReST-RL notes GRPO "faces failure due to insignificant reward variance".',
    config: { loss_type: 'grpo', scale_rewards: 'group', epsilon: 0.2, epsilon_high: 0.2 },
  },
  {
    id: 'dr_grpo',
    title: 'Dr. GRPO',
    paper: 'Understanding R1-Zero-Like Training: A Critical Perspective (Liu et al., 2025)',
    explanation:
      "GRPO done right: removes the two normalisations that bias GRPO. Dividing each sequence's loss by " +
      'its own length rewards long wrong answers (their per-token penalty shrinks), and dividing ' +
      'advantages by the group std over-weights prompts that are nearly always right or wrong. Dr. GRPO ' +
      'sums token losses and divides by a constant (generation budget), and uses the plain group-mean ' +
      'advantage.',
    config: { loss_type: 'dr_grpo', scale_rewards: 'none' },
  },
  {
    id: 'dapo',
    title: 'DAPO',
    paper: 'DAPO: An Open-Source LLM Reinforcement Learning System at Scale (Yu et al., 2025)',
    explanation:
      'Four changes to GRPO: clip-higher (a larger upper clip, epsilon_high = 0.28, so unlikely tokens ' +
      'can grow and entropy does not collapse), dynamic sampling (drop groups whose rewards are all equal ' +
      'and refill the batch), token-level loss (every token in the batch weighs the same), and overlong ' +
      'reward shaping (a soft penalty in a window before the length cap). "Demystifying RL in Agentic ' +
      'Reasoning" recommends "clip higher, overlong reward shaping, and maintaining adequate policy ' +
      'entropy".',
    config: {
      loss_type: 'dapo',
      epsilon: 0.2,
      epsilon_high: 0.28,
      dynamic_sampling: true,
      overlong_penalty: true,
      beta: 0,
    },
  },
  {
    id: 'gspo',
    title: 'GSPO',
    paper: 'Group Sequence Policy Optimization (Zheng et al., 2025)',
    explanation:
      'Uses a "response level importance ratio": the geometric mean of the token ratios of a completion, ' +
      'shared by all its tokens, clipped at the sequence level with a much tighter range. SSPO notes that ' +
      'because "all the response tokens share a common importance ratio, extreme values can [lead] to the ' +
      'entire response being mistakenly discarded"; LUSPO reports a length bias causing "response length ' +
      'collapse".',
    config: { importance_sampling_level: 'sequence', epsilon: 3e-4, epsilon_high: 4e-4, loss_type: 'grpo' },
  },
  {
    id: 'cispo',
    title: 'CISPO',
    paper: 'MiniMax-M1 (MiniMax, 2025); ScaleRL: The Art of Scaling RL Compute for LLMs (2025)',
    explanation:
      'Clipped IS-weight Policy Optimization: instead of clipping the objective (which silences a token ' +
      'once its ratio leaves the range), clip the importance weight itself and keep every token in the ' +
      'gradient: the loss is −sg(min(ratio, ε_max))·A·logp, the weight detached, averaged over all tokens ' +
      'of the batch. Rare tokens that PPO-style clipping would drop keep contributing. TRL takes ε_max ' +
      'from epsilon_high and recommends 5, as ScaleRL does.',
    config: { loss_type: 'cispo', epsilon_high: 5 },
  },
  {
    id: 'sapo',
    title: 'SAPO',
    paper: 'Soft Adaptive Policy Optimization (Gao et al., 2025)',
    explanation:
      'Replaces the hard clip with a smooth gate: each token counts sigmoid(τ·(ratio − 1))·4/τ times its ' +
      'advantage, so its gradient fades as the ratio moves away from 1 instead of dropping to zero at a ' +
      'clip edge. Tokens with negative advantage get a slightly higher temperature (1.05 against 1.0), ' +
      'fading faster. Token losses are averaged per sequence, then over sequences, as in GRPO.',
    config: { loss_type: 'sapo', sapo_temperature_pos: 1, sapo_temperature_neg: 1.05 },
  },
  {
    id: 'luspo',
    title: 'LUSPO',
    paper: 'Length-Unbiased Sequence Policy Optimization (2026)',
    explanation:
      'GSPO with the length bias removed: GSPO has a length bias causing "response length collapse" ' +
      '(LUSPO). LUSPO keeps the sequence-level ratio and its tight clip but sums each sequence’s token ' +
      'losses instead of averaging them, so a sequence weighs by its length; then it averages over ' +
      'sequences.',
    config: { loss_type: 'luspo', importance_sampling_level: 'sequence', epsilon: 3e-4, epsilon_high: 4e-4 },
  },
  {
    id: 'vespo',
    title: 'VESPO',
    paper: 'Variational Sequence-Level Soft Policy Optimization (2026)',
    explanation:
      'No clip at all: every token of a completion is weighted by one detached gamma function of the ' +
      'completion’s importance ratio w (the product of its token ratios), φ(w) = exp(λ + k·log w − λ·w), ' +
      'which is 1 at w = 1 and falls off on both sides — k sets how fast for w < 1, λ for w > 1, with ' +
      'separate values for positive and negative advantages. Averaged over all tokens of the batch.',
    config: { loss_type: 'vespo', importance_sampling_level: 'token' },
  },
  {
    id: 'gmpo',
    title: 'GMPO',
    paper: 'Geometric-Mean Policy Optimization (Zhao et al., 2025)',
    explanation:
      'Optimises the geometric mean of the token ratios of a completion instead of their arithmetic mean: ' +
      'one outlier token ratio moves a geometric mean far less, so updates are steadier and a wider clip ' +
      'range can be used — the token log-ratios are clipped to [−0.4, 0.4]. As in veRL (loss_mode ' +
      'geo_mean); TRL has no such loss_type.',
    config: { loss_type: 'gmpo', epsilon: 0.4, epsilon_high: 0.4 },
  },
  {
    id: 'clip_cov',
    title: 'Clip-Cov',
    paper: 'The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models (Cui et al., 2025)',
    explanation:
      'Entropy collapses because a few tokens whose log-probability and advantage covary strongly ' +
      'dominate the update. Clip-Cov drops the loss and gradient of a small random share of tokens whose ' +
      'covariance (A − mean A)·(logp − mean logp) lies between clip_cov_lb and clip_cov_ub, and keeps the ' +
      'clipped objective for the rest (token-level mean, as veRL). veRL’s default share, 2e-4, is for ' +
      'batches of millions of tokens; on the playground’s ~1,000-token batch that is one token, so this ' +
      'preset drops 2%.',
    config: { loss_type: 'clip_cov', clip_cov_ratio: 0.02, clip_cov_lb: 1, clip_cov_ub: 5 },
  },
  {
    id: 'kl_cov',
    title: 'KL-Cov',
    paper: 'The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models (Cui et al., 2025)',
    explanation:
      'The same diagnosis as Clip-Cov, a softer cure: no clip at all, but the tokens of largest ' +
      'covariance (A − mean A)·(logp − mean logp) get a penalty ppo_kl_coef·|logp − old| that holds them ' +
      'near the sampling policy (token-level mean, as veRL). veRL’s default share is 2e-4 of the tokens; ' +
      'on the playground’s ~1,000-token batch this preset penalises 1%.',
    config: { loss_type: 'kl_cov', kl_cov_ratio: 0.01, ppo_kl_coef: 1 },
  },
  {
    id: 'reinforce_pp',
    title: 'REINFORCE++',
    paper: 'REINFORCE++: An Efficient RLHF Algorithm with Robustness to Both Prompt and Reward Models (Hu, 2025)',
    explanation:
      'No group baseline at all: each completion’s reward is normalised against the whole batch (mean and ' +
      'std over every completion token, so a long completion counts more), as veRL’s reinforce_plus_plus ' +
      'does, and the PPO clip keeps the update near the sampling policy. Groups whose completions all got ' +
      'the same reward still teach here, against the batch. (The paper also puts a KL penalty into the ' +
      'reward; the playground keeps KL as the loss term beta.)',
    config: { advantage_estimator: 'reinforce_plus_plus', loss_type: 'dapo' },
  },
  {
    id: 'reinforce_pp_baseline',
    title: 'REINFORCE++-baseline',
    paper: 'REINFORCE++: An Efficient RLHF Algorithm with Robustness to Both Prompt and Reward Models (Hu, 2025)',
    explanation:
      'REINFORCE++ with the group mean subtracted first (a per-prompt baseline, as GRPO), then whitened ' +
      'over the whole batch’s tokens instead of divided by each group’s std — so prompts the model nearly ' +
      'always gets right or wrong are not blown up by a tiny std. veRL’s reinforce_plus_plus_baseline.',
    config: { advantage_estimator: 'reinforce_plus_plus_baseline', loss_type: 'dapo' },
  },
  {
    id: 'lite_ppo',
    title: 'Lite PPO',
    paper: 'Tricks or Traps? A Deep Dive into RL for LLM Reasoning (Liu et al., 2025)',
    explanation:
      'A "minimalist combination of two techniques" with the vanilla PPO loss: advantages centred by the ' +
      'group mean but scaled by the batch-level std, and token-level loss aggregation. The paper reports ' +
      'it "surpassing strategies like GRPO and DAPO".',
    config: { scale_rewards: 'batch', loss_type: 'bnpo' },
  },
  {
    id: 'rloo',
    title: 'RLOO',
    paper:
      'Back to Basics: Revisiting REINFORCE Style Optimization for Learning from Human Feedback (Ahmadian ' +
      'et al., 2024)',
    explanation:
      "REINFORCE with a leave-one-out baseline: each completion's advantage is its reward minus the mean " +
      'reward of the other completions of the same prompt. Unbiased, no std scaling, on-policy (a single ' +
      'update per batch, so the ratio stays at 1 and clipping never triggers).',
    config: { advantage_estimator: 'rloo', scale_rewards: 'none', num_iterations: 1, minibatches: 1 },
  },
  {
    id: 'w_reinforce',
    title: 'W-REINFORCE',
    paper: 'The Surprising Effectiveness of Negative Reinforcement in LLM Reasoning (Zhu et al., 2025)',
    explanation:
      'Splits the learning signal into positive sample reinforcement (PSR: raise the probability of ' +
      'correct completions) and negative sample reinforcement (NSR: push down wrong ones), and "upweights ' +
      'NSR": correct completions get +lambda (0.1), wrong ones -1. NSR alone "consistently improves ' +
      'performance over the base model across the entire Pass@k spectrum (k up to 256)".',
    config: { advantage_estimator: 'signed', scale_rewards: 'none', positive_weight: 0.1, negative_weight: 1 },
  },
  {
    id: 'psr_only',
    title: 'PSR only',
    paper: 'The Surprising Effectiveness of Negative Reinforcement in LLM Reasoning (Zhu et al., 2025)',
    explanation:
      'Positive sample reinforcement alone: train only on correct completions (+1), ignore wrong ones. ' +
      'The paper finds it improves Pass@1 but degrades Pass@k at larger k: the policy sharpens onto ' +
      'answers it already finds.',
    config: { advantage_estimator: 'signed', scale_rewards: 'none', positive_weight: 1, negative_weight: 0 },
  },
  {
    id: 'nsr_only',
    title: 'NSR only',
    paper: 'The Surprising Effectiveness of Negative Reinforcement in LLM Reasoning (Zhu et al., 2025)',
    explanation:
      'Negative sample reinforcement alone: only push down wrong completions (-1), never reinforce ' +
      'correct ones. Probability mass moves to the alternatives the model already holds; the paper ' +
      'reports it "consistently improves performance over the base model across the entire Pass@k ' +
      'spectrum (k up to 256)".',
    config: { advantage_estimator: 'signed', scale_rewards: 'none', positive_weight: 0, negative_weight: 1 },
  },
];

export function getPreset(id: string): Preset {
  const p = presets.find((x) => x.id === id);
  if (!p) throw new Error(`unknown preset "${id}" (known: ${presets.map((x) => x.id).join(', ')})`);
  return p;
}
