import { gradients } from '../engine/autodiff.ts';
import { Graph, type Tensor } from '../engine/graph.ts';
import { adamw, flatLength, type AdamWConfig } from '../engine/optimizer.ts';
import type { ModelConfig } from './config.ts';
import {
  completionHidden,
  decodeStep,
  declareParams,
  forward,
  head,
  prefill,
  trainableSpecs,
  type Params,
  type SharedSequence,
} from './transformer.ts';

/** Inputs shared by every whole-sequence graph: the packed batch (see layout.ts). */
export interface SequenceInputs {
  tokens: Tensor;
  positions: Tensor;
  keyBias: Tensor;
  targets: Tensor;
  invTemperature: Tensor;
}

export function sequenceInputs(g: Graph, rows: number, len: number): SequenceInputs {
  return {
    tokens: g.input('tokens', 'int64', [rows, len]),
    positions: g.input('positions', 'int64', [rows, len]),
    keyBias: g.input('key_bias', 'float32', [rows, len]),
    targets: g.input('targets', 'int64', [rows, len, 1]),
    invTemperature: g.input('inv_temperature', 'float32', []),
  };
}

/** Per-token log-prob of each target and entropy of the (temperature-scaled) distribution, both [rows, len]. */
export function tokenStats(
  g: Graph,
  c: ModelConfig,
  p: Params,
  s: SequenceInputs,
  withEntropy = true,
): { logp: Tensor; entropy: Tensor | null } {
  const [rows, len] = s.tokens.shape as [number, number];
  const logits = g.mul(forward(g, c, p, s.tokens, s.positions, s.keyBias), s.invTemperature);
  const logprobs = g.logSoftmax(logits, -1);
  const logp = g.reshape(g.gatherElements(logprobs, s.targets, 2), [rows, len]);
  const entropy = withEntropy ? g.neg(g.reduceSum(g.mul(g.exp(logprobs), logprobs), [-1], false)) : null;
  return { logp, entropy };
}

/** Inputs of the graphs that pass each distinct prompt once: a split grid (layout.ts splitShared). */
export interface SharedInputs {
  seq: SharedSequence;
  targets: Tensor; // [rows, C, 1]
  invTemperature: Tensor;
  promptLen: number;
}

export function sharedInputs(g: Graph, rows: number, distinct: number, promptLen: number, len: number): SharedInputs {
  const cl = len - promptLen;
  return {
    seq: {
      promptTokens: g.input('prompt_tokens', 'int64', [distinct, promptLen]),
      promptPositions: g.input('prompt_positions', 'int64', [distinct, promptLen]),
      promptKeyBias: g.input('prompt_key_bias', 'float32', [distinct, promptLen]),
      rowOf: g.input('row_of', 'int64', [rows]),
      tokens: g.input('tokens', 'int64', [rows, cl]),
      positions: g.input('positions', 'int64', [rows, cl]),
      keyBias: g.input('key_bias', 'float32', [rows, cl]),
    },
    targets: g.input('targets', 'int64', [rows, cl, 1]),
    invTemperature: g.input('inv_temperature', 'float32', []),
    promptLen,
  };
}

/**
 * Log-prob and entropy of each completion token, on the grid [rows, len] the objective's inputs use
 * (column promptLen - 1 + i holds completion token i; the other columns are 0): logits only where a
 * completion token is predicted, each distinct prompt passed once (completionHidden).
 */
export function completionStats(
  g: Graph,
  c: ModelConfig,
  p: Params,
  s: SharedInputs,
): { logp: Tensor; entropy: Tensor } {
  const [rows, cl] = s.seq.tokens.shape as [number, number];
  const logprobs = g.logSoftmax(g.mul(head(g, c, p, completionHidden(g, c, p, s.seq)), s.invTemperature), -1);
  const zeros = (n: number) => g.expand(g.constant([0], [1, 1]), [rows, n]);
  const onGrid = (x: Tensor) => g.concat([...(s.promptLen > 1 ? [zeros(s.promptLen - 1)] : []), x, zeros(1)], 1);
  return {
    logp: onGrid(g.reshape(g.gatherElements(logprobs, s.targets, 2), [rows, cl])),
    entropy: onGrid(g.neg(g.reduceSum(g.mul(g.exp(logprobs), logprobs), [-1], false))),
  };
}

export function buildScoreGraph(c: ModelConfig, rows: number, distinct: number, promptLen: number, len: number): Graph {
  const g = new Graph({ forwardOnly: true });
  const p = declareParams(g, c);
  const { logp, entropy } = completionStats(g, c, p, sharedInputs(g, rows, distinct, promptLen, len));
  g.output(logp, 'logp');
  g.output(entropy, 'entropy');
  return g;
}

/**
 * The incremental decode graph for `rows` rows continuing `distinct` prompts in equal groups (row r
 * continues prompt ⌊r / G⌋). `deviceCache`: outputs the whole updated completion caches (kept on the
 * GPU); otherwise only this step's new key/value columns, all in one output `new.kv` [2·layers·rows,
 * heads, 1, dh] ordered k0, v0, k1, v1, … (the host writes them into its cache).
 */
export function buildDecodeGraph(
  c: ModelConfig,
  distinct: number,
  rows: number,
  promptLen: number,
  completionLen: number,
  deviceCache: boolean,
): Graph {
  const g = new Graph({ forwardOnly: true });
  const p = declareParams(g, c);
  const dh = c.dModel / c.nHeads;
  const perLayer = (name: string, n: number, len: number) =>
    Array.from({ length: c.nLayers }, (_, l) => g.input(`${name}${l}`, 'float32', [n, c.nHeads, len, dh]));
  const io = {
    tokens: g.input('tok', 'int64', [rows]),
    positions: g.input('pos', 'int64', [rows]),
    step: g.input('step', 'int64', []),
    promptBias: g.input('prompt_bias', 'float32', [distinct, promptLen]),
    keyBias: g.input('key_bias', 'float32', [rows, completionLen]),
    promptK: perLayer('pk', distinct, promptLen),
    promptV: perLayer('pv', distinct, promptLen),
    kCache: perLayer('k', rows, completionLen),
    vCache: perLayer('v', rows, completionLen),
  };
  const out = decodeStep(g, c, p, io);
  g.output(out.logits, 'logits');
  if (deviceCache) {
    for (let l = 0; l < c.nLayers; l++) {
      g.output(out.kCache[l]!, `new.k${l}`);
      g.output(out.vCache[l]!, `new.v${l}`);
    }
  } else
    g.output(
      g.concat(
        out.kNew.flatMap((k, l) => [k, out.vNew[l]!]),
        0,
      ),
      'new.kv',
    ); // one read per step instead of 2 × layers
  return g;
}

/**
 * The prompt pass before decoding: the `distinct` left-padded prompts [distinct, promptLen] in one run,
 * giving their first-token logits [distinct, V] and their keys and values (the decode graph's prompt
 * caches, `cache.k{l}` / `cache.v{l}` [distinct, heads, promptLen, dh]).
 */
export function buildPrefillGraph(c: ModelConfig, distinct: number, promptLen: number): Graph {
  const g = new Graph({ forwardOnly: true });
  const p = declareParams(g, c);
  const tokens = g.input('tokens', 'int64', [distinct, promptLen]);
  const positions = g.input('positions', 'int64', [distinct, promptLen]);
  const keyBias = g.input('key_bias', 'float32', [distinct, promptLen]);
  const out = prefill(g, c, p, tokens, positions, keyBias);
  g.output(out.logits, 'logits');
  for (let l = 0; l < c.nLayers; l++) {
    g.output(out.kCache[l]!, `cache.k${l}`);
    g.output(out.vCache[l]!, `cache.v${l}`);
  }
  return g;
}

/** Optimizer inputs and outputs shared by the SFT and RL training graphs. */
export interface TrainState {
  /** The trainable parameters' names (updated as `new.` + name). */
  names: string[];
  p: Params;
  step: Tensor;
  lr: Tensor;
  finish(loss: Tensor, cfg: AdamWConfig): void;
}

/** Names of the flat AdamW moment inputs (the updated ones are 'new.' + name): see optimizer.ts. */
export const MOMENTS = ['adam.m', 'adam.v'] as const;

/**
 * The parameters as inputs and AdamW over the trainable ones (all, or only the LoRA adapters: frozen
 * base weights are inputs only, with no gradient, no moments and no `new.` output).
 */
export function trainState(g: Graph, c: ModelConfig): TrainState {
  const p = declareParams(g, c);
  const specs = trainableSpecs(c);
  const total = flatLength(specs.map((s) => s.shape));
  const m = g.input(MOMENTS[0], 'float32', [total]);
  const v = g.input(MOMENTS[1], 'float32', [total]);
  const names = specs.map((s) => s.name);
  const step = g.input('step', 'float32', []);
  const lr = g.input('lr', 'float32', []);
  return {
    names,
    p,
    step,
    lr,
    finish(loss, cfg) {
      const grads = gradients(
        g,
        loss,
        names.map((n) => p[n]!),
      );
      const decays = specs.map((s) => s.decay);
      const upd = adamw(g, { params: names.map((n) => p[n]!), decays, m, v }, grads, step, lr, cfg, loss);
      g.output(loss, 'loss');
      g.output(upd.gradNorm, 'grad_norm');
      g.output(upd.applied, 'applied');
      names.forEach((n, i) => g.output(upd.params[i]!, 'new.' + n));
      g.output(upd.m, 'new.' + MOMENTS[0]);
      g.output(upd.v, 'new.' + MOMENTS[1]);
    },
  };
}

/** Supervised warm start: mean cross-entropy over completion tokens. */
export function buildSftGraph(c: ModelConfig, rows: number, len: number, cfg: AdamWConfig): Graph {
  const g = new Graph();
  const st = trainState(g, c);
  const s = sequenceInputs(g, rows, len);
  const mask = g.input('completion_mask', 'float32', [rows, len]);
  const { logp } = tokenStats(g, c, st.p, s, false);
  const loss = g.div(g.neg(g.sumAll(g.mul(logp, mask))), g.maximum(g.sumAll(mask), 1));
  st.finish(loss, cfg);
  return g;
}
