/**
 * TRL 1.13's adaptive entropy coefficient (GRPOConfig use_adaptive_entropy, in
 * GRPOTrainer._compute_loss): the bonus coefficient applied at an optimizer step is the controller's
 * coefficient where the entropy measured at the step before was at or below entropy_target, else 0
 * (nothing is measured before the first step: 0). After each step, the mean entropy over the step's
 * trained tokens moves the coefficient by entropy_coef_delta: up (to at most entropy_coef_max) when it
 * is at or below entropy_target, down (to at least entropy_coef_min) otherwise. It starts at entropy_coef.
 */
import type { RunConfig } from './config-fields.ts';

export interface EntropyControl {
  coef: number;
  /** The mean entropy measured at the last optimizer step; null before the first (TRL's inf). */
  lastEntropy: number | null;
}

type Knobs = Pick<
  RunConfig,
  | 'entropy_coef'
  | 'use_adaptive_entropy'
  | 'entropy_coef_min'
  | 'entropy_coef_max'
  | 'entropy_coef_delta'
  | 'entropy_target'
>;

export const initialEntropyControl = (c: Pick<RunConfig, 'entropy_coef'>): EntropyControl => ({
  coef: c.entropy_coef,
  lastEntropy: null,
});

/** The entropy coefficient an optimizer step applies. */
export function appliedEntropyCoef(s: EntropyControl | null, c: Knobs): number {
  if (!c.use_adaptive_entropy || !s) return c.entropy_coef;
  return s.lastEntropy !== null && s.lastEntropy <= c.entropy_target ? s.coef : 0;
}

/** The controller after a step whose trained tokens had this mean entropy. */
export function nextEntropyControl(s: EntropyControl, meanEntropy: number, c: Knobs): EntropyControl {
  const coef =
    meanEntropy <= c.entropy_target
      ? Math.min(s.coef + c.entropy_coef_delta, c.entropy_coef_max)
      : Math.max(s.coef - c.entropy_coef_delta, c.entropy_coef_min);
  return { coef, lastEntropy: meanEntropy };
}
