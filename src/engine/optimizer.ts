import type { Graph, Tensor } from './graph.ts';
import { size } from './shape.ts';

export interface AdamWConfig {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** Global-norm gradient clipping; 0 or Infinity disables it. */
  maxGradNorm: number;
}

export const defaultAdamW: AdamWConfig = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.0, maxGradNorm: 1.0 };

/** The parameters, and both moments as one flat vector each: every parameter's values, in `params` order. */
export interface AdamWState {
  params: Tensor[];
  /** Per parameter, whether weight decay applies to it (transformers leaves biases and norms out); all when absent. */
  decays?: readonly boolean[];
  m: Tensor;
  v: Tensor;
}

export interface AdamWOutputs {
  params: Tensor[];
  m: Tensor;
  v: Tensor;
  /** Global gradient norm before clipping. */
  gradNorm: Tensor;
  /** 1 when the update was applied, 0 when it was skipped because a gradient was not finite. */
  applied: Tensor;
}

/** Inputs per Concat: a WebGPU device may bind as few as 8 storage buffers per shader (7 inputs + the output). */
const CONCAT_FANIN = 7;

/** The tensors' values end to end as one vector (a tree of small Concats). */
export function flatten(g: Graph, ts: Tensor[]): Tensor {
  let parts = ts.map((t) => (t.shape.length === 1 ? t : g.reshape(t, [size(t.shape)])));
  while (parts.length > 1) {
    const next: Tensor[] = [];
    for (let i = 0; i < parts.length; i += CONCAT_FANIN) {
      const chunk = parts.slice(i, i + CONCAT_FANIN);
      next.push(chunk.length === 1 ? chunk[0]! : g.concat(chunk, 0));
    }
    parts = next;
  }
  return parts[0]!;
}

/** Total number of values in the tensors: the length of their flattened moments. */
export const flatLength = (shapes: readonly (readonly number[])[]) => shapes.reduce((n, s) => n + size(s), 0);

/**
 * lr · weight_decay, as a scalar when every parameter decays, else as a flat vector that is 0 on the
 * parameters that do not: one Expand per run of neighbouring parameters alike (a dozen a layer), not a
 * constant as long as the model.
 */
function decayRate(g: Graph, state: AdamWState, lr: Tensor, weightDecay: number): Tensor {
  const rate = g.mul(lr, weightDecay);
  const decays = state.decays;
  if (!decays || decays.every(Boolean)) return rate;
  if (decays.length !== state.params.length)
    throw new Error(`decays has ${decays.length} entries for ${state.params.length} parameters`);
  const runs: { decay: boolean; length: number }[] = [];
  state.params.forEach((t, i) => {
    const last = runs.at(-1);
    if (last && last.decay === decays[i]) last.length += size(t.shape);
    else runs.push({ decay: decays[i]!, length: size(t.shape) });
  });
  const mask = flatten(
    g,
    runs.map((r) => g.expand(g.scalar(r.decay ? 1 : 0), [r.length])),
  );
  return g.mul(rate, mask);
}

/**
 * AdamW (decoupled weight decay, bias correction) with global-norm clipping, as graph ops so
 * parameters and both moments stay on the device. `step` is the 1-based step count after this
 * update and `lr` the learning rate, both float scalars fed each run. If any gradient (hence the
 * norm) is NaN or Inf, every output equals its input: the step is skipped, nothing changes.
 * The update runs once over all parameters flattened into one vector: a dozen large element-wise
 * ops instead of a dozen small ones per parameter (hundreds of ORT nodes, or WebGPU dispatches).
 */
export function adamw(
  g: Graph,
  state: AdamWState,
  grads: Tensor[],
  step: Tensor,
  lr: Tensor,
  cfg: AdamWConfig,
  extraFinite?: Tensor,
): AdamWOutputs {
  const grad = flatten(g, grads);
  const p = flatten(g, state.params);
  const gradNorm = g.sqrt(g.sumAll(g.mul(grad, grad)));
  // NaN fails x == x; Inf fails x < 3e38. Bool And is not a WebGPU op, so combine as floats.
  const finiteFlag = (x: Tensor) => g.mul(g.cast(g.equal(x, x), 'float32'), g.cast(g.less(x, 3e38), 'float32'));
  let okF = finiteFlag(gradNorm);
  if (extraFinite) okF = g.mul(okF, finiteFlag(g.mul(extraFinite, extraFinite)));
  const ok = g.greater(okF, 0.5);
  const safeNorm = g.where(ok, gradNorm, 0);
  const clip =
    cfg.maxGradNorm > 0 && Number.isFinite(cfg.maxGradNorm)
      ? g.minimum(g.div(cfg.maxGradNorm, g.add(safeNorm, 1e-6)), 1)
      : null;
  const bc1 = g.sub(1, g.pow(g.scalar(cfg.beta1), step));
  const bc2 = g.sub(1, g.pow(g.scalar(cfg.beta2), step));
  const raw = g.where(ok, grad, 0);
  const gr = clip ? g.mul(raw, clip) : raw;
  const m = g.add(g.mul(state.m, cfg.beta1), g.mul(gr, 1 - cfg.beta1));
  const v = g.add(g.mul(state.v, cfg.beta2), g.mul(g.mul(gr, gr), 1 - cfg.beta2));
  const update = g.div(g.div(m, bc1), g.add(g.sqrt(g.div(v, bc2)), cfg.eps));
  const decayed = !cfg.weightDecay ? p : g.mul(p, g.sub(1, decayRate(g, state, lr, cfg.weightDecay)));
  const next = g.where(ok, g.sub(decayed, g.mul(update, lr)), p);
  let offset = 0;
  const params = state.params.map((t) => {
    const n = size(t.shape);
    const piece = g.slice(next, [offset], [offset + n], [0]);
    offset += n;
    return t.shape.length === 1 ? piece : g.reshape(piece, [...t.shape]);
  });
  return { params, m: g.where(ok, m, state.m), v: g.where(ok, v, state.v), gradNorm, applied: okF };
}
