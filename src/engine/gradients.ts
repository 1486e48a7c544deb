import type { Graph, Node, Tensor } from './graph.ts';
import type { OpName } from './ops.ts';
import { normAxis, size } from './shape.ts';

/**
 * One gradient rule per op. A rule gets the node, the gradient of its (first) output and a predicate
 * telling which inputs need a gradient, and emits backward ops into the same graph. It returns one
 * entry per input: a gradient with that input's shape, or null.
 */
export type GradRule = (g: Graph, node: Node, dy: Tensor, wants: (i: number) => boolean) => (Tensor | null)[];

const SQRT_PI = Math.sqrt(Math.PI);

function keptShape(x: Tensor, axes: number[]): number[] {
  const ax = axes.map((a) => normAxis(a, x.shape.length));
  return x.shape.map((d, i) => (ax.includes(i) ? 1 : d));
}

/** The gradient of a reduction, broadcast back over the reduced axes. */
function unreduce(g: Graph, node: Node, dy: Tensor): Tensor {
  const x = node.inputs[0]!;
  return g.expand(g.reshape(dy, keptShape(x, node.attrs.axes as number[])), [...x.shape]);
}

function swapLast(g: Graph, t: Tensor): Tensor {
  const perm = t.shape.map((_, i) => i);
  const r = perm.length;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1]!, perm[r - 2]!];
  return g.transpose(t, perm);
}

/** One rule per op of the table (ops.ts): an op without a rule, or a rule for no op, does not compile. */
export type GradRules = Record<OpName, GradRule>;

export const gradRules: GradRules = {
  Add: (g, n, dy) => [g.sumToShape(dy, n.inputs[0]!.shape), g.sumToShape(dy, n.inputs[1]!.shape)],
  Sub: (g, n, dy, w) => [
    g.sumToShape(dy, n.inputs[0]!.shape),
    w(1) ? g.sumToShape(g.neg(dy), n.inputs[1]!.shape) : null,
  ],
  Mul: (g, n, dy, w) => {
    const [a, b] = n.inputs as [Tensor, Tensor];
    return [w(0) ? g.sumToShape(g.mul(dy, b), a.shape) : null, w(1) ? g.sumToShape(g.mul(dy, a), b.shape) : null];
  },
  Div: (g, n, dy, w) => {
    const [a, b] = n.inputs as [Tensor, Tensor];
    const y = n.outputs[0]!;
    return [
      w(0) ? g.sumToShape(g.div(dy, b), a.shape) : null,
      w(1) ? g.sumToShape(g.neg(g.div(g.mul(dy, y), b)), b.shape) : null,
    ];
  },
  Pow: (g, n, dy, w) => {
    const [a, b] = n.inputs as [Tensor, Tensor];
    const y = n.outputs[0]!;
    const da = w(0) ? g.sumToShape(g.mul(g.mul(dy, b), g.pow(a, g.sub(b, 1))), a.shape) : null;
    const db = w(1) ? g.sumToShape(g.mul(g.mul(dy, y), g.log(a)), b.shape) : null;
    return [da, db];
  },
  Exp: (g, n, dy) => [g.mul(dy, n.outputs[0]!)],
  Log: (g, n, dy) => [g.div(dy, n.inputs[0]!)],
  Sqrt: (g, n, dy) => [g.div(g.mul(dy, 0.5), n.outputs[0]!)],
  Tanh: (g, n, dy) => {
    const y = n.outputs[0]!;
    return [g.mul(dy, g.sub(1, g.mul(y, y)))];
  },
  Sigmoid: (g, n, dy) => {
    const y = n.outputs[0]!;
    return [g.mul(dy, g.mul(y, g.sub(1, y)))];
  },
  Erf: (g, n, dy) => {
    const x = n.inputs[0]!;
    return [g.mul(dy, g.mul(g.exp(g.neg(g.mul(x, x))), 2 / SQRT_PI))];
  },
  Clip: (g, n, dy) => {
    const x = n.inputs[0]!;
    const inside = g.where(g.less(x, n.attrs.min as number), 0, g.where(g.greater(x, n.attrs.max as number), 0, dy));
    return [inside];
  },
  Identity: (_g, _n, dy) => [dy],
  Cast: (_g, n, dy) => [n.inputs[0]!.dtype === 'float32' ? dy : null],
  Where: (g, n, dy, w) => {
    const [c, a, b] = n.inputs as [Tensor, Tensor, Tensor];
    return [
      null,
      w(1) ? g.sumToShape(g.where(c, dy, 0), a.shape) : null,
      w(2) ? g.sumToShape(g.where(c, 0, dy), b.shape) : null,
    ];
  },
  Equal: () => [null, null],
  Less: () => [null, null],
  Greater: () => [null, null],
  MatMul: (g, n, dy, w) => {
    const [a, b] = n.inputs as [Tensor, Tensor];
    const da = w(0) ? g.sumToShape(g.matmul(dy, swapLast(g, b)), a.shape) : null;
    let db: Tensor | null = null;
    if (w(1)) {
      if (b.shape.length === 2 && a.shape.length > 2) {
        // Shared weight: fold the batch into rows so the weight gradient is one matmul, not a batched one plus a
        // reduction.
        const k = a.shape[a.shape.length - 1]!;
        const a2 = g.reshape(a, [size(a.shape) / k, k]);
        const d2 = g.reshape(dy, [size(dy.shape) / b.shape[1]!, b.shape[1]!]);
        db = g.matmul(g.transpose(a2, [1, 0]), d2);
      } else {
        db = g.sumToShape(g.matmul(swapLast(g, a), dy), b.shape);
      }
    }
    return [da, db];
  },
  Transpose: (g, n, dy) => {
    const perm = n.attrs.perm as number[];
    const inv = perm.map((_, i) => perm.indexOf(i));
    return [g.transpose(dy, inv)];
  },
  Reshape: (g, n, dy) => [g.reshape(dy, [...n.inputs[0]!.shape])],
  Expand: (g, n, dy) => [g.sumToShape(dy, n.inputs[0]!.shape)],
  Concat: (g, n, dy, w) => {
    const axis = normAxis(n.attrs.axis as number, dy.shape.length);
    let start = 0;
    return n.inputs.map((t, i) => {
      const len = t.shape[axis]!;
      const out = w(i) ? g.slice(dy, [start], [start + len], [axis]) : null;
      start += len;
      return out;
    });
  },
  Slice: (g, n, dy) => {
    // No Pad on the WebGPU EP: surround the gradient with zero blocks along each sliced axis.
    const x = n.inputs[0]!;
    const { starts, ends, axes } = n.attrs as { starts: number[]; ends: number[]; axes: number[] };
    let cur = dy;
    axes.forEach((a, i) => {
      const ax = normAxis(a, x.shape.length);
      const parts: Tensor[] = [];
      const zeros = (len: number) => {
        const s = [...cur.shape];
        s[ax] = len;
        return g.expand(g.scalar(0), s);
      };
      if (starts[i]! > 0) parts.push(zeros(starts[i]!));
      parts.push(cur);
      if (ends[i]! < x.shape[ax]!) parts.push(zeros(x.shape[ax]! - ends[i]!));
      cur = parts.length > 1 ? g.concat(parts, ax) : cur;
    });
    return [cur];
  },
  Gather: (g, n, dy, w) => {
    // Embedding gradient as one-hot^T x dY (no ScatterND on the WebGPU EP).
    const [data, idx] = n.inputs as [Tensor, Tensor];
    if (!w(0)) return [null, null];
    if (normAxis(n.attrs.axis as number, data.shape.length) !== 0)
      throw new Error('Gather gradient: only axis 0 is supported');
    const rows = data.shape[0]!;
    const rest = size(data.shape) / rows;
    const oh = g.reshape(g.oneHot(idx, rows), [size(idx.shape), rows]);
    const d2 = g.reshape(dy, [size(idx.shape), rest]);
    return [g.reshape(g.matmul(g.transpose(oh, [1, 0]), d2), [...data.shape]), null];
  },
  GatherElements: (g, n, dy) => {
    const [data, idx] = n.inputs as [Tensor, Tensor];
    const depth = data.shape[data.shape.length - 1]!;
    const oh = g.oneHot(idx, depth); // [..., K, V]
    const spread = g.mul(oh, g.unsqueeze(dy, -1));
    return [g.reduceSum(spread, [-2], false), null];
  },
  Softmax: (g, n, dy) => {
    const y = n.outputs[0]!;
    const axis = n.attrs.axis as number;
    return [g.mul(y, g.sub(dy, g.reduceSum(g.mul(dy, y), [axis], true)))];
  },
  LayerNormalization: (g, n, dy, w) => {
    const [x, scale] = n.inputs as [Tensor, Tensor, Tensor];
    const eps = n.attrs.epsilon as number;
    const xc = g.sub(x, g.reduceMean(x, [-1]));
    const rstd = g.div(1, g.sqrt(g.add(g.reduceMean(g.mul(xc, xc), [-1]), eps)));
    const xhat = g.mul(xc, rstd);
    const dxhat = g.mul(dy, scale);
    const dx = w(0)
      ? g.mul(rstd, g.sub(g.sub(dxhat, g.reduceMean(dxhat, [-1])), g.mul(xhat, g.reduceMean(g.mul(dxhat, xhat), [-1]))))
      : null;
    return [dx, w(1) ? g.sumToShape(g.mul(dy, xhat), scale.shape) : null, w(2) ? g.sumToShape(dy, scale.shape) : null];
  },
  ReduceSum: (g, n, dy) => [unreduce(g, n, dy)],
  ReduceMean: (g, n, dy) => {
    const x = n.inputs[0]!;
    const count = (n.attrs.axes as number[]).reduce((c, a) => c * x.shape[normAxis(a, x.shape.length)]!, 1);
    return [g.mul(unreduce(g, n, dy), 1 / count)];
  },
  ReduceMax: (g, n, dy) => {
    const x = n.inputs[0]!;
    const axes = n.attrs.axes as number[];
    const y = g.reshape(n.outputs[0]!, keptShape(x, axes));
    const mask = g.cast(g.equal(x, y), 'float32');
    const share = g.div(mask, g.reduceSum(mask, axes, true));
    return [g.mul(unreduce(g, n, dy), share)];
  },
  ReduceLogSumExp: (g, n, dy) => {
    const x = n.inputs[0]!;
    const y = g.reshape(n.outputs[0]!, keptShape(x, n.attrs.axes as number[]));
    return [g.mul(unreduce(g, n, dy), g.exp(g.sub(x, y)))];
  },
};
