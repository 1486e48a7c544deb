import { Graph, type Tensor } from '../engine/graph.ts';
import type { AdamWConfig } from '../engine/optimizer.ts';
import type { DType } from '../engine/shape.ts';
import type { ModelConfig } from '../model/config.ts';
import { completionStats, sharedInputs, trainState } from '../model/graphs.ts';
import type { RunConfig } from './config-fields.ts';
import { objectiveForm, objectiveForms, type ObjectiveForm, type ObjectiveKnobName } from './objective-form.ts';

export {
  clipSide,
  objectiveForm,
  objectiveKnobNames,
  type ObjectiveForm,
  type ObjectiveKnobName,
} from './objective-form.ts';

/**
 * The objective's graph inputs, by name. `objectiveInputs` declares them and `rlGraphFeeds` fills
 * them (rl-feeds.ts), both through these names (and `ObjectiveFeeds`), so a name either side misspells or leaves
 * out does not compile; objective-feeds.test.ts checks the built feeds against the graph's inputs.
 * Every form declares these:
 */
export const objectiveInputNames = [
  'old_logp',
  'ref_logp',
  'advantages',
  'weights',
  'mask',
  'seq_len',
  'beta',
  'entropy_coef',
  'sequence_level',
  'use_k3',
  'use_bias_correction_kl',
] as const;
/** Clip-Cov / KL-Cov only: the tokens covSelection (cov-select.ts) picked. */
export const covSelectInput = 'cov_select';
/** With off_policy_mask_threshold set only: TRL's off-policy sequence mask threshold. */
export const offPolicyInput = 'off_policy_mask_threshold';

export type ObjectiveInputName = (typeof objectiveInputNames)[number];

/** The objective's feeds (of any value type: device tensors, the float64 reference's arrays). */
export type ObjectiveFeeds<T> = Record<ObjectiveInputName, T> & {
  [K in ObjectiveKnobName | typeof covSelectInput | typeof offPolicyInput]?: T;
};

/** A cap that never binds (delta off). */
export const HUGE = 1e30;

type KnobConfig = Pick<
  RunConfig,
  | 'loss_type'
  | 'epsilon'
  | 'epsilon_high'
  | 'delta'
  | 'ppo_kl_coef'
  | 'sapo_temperature_pos'
  | 'sapo_temperature_neg'
  | 'vespo_k_pos'
  | 'vespo_lambda_pos'
  | 'vespo_k_neg'
  | 'vespo_lambda_neg'
>;

/** Every knob's value under a config (objectiveForms in objective-form.ts says which each form reads). */
export function knobValues(c: KnobConfig): Record<ObjectiveKnobName, number> {
  return {
    clip_low: 1 - c.epsilon,
    clip_high: 1 + c.epsilon_high,
    delta: c.delta ?? HUGE,
    // TRL: "When used with loss_type='cispo', [epsilon_high] corresponds to the ε_max param".
    cispo_max: c.epsilon_high,
    sapo_temperature_pos: c.sapo_temperature_pos,
    sapo_temperature_neg: c.sapo_temperature_neg,
    vespo_k_pos: c.vespo_k_pos,
    vespo_lambda_pos: c.vespo_lambda_pos,
    vespo_k_neg: c.vespo_k_neg,
    vespo_lambda_neg: c.vespo_lambda_neg,
    // GMPO clips the token log-ratio to [-epsilon, epsilon_high].
    log_clip_low: -c.epsilon,
    log_clip_high: c.epsilon_high,
    ppo_kl_coef: c.ppo_kl_coef,
  };
}

/** The values of the form's scalar inputs under a config (what rlGraphFeeds and the tests feed). */
export function objectiveScalars(c: KnobConfig): { [K in ObjectiveKnobName]?: number } {
  const all = knobValues(c);
  return Object.fromEntries(objectiveForms[objectiveForm(c.loss_type)].knobs.map((k) => [k, all[k]]));
}

/** Per-token inputs of the policy-gradient objective, all [rows, len] unless noted. */
export interface ObjectiveInputs {
  form: ObjectiveForm;
  logp: Tensor; // current policy log-prob of each completion token (the differentiated input)
  entropy: Tensor; // current policy entropy per token
  oldLogp: Tensor; // sampling-time log-probs
  refLogp: Tensor; // reference policy log-probs (ignored when beta = 0)
  advantages: Tensor; // the sequence's advantage, on each of its tokens
  weights: Tensor; // aggregation weight per token (0 off the completion): loss_type lives here
  mask: Tensor; // 1 on completion tokens that count for the sequence ratio
  seqLen: Tensor; // [rows, 1] number of masked tokens (>= 1)
  beta: Tensor; // [] KL coefficient
  entropyCoef: Tensor; // []
  sequenceLevel: Tensor; // [] bool: GSPO's sequence-level ratio
  useK3: Tensor; // [] bool: k3 estimator, else k1
  biasCorrectionKl: Tensor; // [] bool: the KL term times the importance ratio (TRL's use_bias_correction_kl)
  /** [] the form's knobs, named as in objectiveForms. */
  knobs: { [K in ObjectiveKnobName]?: Tensor };
  /** [rows, len] clip_cov / kl_cov only: 1 on the tokens covSelection (cov-select.ts) picked. */
  covSelect?: Tensor;
  /**
   * [] off_policy_mask_threshold set only: the sequence-mean KL above which a negative-advantage sequence is dropped.
   */
  offPolicyThreshold?: Tensor;
}

/** What else a graph variant reads beyond its form: the off-policy sequence mask. */
export interface ObjectiveOptions {
  offPolicyMask?: boolean;
}

export const objectiveOptions = (c: Pick<RunConfig, 'off_policy_mask_threshold'>): ObjectiveOptions => ({
  offPolicyMask: c.off_policy_mask_threshold !== null,
});

/**
 * What the graph outputs per token, so nothing downstream recomputes the objective: the trainer
 * copies these into the rollout records, and the inspector shows them as they are.
 */
export interface ObjectiveOutputs {
  loss: Tensor;
  ratio: Tensor;
  kl: Tensor;
  objective: Tensor; // the surrogate of the form (clip: min(min(ratio, delta)·A, clip(ratio)·A))
  tokenLoss: Tensor; // -obj + beta·kl - entropy_coef·entropy (before aggregation)
  contribution: Tensor; // weight × tokenLoss: each token's contribution to the loss
}

/** log of float32's largest value: exp above it is +inf, which TRL's VESPO turns into 0 (nan_to_num). */
const LOG_FLOAT32_MAX = Math.log(3.4028234663852886e38);

/**
 * The GRPO-family objective: one graph per form, the knobs as inputs (presets only change inputs).
 *   ratio  = exp(logp - old)                     (token level), or
 *          = exp(mean over the sequence of (logp - old)) on each token (sequence level, GSPO)
 *   obj    = clip:  min(min(ratio, delta) · A, clip(ratio, 1 - eps, 1 + eps_high) · A)
 *            cispo: sg(min(ratio, eps_high)) · A · logp
 *            sapo:  sigmoid(tau · (ratio - 1)) · 4 / tau · A,   tau = A > 0 ? tau_pos : tau_neg
 *            vespo: sg(phi) · A · logp,  phi = exp(lambda + k·log w - lambda·w),
 *                   log w = clamp(sum over the sequence of clamp(logp - old, ±20), log 1e-8, 20),
 *                   (k, lambda) = A >= 0 ? (k_pos, lambda_pos) : (k_neg, lambda_neg)
 *            gmpo:  A · exp(mean over the sequence of l'),  l' = sgn(A)·min(sgn(A)·l, sgn(A)·clamp(l, -eps, eps_high)),
 *                   l = clamp(logp - old, ±20); ratio is that geometric mean
 *            clip_cov: the clip's obj · (1 - picked)          (no delta)
 *            kl_cov:   ratio · A - picked · ppo_kl_coef · |logp - old|
 *   keep   = A >= 0 or mean over the sequence of (old - sg(logp)) <= off_policy_mask_threshold
 *            (1 without the threshold; TRL's get_off_policy_mask, DeepSeek-V3.2's off-policy sequence mask)
 *   kl     = exp(ref - logp) - (ref - logp) - 1  (k3)   or   logp - ref  (k1)
 *   token  = -obj · keep + beta · kl · (use_bias_correction_kl ? ratio : 1) - entropy_coef · entropy
 *   loss   = sum(weight · token)
 * sg() stops the gradient (torch's detach), as TRL's code does for cispo and vespo.
 */
export function policyObjective(g: Graph, x: ObjectiveInputs): ObjectiveOutputs {
  const shape = [...x.logp.shape];
  const k = (name: ObjectiveKnobName) => {
    const t = x.knobs[name];
    if (!t) throw new Error(`objective form ${x.form}: missing the scalar input "${name}"`);
    return t;
  };
  const picked = () => {
    if (!x.covSelect) throw new Error(`objective form ${x.form}: missing the per-token input "cov_select"`);
    return x.covSelect;
  };
  const seqMean = (t: Tensor) => g.expand(g.div(g.reduceSum(g.mul(t, x.mask), [1], true), x.seqLen), shape);
  const logRatio = g.sub(x.logp, x.oldLogp);
  const coef = g.exp(g.where(x.sequenceLevel, seqMean(logRatio), logRatio));
  let ratio = coef;
  let obj: Tensor;
  switch (x.form) {
    case 'clip': {
      const unclipped = g.mul(g.minimum(ratio, k('delta')), x.advantages);
      const clipped = g.mul(g.minimum(g.maximum(ratio, k('clip_low')), k('clip_high')), x.advantages);
      obj = g.minimum(unclipped, clipped);
      break;
    }
    case 'cispo':
      obj = g.mul(g.mul(g.stopGradient(g.minimum(ratio, k('cispo_max'))), x.advantages), x.logp);
      break;
    case 'sapo': {
      const tau = g.where(g.greater(x.advantages, 0), k('sapo_temperature_pos'), k('sapo_temperature_neg'));
      obj = g.mul(g.div(g.mul(g.sigmoid(g.mul(tau, g.sub(ratio, 1))), 4), tau), x.advantages);
      break;
    }
    case 'vespo': {
      const summed = g.reduceSum(g.mul(g.clip(logRatio, -20, 20), x.mask), [1], true);
      const logW = g.clip(summed, Math.log(1e-8), 20);
      const isNeg = g.cast(g.less(x.advantages, 0), 'float32'); // TRL: the _pos knobs where A >= 0
      const pick = (pos: Tensor, neg: Tensor) => g.add(g.mul(g.sub(1, isNeg), pos), g.mul(isNeg, neg));
      const kk = pick(k('vespo_k_pos'), k('vespo_k_neg'));
      const lambda = g.maximum(pick(k('vespo_lambda_pos'), k('vespo_lambda_neg')), 1e-4);
      const logPhi = g.sub(g.add(lambda, g.mul(kk, logW)), g.mul(lambda, g.exp(logW)));
      const phi = g.where(g.greater(logPhi, LOG_FLOAT32_MAX), 0, g.exp(logPhi));
      obj = g.mul(g.mul(g.stopGradient(phi), x.advantages), x.logp);
      break;
    }
    case 'gmpo': {
      const l = g.clip(logRatio, -20, 20);
      const sgn = g.sub(g.cast(g.greater(x.advantages, 0), 'float32'), g.cast(g.less(x.advantages, 0), 'float32'));
      const lClip = g.minimum(g.maximum(l, k('log_clip_low')), k('log_clip_high'));
      const lMin = g.mul(sgn, g.minimum(g.mul(sgn, l), g.mul(sgn, lClip)));
      ratio = g.exp(seqMean(lMin));
      obj = g.mul(ratio, x.advantages);
      break;
    }
    case 'clip_cov': {
      const clipped = g.mul(g.minimum(g.maximum(ratio, k('clip_low')), k('clip_high')), x.advantages);
      obj = g.mul(g.minimum(g.mul(ratio, x.advantages), clipped), g.sub(1, picked()));
      break;
    }
    case 'kl_cov': {
      const absLogRatio = g.where(g.less(logRatio, 0), g.neg(logRatio), logRatio);
      obj = g.sub(g.mul(ratio, x.advantages), g.mul(g.mul(picked(), k('ppo_kl_coef')), absLogRatio));
      break;
    }
  }
  if (x.offPolicyThreshold) {
    const seqKl = seqMean(g.sub(x.oldLogp, g.stopGradient(x.logp)));
    const positive = g.sub(1, g.cast(g.less(x.advantages, 0), 'float32'));
    const near = g.sub(1, g.cast(g.greater(seqKl, x.offPolicyThreshold), 'float32'));
    obj = g.mul(obj, g.maximum(positive, near));
  }
  const d = g.sub(x.refLogp, x.logp);
  const kl = g.where(x.useK3, g.sub(g.sub(g.exp(d), d), 1), g.neg(d));
  const klTerm = g.where(x.biasCorrectionKl, g.mul(kl, coef), kl);
  const token = g.sub(g.add(g.neg(obj), g.mul(klTerm, x.beta)), g.mul(x.entropy, x.entropyCoef));
  const contribution = g.mul(token, x.weights);
  return { loss: g.sumAll(contribution), ratio, kl, objective: obj, tokenLoss: token, contribution };
}

export function objectiveInputs(
  g: Graph,
  rows: number,
  len: number,
  logp: Tensor,
  entropy: Tensor,
  form: ObjectiveForm = 'clip',
  options: ObjectiveOptions = {},
): ObjectiveInputs {
  const input = (name: keyof ObjectiveFeeds<Tensor>, dtype: DType, shape: number[]) => g.input(name, dtype, shape);
  const f = (name: keyof ObjectiveFeeds<Tensor>) => input(name, 'float32', [rows, len]);
  const s = (name: keyof ObjectiveFeeds<Tensor>) => input(name, 'float32', []);
  return {
    form,
    logp,
    entropy,
    oldLogp: f('old_logp'),
    refLogp: f('ref_logp'),
    advantages: f('advantages'),
    weights: f('weights'),
    mask: f('mask'),
    seqLen: input('seq_len', 'float32', [rows, 1]),
    beta: s('beta'),
    entropyCoef: s('entropy_coef'),
    sequenceLevel: input('sequence_level', 'bool', []),
    useK3: input('use_k3', 'bool', []),
    biasCorrectionKl: input('use_bias_correction_kl', 'bool', []),
    knobs: Object.fromEntries(objectiveForms[form].knobs.map((name) => [name, s(name)])),
    ...(objectiveForms[form].covSelect ? { covSelect: f(covSelectInput) } : {}),
    ...(options.offPolicyMask ? { offPolicyThreshold: s(offPolicyInput) } : {}),
  };
}

/** The whole RL update as one graph: forward (each distinct prompt once), objective, backward, AdamW. */
export function buildRlGraph(
  c: ModelConfig,
  rows: number,
  distinct: number,
  promptLen: number,
  len: number,
  adam: AdamWConfig,
  form: ObjectiveForm = 'clip',
  options: ObjectiveOptions = {},
): Graph {
  const g = new Graph();
  const st = trainState(g, c);
  const { logp, entropy } = completionStats(g, c, st.p, sharedInputs(g, rows, distinct, promptLen, len));
  const o = policyObjective(g, objectiveInputs(g, rows, len, logp, entropy, form, options));
  g.output(logp, 'logp');
  g.output(entropy!, 'entropy');
  g.output(o.ratio, 'ratio');
  g.output(o.kl, 'kl');
  g.output(o.objective, 'objective');
  g.output(o.tokenLoss, 'token_loss');
  g.output(o.contribution, 'loss_contribution');
  st.finish(o.loss, adam);
  return g;
}
