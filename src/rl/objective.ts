import { Graph, type Tensor } from '../engine/graph.ts';
import type { AdamWConfig } from '../engine/optimizer.ts';
import type { ModelConfig } from '../model/config.ts';
import { completionStats, sharedInputs, trainState } from '../model/graphs.ts';

/** Per-token inputs of the clipped policy-gradient objective, all [rows, len] unless noted. */
export interface ObjectiveInputs {
  logp: Tensor; // current policy log-prob of each completion token (the differentiated input)
  entropy: Tensor; // current policy entropy per token
  oldLogp: Tensor; // sampling-time log-probs
  refLogp: Tensor; // reference policy log-probs (ignored when beta = 0)
  advantages: Tensor; // the sequence's advantage, on each of its tokens
  weights: Tensor; // aggregation weight per token (0 off the completion): loss_type lives here
  mask: Tensor; // 1 on completion tokens that count for the sequence ratio
  seqLen: Tensor; // [rows, 1] number of masked tokens (>= 1)
  clipLow: Tensor; // [] 1 - epsilon
  clipHigh: Tensor; // [] 1 + epsilon_high
  delta: Tensor; // [] cap on the unclipped ratio (huge when off)
  beta: Tensor; // [] KL coefficient
  entropyCoef: Tensor; // []
  sequenceLevel: Tensor; // [] bool: GSPO's sequence-level ratio
  useK3: Tensor; // [] bool: k3 estimator, else k1
}

/**
 * What the graph outputs per token, so nothing downstream recomputes the objective: the trainer
 * copies these into the rollout records, and the inspector shows them as they are.
 */
export interface ObjectiveOutputs {
  loss: Tensor;
  ratio: Tensor;
  kl: Tensor;
  objective: Tensor; // obj = min(min(ratio, delta)·A, clip(ratio)·A)
  tokenLoss: Tensor; // -obj + beta·kl - entropy_coef·entropy (before aggregation)
  contribution: Tensor; // weight × tokenLoss: each token's contribution to the loss
}

/**
 * The GRPO-family objective, one formula for every preset (presets only change the inputs):
 *   ratio  = exp(logp - old)                     (token level), or
 *          = exp(mean over the sequence of (logp - old)) on each token (sequence level, GSPO)
 *   obj    = min(min(ratio, delta) · A, clip(ratio, 1 - eps, 1 + eps_high) · A)
 *   kl     = exp(ref - logp) - (ref - logp) - 1  (k3)   or   logp - ref  (k1)
 *   token  = -obj + beta · kl - entropy_coef · entropy
 *   loss   = sum(weight · token)
 */
export function policyObjective(g: Graph, x: ObjectiveInputs): ObjectiveOutputs {
  const logRatio = g.sub(x.logp, x.oldLogp);
  const seqLogRatio = g.div(g.reduceSum(g.mul(logRatio, x.mask), [1], true), x.seqLen);
  const ratio = g.exp(g.where(x.sequenceLevel, g.expand(seqLogRatio, [...logRatio.shape]), logRatio));
  const unclipped = g.mul(g.minimum(ratio, x.delta), x.advantages);
  const clipped = g.mul(g.minimum(g.maximum(ratio, x.clipLow), x.clipHigh), x.advantages);
  const obj = g.minimum(unclipped, clipped);
  const d = g.sub(x.refLogp, x.logp);
  const kl = g.where(x.useK3, g.sub(g.sub(g.exp(d), d), 1), g.neg(d));
  const token = g.sub(g.add(g.neg(obj), g.mul(kl, x.beta)), g.mul(x.entropy, x.entropyCoef));
  const contribution = g.mul(token, x.weights);
  return { loss: g.sumAll(contribution), ratio, kl, objective: obj, tokenLoss: token, contribution };
}

export function objectiveInputs(g: Graph, rows: number, len: number, logp: Tensor, entropy: Tensor): ObjectiveInputs {
  const f = (name: string) => g.input(name, 'float32', [rows, len]);
  const s = (name: string) => g.input(name, 'float32', []);
  return {
    logp,
    entropy,
    oldLogp: f('old_logp'),
    refLogp: f('ref_logp'),
    advantages: f('advantages'),
    weights: f('weights'),
    mask: f('mask'),
    seqLen: g.input('seq_len', 'float32', [rows, 1]),
    clipLow: s('clip_low'),
    clipHigh: s('clip_high'),
    delta: s('delta'),
    beta: s('beta'),
    entropyCoef: s('entropy_coef'),
    sequenceLevel: g.input('sequence_level', 'bool', []),
    useK3: g.input('use_k3', 'bool', []),
  };
}

/** The whole RL update as one graph: forward (each distinct prompt once), objective, backward, AdamW. */
export function buildRlGraph(c: ModelConfig, rows: number, distinct: number, promptLen: number, len: number, adam: AdamWConfig): Graph {
  const g = new Graph();
  const st = trainState(g, c);
  const { logp, entropy } = completionStats(g, c, st.p, sharedInputs(g, rows, distinct, promptLen, len));
  const o = policyObjective(g, objectiveInputs(g, rows, len, logp, entropy));
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
