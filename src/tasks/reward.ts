/**
 * Reward shaping: turns a verdict into the scalar the trainer optimises.
 *
 *   total = wC·correctness + wF·format + wP·partial + overlong + length
 *
 * Defaults follow TinyZero's Countdown scores: a right answer in the right format gets 1.0, a
 * well-formed wrong one 0.1, no answer tag 0 (wC = 0.9, wF = 0.1, wP = 0). A right answer in a
 * broken format gets 0.9.
 * overlong (DAPO's soft overlong punishment): 0 up to maxLength - cacheLength tokens, then linear
 * down to -penalty at maxLength (and -penalty beyond).
 * length (optional): -weight · min(1, |L - target| / target), pulling lengths toward a target.
 */
import type { RewardComponents, Verdict } from './types.ts';

export interface RewardWeights {
  correctness: number;
  format: number;
  partial: number;
}

export interface OverlongConfig {
  enabled: boolean;
  /** Width of the soft window before the cap, in tokens. */
  cacheLength: number;
  /** Magnitude of the penalty at the cap. */
  penalty: number;
}

export interface TargetLengthConfig {
  target: number;
  weight: number;
}

export interface RewardConfig {
  weights: RewardWeights;
  overlong: OverlongConfig;
  targetLength?: TargetLengthConfig;
}

export interface ShapeRewardInput {
  /** Missing fields take DEFAULT_REWARD_CONFIG's values. */
  weights?: Partial<RewardWeights>;
  overlong?: Partial<OverlongConfig>;
  targetLength?: TargetLengthConfig;
  /** Completion length in tokens. */
  completionLength: number;
  /** The generation cap in tokens. */
  maxLength: number;
}

export interface ShapedReward {
  total: number;
  /** Weighted contributions; they sum to `total`. */
  components: { correctness: number; format: number; partial: number; overlong: number; length: number };
  /** The verifier's unweighted components. */
  raw: RewardComponents;
}

export const DEFAULT_REWARD_CONFIG: RewardConfig = {
  weights: { correctness: 0.9, format: 0.1, partial: 0 },
  overlong: { enabled: false, cacheLength: 16, penalty: 1 },
};

/** DAPO soft overlong punishment for a completion of `length` tokens. */
export function overlongPenalty(length: number, maxLength: number, cfg: OverlongConfig): number {
  if (!cfg.enabled || !(maxLength > 0)) return 0;
  const start = maxLength - Math.max(0, cfg.cacheLength);
  if (length <= start) return 0;
  if (length >= maxLength || cfg.cacheLength <= 0) return -cfg.penalty;
  return (-cfg.penalty * (length - start)) / cfg.cacheLength;
}

export function targetLengthTerm(length: number, cfg: TargetLengthConfig | undefined): number {
  if (!cfg || !(cfg.target > 0) || cfg.weight === 0) return 0;
  return -cfg.weight * Math.min(1, Math.abs(length - cfg.target) / cfg.target);
}

export function shapeReward(verdict: Verdict, input: ShapeRewardInput): ShapedReward {
  const weights = { ...DEFAULT_REWARD_CONFIG.weights, ...input.weights };
  const overlongCfg = { ...DEFAULT_REWARD_CONFIG.overlong, ...input.overlong };
  const raw = verdict.components;
  const fin = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : 0);
  const components = {
    correctness: weights.correctness * fin(raw.correctness),
    format: weights.format * fin(raw.format),
    partial: weights.partial * fin(raw.partial),
    overlong: overlongPenalty(input.completionLength, input.maxLength, overlongCfg),
    length: targetLengthTerm(input.completionLength, input.targetLength),
  };
  const total =
    components.correctness + components.format + components.partial + components.overlong + components.length;
  return { total, components, raw };
}

/** The reward a perfect completion gets under these weights (no length terms). */
export function maxReward(weights: Partial<RewardWeights> = {}): number {
  const w = { ...DEFAULT_REWARD_CONFIG.weights, ...weights };
  return w.correctness + w.format + w.partial;
}
