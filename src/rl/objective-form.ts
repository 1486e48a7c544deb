/**
 * The objective forms (loss-types.ts says which loss_type uses which): the scalar knobs each form's
 * graph reads, whether it reads the covariance selection, the clip bound a token hit, and how the
 * page's objective panel writes its formula and knobs. Plain data and functions of the config, kept
 * apart from the graph code (objective.ts) so the panel can use them.
 */
import { fieldTable, type RunConfig } from './config-fields.ts';
import { lossTypes, type ObjectiveForm } from './loss-types.ts';

export type { ObjectiveForm } from './loss-types.ts';

/** The forms' scalar knobs, by graph input name (each form lists those it reads). */
export const objectiveKnobNames = [
  'clip_low',
  'clip_high',
  'delta',
  'cispo_max',
  'sapo_temperature_pos',
  'sapo_temperature_neg',
  'vespo_k_pos',
  'vespo_lambda_pos',
  'vespo_k_neg',
  'vespo_lambda_neg',
  'log_clip_low',
  'log_clip_high',
  'ppo_kl_coef',
] as const;
export type ObjectiveKnobName = (typeof objectiveKnobNames)[number];

/** The config fields of the "Objective" group (config-fields.ts), by type. */
type ObjectiveFieldKey = {
  [K in keyof typeof fieldTable]: (typeof fieldTable)[K]['group'] extends 'Objective' ? K : never;
}[keyof typeof fieldTable];
/** Fields outside that group the panel also shows. */
const alsoShown = [
  'max_completion_length',
  'minibatches',
  'num_iterations',
] as const satisfies readonly (keyof RunConfig)[];

/**
 * The objective knobs in force when a step ran, what the objective panel fills the formula with: every
 * field of the config's "Objective" group, and the batch shape. A field added to that group comes along.
 */
export type ObjectiveSettings = Pick<RunConfig, ObjectiveFieldKey | (typeof alsoShown)[number]>;

export const objectiveSettingKeys = [
  ...(Object.keys(fieldTable) as (keyof RunConfig)[]).filter((k) => fieldTable[k].group === 'Objective'),
  ...alsoShown,
] as (keyof ObjectiveSettings)[];

export function objectiveSettings(c: RunConfig): ObjectiveSettings {
  return Object.fromEntries(
    objectiveSettingKeys.map((k) => [k, structuredClone(c[k])]),
  ) as unknown as ObjectiveSettings;
}

type Side = 'low' | 'high' | null;
type ClipConfig = Pick<RunConfig, 'epsilon' | 'epsilon_high'>;
/** The panel's number format (src/ui/derive/channels.ts num). */
type Fmt = (v: number, digits?: number) => string;

interface FormDecl {
  /** The scalar graph inputs the form reads; objectiveScalars (objective.ts) fills them from the config. */
  knobs: readonly ObjectiveKnobName[];
  /** Reads the per-token input cov_select (cov-select.ts picks the tokens). */
  covSelect: boolean;
  /**
   * Which clip bound a token hit, for the records and the clip_ratio metrics: 'low' / 'high' where the
   * clipped branch was taken, null otherwise (forms without a hard clip: always null).
   */
  clipSide?: (c: ClipConfig, ratio: number, logRatio: number, advantage: number) => Side;
  /** The panel's ratio and obj lines, given the ratio line of the importance-sampling level. */
  formula: (ratioLine: string) => string;
  /** The panel's line of knobs with their values; `range`: it is a clip range. */
  knobLine: (s: ObjectiveSettings, num: Fmt) => string;
  range: boolean;
  /** What the panel says of a token on the clipped branch. */
  clippedNote?: string;
}

const ratioClip = (c: ClipConfig, ratio: number, _l: number, a: number): Side =>
  ratio < 1 - c.epsilon && a < 0 ? 'low' : ratio > 1 + c.epsilon_high && a > 0 ? 'high' : null;
const clipRange = (s: ObjectiveSettings, num: Fmt) => `[${num(1 - s.epsilon, 4)}, ${num(1 + s.epsilon_high, 4)}]`;

export const objectiveForms: Record<ObjectiveForm, FormDecl> = {
  clip: {
    knobs: ['clip_low', 'clip_high', 'delta'],
    covSelect: false,
    clipSide: ratioClip,
    formula: (ratio) => `${ratio}\nobj    = min(min(ratio, δ) · A, clip(ratio, 1 − ε, 1 + ε_high) · A)`,
    knobLine: (s, num) =>
      `${clipRange(s, num)}${s.delta !== null ? ` · unclipped ratio capped at δ = ${s.delta}` : ''}`,
    range: true,
  },
  cispo: {
    knobs: ['cispo_max'],
    covSelect: false,
    clipSide: (c, ratio) => (ratio > c.epsilon_high ? 'high' : null),
    formula: (ratio) =>
      `${ratio}\n` +
      `obj    = sg(min(ratio, ε_max)) · A · logp   (CISPO: ε_max = epsilon_high; sg = no gradient through the weight)`,
    knobLine: (s, num) => `ratio capped at ε_max = epsilon_high = ${num(s.epsilon_high, 4)} (no lower bound)`,
    range: false,
    clippedNote: ' — the ratio is above ε_max: its weight is ε_max (the token still gets a gradient)',
  },
  sapo: {
    knobs: ['sapo_temperature_pos', 'sapo_temperature_neg'],
    covSelect: false,
    formula: (ratio) =>
      `${ratio}\nobj    = sigmoid(τ · (ratio − 1)) · 4 / τ · A   (SAPO: τ = τ_pos if A > 0 else τ_neg)`,
    knobLine: (s, num) =>
      `no hard clip; τ_pos = ${num(s.sapo_temperature_pos, 4)}, τ_neg = ${num(s.sapo_temperature_neg, 4)}`,
    range: false,
  },
  vespo: {
    knobs: ['vespo_k_pos', 'vespo_lambda_pos', 'vespo_k_neg', 'vespo_lambda_neg'],
    covSelect: false,
    formula: (ratio) =>
      `${ratio}\n` +
      `obj    = sg(φ) · A · logp,  φ = exp(λ + k · log w − λ · w),  log w = Σ over the sequence of (logp − old)\n` +
      `         (VESPO: k, λ = the _pos knobs if A ≥ 0 else the _neg ones; sg = no gradient through φ)`,
    knobLine: (s, num) =>
      `no hard clip; A ≥ 0: k = ${num(s.vespo_k_pos, 4)}, λ = ${num(s.vespo_lambda_pos, 4)}` +
      `; A < 0: k = ${num(s.vespo_k_neg, 4)}, λ = ${num(s.vespo_lambda_neg, 4)}`,
    range: false,
  },
  gmpo: {
    knobs: ['log_clip_low', 'log_clip_high'],
    covSelect: false,
    clipSide: (c, _r, l, a) => (l < -c.epsilon && a < 0 ? 'low' : l > c.epsilon_high && a > 0 ? 'high' : null),
    // GMPO's ratio is its own: the geometric mean of the clipped token ratios, whatever the level.
    formula: () =>
      `ratio  = exp(mean over the sequence of l′),  l′ = logp − old clipped to [−ε, ε_high] on the side A pushes\n` +
      `obj    = ratio · A   (GMPO: the geometric mean of the clipped token ratios)`,
    knobLine: (s, num) => `token log-ratio clipped to [${num(-s.epsilon, 4)}, ${num(s.epsilon_high, 4)}]`,
    range: true,
  },
  clip_cov: {
    knobs: ['clip_low', 'clip_high'],
    covSelect: true,
    clipSide: ratioClip,
    formula: (ratio) =>
      `${ratio}\n` +
      `obj    = min(ratio · A, clip(ratio, 1 − ε, 1 + ε_high) · A) · (1 − picked)\n` +
      `         (Clip-Cov: a few tokens with (A − mean A)·(logp − mean logp) in (lb, ub)` +
      ` are picked at random and dropped)`,
    knobLine: (s, num) =>
      `${clipRange(s, num)}` +
      `; picked: ${num(s.clip_cov_ratio, 4)} of the tokens (at least 1)` +
      ` with covariance in (${s.clip_cov_lb}, ${s.clip_cov_ub})`,
    range: true,
  },
  kl_cov: {
    knobs: ['ppo_kl_coef'],
    covSelect: true,
    formula: (ratio) =>
      `${ratio}\n` +
      `obj    = ratio · A − picked · ppo_kl_coef · |logp − old|\n` +
      `         (KL-Cov: the tokens of largest (A − mean A)·(logp − mean logp) are picked; no clip)`,
    knobLine: (s, num) =>
      `no clip; picked: ${num(s.kl_cov_ratio, 4)} of the tokens (at least 1)` +
      `, penalty ppo_kl_coef = ${num(s.ppo_kl_coef, 4)}`,
    range: false,
  },
};

export function objectiveForm(lossType: RunConfig['loss_type']): ObjectiveForm {
  return lossTypes[lossType].form;
}

/** Which clip bound a token hit under its loss type's form (objectiveForms' clipSide). */
export function clipSide(
  c: Pick<RunConfig, 'loss_type' | 'epsilon' | 'epsilon_high'>,
  ratio: number,
  logRatio: number,
  advantage: number,
): Side {
  return objectiveForms[objectiveForm(c.loss_type)].clipSide?.(c, ratio, logRatio, advantage) ?? null;
}
