import { gradients } from './autodiff.ts';
import { Graph, type Tensor } from './graph.ts';
import { evaluate, nd, type NDArray } from './reference.ts';
import type { DType, Shape } from './shape.ts';
import { Rng } from '../util/rng.ts';

export interface CheckInput {
  name: string;
  shape: Shape;
  dtype?: DType;
  values: number[];
  /** Excluded from the check (indices, conditions, inputs without a gradient). */
  fixed?: boolean;
}

export interface GradCheckResult {
  maxAbsError: number;
  maxRelError: number;
  worst: string;
}

/**
 * Central finite differences in float64 against the autodiff gradient, both evaluated by the
 * float64 reference interpreter. The scalar loss is sum(y * R) for a random R, so every output
 * element gets a different, non-trivial upstream gradient.
 */
export function gradCheck(
  inputs: CheckInput[],
  build: (g: Graph, xs: Tensor[]) => Tensor,
  seed = 1,
  h = 1e-5,
): GradCheckResult {
  const g = new Graph();
  const xs = inputs.map((i) => g.input(i.name, i.dtype ?? 'float32', i.shape));
  const y = build(g, xs);
  const rng = new Rng(seed);
  const r = g.constant(
    Array.from({ length: y.shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    y.shape,
  );
  const loss = g.sumAll(g.mul(y, r));
  const wrt = xs.filter((_, i) => !inputs[i]!.fixed);
  const grads = gradients(g, loss, wrt);
  g.output(loss);

  const feeds: Record<string, NDArray> = {};
  inputs.forEach((i) => (feeds[i.name] = nd(i.shape, i.values)));
  const analytic = evaluate(g, feeds, grads);
  const lossAt = () => evaluate(g, feeds, [loss])[0]!.data[0]!;

  let maxAbs = 0;
  let maxRel = 0;
  let worst = '';
  wrt.forEach((t, k) => {
    const data = feeds[t.name]!.data;
    for (let j = 0; j < data.length; j++) {
      const orig = data[j]!;
      data[j] = orig + h;
      const up = lossAt();
      data[j] = orig - h;
      const down = lossAt();
      data[j] = orig;
      const numeric = (up - down) / (2 * h);
      const a = analytic[k]!.data[j]!;
      const abs = Math.abs(a - numeric);
      const rel = abs / Math.max(1, Math.abs(numeric));
      if (abs > maxAbs) maxAbs = abs;
      if (rel > maxRel) {
        maxRel = rel;
        worst = `${t.name}[${j}]: autodiff ${a}, finite difference ${numeric}`;
      }
    }
  });
  return { maxAbsError: maxAbs, maxRelError: maxRel, worst };
}
