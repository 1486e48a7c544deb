import type { Graph, Tensor } from './graph.ts';

export interface AdamWConfig {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** Global-norm gradient clipping; 0 or Infinity disables it. */
  maxGradNorm: number;
}

export const defaultAdamW: AdamWConfig = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.0, maxGradNorm: 1.0 };

export interface AdamWState {
  params: Tensor[];
  m: Tensor[];
  v: Tensor[];
}

export interface AdamWOutputs {
  params: Tensor[];
  m: Tensor[];
  v: Tensor[];
  /** Global gradient norm before clipping. */
  gradNorm: Tensor;
  /** 1 when the update was applied, 0 when it was skipped because a gradient was not finite. */
  applied: Tensor;
}

/**
 * AdamW (decoupled weight decay, bias correction) with global-norm clipping, as graph ops so
 * parameters and both moments stay on the device. `step` is the 1-based step count after this
 * update and `lr` the learning rate, both float scalars fed each run. If any gradient (hence the
 * norm) is NaN or Inf, every output equals its input: the step is skipped, nothing changes.
 */
export function adamw(g: Graph, state: AdamWState, grads: Tensor[], step: Tensor, lr: Tensor, cfg: AdamWConfig, extraFinite?: Tensor): AdamWOutputs {
  const sq = grads.map((gr) => g.sumAll(g.mul(gr, gr)));
  const total = sq.reduce((a, b) => g.add(a, b));
  const gradNorm = g.sqrt(total);
  // NaN fails x == x; Inf fails x < 3e38. Bool And is not a WebGPU op, so combine as floats.
  const isFinite = (x: Tensor) => g.mul(g.cast(g.equal(x, x), 'float32'), g.cast(g.less(x, 3e38), 'float32'));
  let okF = isFinite(gradNorm);
  if (extraFinite) okF = g.mul(okF, isFinite(g.mul(extraFinite, extraFinite)));
  const ok = g.greater(okF, 0.5);
  const safeNorm = g.where(ok, gradNorm, 0);
  const clip = cfg.maxGradNorm > 0 && Number.isFinite(cfg.maxGradNorm) ? g.minimum(g.div(cfg.maxGradNorm, g.add(safeNorm, 1e-6)), 1) : null;
  const bc1 = g.sub(1, g.pow(g.scalar(cfg.beta1), step));
  const bc2 = g.sub(1, g.pow(g.scalar(cfg.beta2), step));
  const out: AdamWOutputs = { params: [], m: [], v: [], gradNorm, applied: okF };
  state.params.forEach((p, i) => {
    const raw = g.where(ok, grads[i]!, 0);
    const gr = clip ? g.mul(raw, clip) : raw;
    const m = g.add(g.mul(state.m[i]!, cfg.beta1), g.mul(gr, 1 - cfg.beta1));
    const v = g.add(g.mul(state.v[i]!, cfg.beta2), g.mul(g.mul(gr, gr), 1 - cfg.beta2));
    const update = g.div(g.div(m, bc1), g.add(g.sqrt(g.div(v, bc2)), cfg.eps));
    const decayed = cfg.weightDecay ? g.mul(p, g.sub(1, g.mul(lr, cfg.weightDecay))) : p;
    const next = g.sub(decayed, g.mul(update, lr));
    out.params.push(g.where(ok, next, p));
    out.m.push(g.where(ok, m, state.m[i]!));
    out.v.push(g.where(ok, v, state.v[i]!));
  });
  return out;
}
