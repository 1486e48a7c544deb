/**
 * Which surrogate a loss_type uses and which clip bound a token hit: plain functions of the config,
 * kept apart from the graph code (objective.ts) so the page's objective panel can use them.
 */
import type { RunConfig } from './config-fields.ts';

/**
 * The per-token surrogate a loss_type uses (its aggregation lives in the weights, advantages.ts):
 * - clip: PPO's clipped ratio (grpo, bnpo, dr_grpo, dapo, luspo — TRL's shared branch);
 * - cispo: REINFORCE weighted by the detached ratio capped at epsilon_high (MiniMax-M1, ScaleRL);
 * - sapo: a sigmoid gate of the ratio with temperatures for A > 0 and A ≤ 0 instead of the hard clip;
 * - vespo: REINFORCE weighted by a detached gamma function of the sequence's summed log-ratio;
 * - gmpo: the geometric mean over the sequence of token ratios clipped in log space (veRL's geo_mean);
 * - clip_cov: the clip, with the tokens covSelection picked dropped (veRL's clip_cov);
 * - kl_cov: the unclipped ratio · A, minus ppo_kl_coef · |logp − old| on the picked tokens (veRL's kl_cov).
 */
export type ObjectiveForm = 'clip' | 'cispo' | 'sapo' | 'vespo' | 'gmpo' | 'clip_cov' | 'kl_cov';

export function objectiveForm(lossType: RunConfig['loss_type']): ObjectiveForm {
  switch (lossType) {
    case 'cispo':
    case 'sapo':
    case 'vespo':
    case 'gmpo':
    case 'clip_cov':
    case 'kl_cov':
      return lossType;
    default:
      return 'clip';
  }
}

/**
 * Which clip bound a token hit under its form, for the records and the clip_ratio metrics: 'low' /
 * 'high' where the clipped branch was taken (clip: the ratio left [1 - epsilon, 1 + epsilon_high] on
 * the side its advantage pushes; gmpo: the same for the token log-ratio and [-epsilon, epsilon_high];
 * cispo: the ratio above its cap epsilon_high), null otherwise. sapo, vespo and kl_cov have no hard clip.
 */
export function clipSide(c: Pick<RunConfig, 'loss_type' | 'epsilon' | 'epsilon_high'>, ratio: number, logRatio: number, advantage: number): 'low' | 'high' | null {
  switch (objectiveForm(c.loss_type)) {
    case 'clip':
    case 'clip_cov':
      return ratio < 1 - c.epsilon && advantage < 0 ? 'low' : ratio > 1 + c.epsilon_high && advantage > 0 ? 'high' : null;
    case 'gmpo':
      return logRatio < -c.epsilon && advantage < 0 ? 'low' : logRatio > c.epsilon_high && advantage > 0 ? 'high' : null;
    case 'cispo':
      return ratio > c.epsilon_high ? 'high' : null;
    default:
      return null;
  }
}
