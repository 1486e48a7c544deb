import { describe, expect, it } from 'vitest';
import { applyAssignments, defaultConfig, validateConfig } from './config.ts';
import { lossTypeNames } from './loss-types.ts';
import { getPreset, presets } from './presets.ts';

describe('run config validation', () => {
  it('accepts the defaults and every preset', () => {
    expect(validateConfig({})).toEqual(defaultConfig);
    for (const p of presets) expect(() => validateConfig(p.config)).not.toThrow();
    expect(presets.map((p) => p.id)).toEqual([
      'grpo',
      'dr_grpo',
      'dapo',
      'gspo',
      'cispo',
      'sapo',
      'luspo',
      'vespo',
      'gmpo',
      'clip_cov',
      'kl_cov',
      'reinforce_pp',
      'reinforce_pp_baseline',
      'lite_ppo',
      'rloo',
      'w_reinforce',
      'psr_only',
      'nsr_only',
    ]);
  });

  it.each([
    [{ num_generations: -4 }, /^num_generations: must be >= 2, got -4/],
    [{ epsilon: 0.3, epsilon_high: 0.2 }, /^epsilon_high: must be >= epsilon \(0\.3\)/],
    [
      { top_entropy_quantile: 0.2, random_token_fraction: 0.2 },
      /^random_token_fraction: cannot be set with top_entropy_quantile \(0\.2\)/,
    ],
    // every loss type of the table (loss-types.ts), in its order
    [{ loss_type: 'ppo' }, new RegExp(`^loss_type: must be one of ${lossTypeNames.join(' \\| ')}, got "ppo"`)],
    [{ learning_rat: 0.1 }, /^learning_rat: unknown field/],
    [{ temperature: 0 }, /^temperature: must be > 0/],
    [{ minibatches: 3 }, /^minibatches: must divide prompts_per_step × num_generations \(64\)/],
    [{ reward_weights: { correctness: 1, formatt: 1 } }, /^reward_weights\.formatt: unknown field/],
    [{ mask_truncated_completions: 'yes' }, /^mask_truncated_completions: must be true or false/],
  ])('rejects %j with a message naming the field', (patch, message) => {
    expect(() => validateConfig(patch)).toThrow(message);
  });

  it('dotted --set assignments reach nested fields and parse JSON values', () => {
    const patch = applyAssignments(getPreset('dapo').config as Record<string, unknown>, [
      'reward_weights.format=0.2',
      'difficulty.digits=2',
      'loss_type=bnpo',
      'delta=null',
    ]);
    const c = validateConfig(patch);
    expect(c.reward_weights).toEqual({ correctness: 0.9, format: 0.2, partial: 0 });
    expect(c.difficulty).toEqual({ digits: 2 });
    expect(c.loss_type).toBe('bnpo');
    expect(c.epsilon_high).toBe(0.28);
    expect(c.delta).toBeNull();
  });
});
