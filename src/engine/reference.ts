import type { Graph, Tensor } from './graph.ts';
import type { Attrs, OpName } from './ops.ts';
import { broadcastShapes, normAxis, size, strides, type Shape } from './shape.ts';

/**
 * A float64 interpreter of our graphs. It is the ground truth the gradient rules are checked
 * against (finite differences need more precision than float32) and the reference the ONNX export
 * is compared with. Integers and booleans are held as float64 values.
 */
export interface NDArray {
  shape: Shape;
  data: Float64Array;
}

export function nd(shape: Shape, data?: ArrayLike<number>): NDArray {
  const d = new Float64Array(size(shape));
  if (data) d.set(Array.from(data));
  return { shape: [...shape], data: d };
}

/** For each output element, the flat offset into an input broadcast to `outShape`. */
function broadcastOffsets(inShape: Shape, outShape: Shape): Int32Array {
  const n = size(outShape);
  const offs = new Int32Array(n);
  const inStr = strides(inShape);
  const lead = outShape.length - inShape.length;
  const idx = new Array<number>(outShape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let o = 0;
    for (let k = 0; k < inShape.length; k++) if (inShape[k] !== 1) o += idx[k + lead]! * inStr[k]!;
    offs[i] = o;
    for (let k = outShape.length - 1; k >= 0; k--) {
      if (++idx[k]! < outShape[k]!) break;
      idx[k] = 0;
    }
  }
  return offs;
}

function elementwise(inputs: NDArray[], f: (...xs: number[]) => number): NDArray {
  const shape = broadcastShapes(...inputs.map((t) => t.shape))!;
  const out = nd(shape);
  const offs = inputs.map((t) => broadcastOffsets(t.shape, shape));
  const xs = new Array<number>(inputs.length);
  for (let i = 0; i < out.data.length; i++) {
    for (let k = 0; k < inputs.length; k++) xs[k] = inputs[k]!.data[offs[k]![i]!]!;
    out.data[i] = f(...xs);
  }
  return out;
}

function map(x: NDArray, f: (v: number) => number): NDArray {
  return { shape: x.shape, data: x.data.map(f) };
}

/** Abramowitz-Stegun 7.1.26 is too coarse for gradient checks; this series/continued fraction is ~1e-15. */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    let sum = ax;
    let term = ax;
    const x2 = ax * ax;
    for (let n = 1; n < 100; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc continued fraction (Lentz) for large |x|
  let f = ax;
  let c = ax;
  let d = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    d = ax + an * d;
    d = 1 / d;
    c = ax + an / c;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / (Math.sqrt(Math.PI) * f);
  return Math.sign(x) * (1 - erfc);
}

function reduce(
  x: NDArray,
  attrs: Attrs,
  init: number,
  step: (acc: number, v: number) => number,
  finish?: (acc: number, count: number) => number,
): NDArray {
  const rank = x.shape.length;
  const axes = (attrs.axes as number[]).map((a) => normAxis(a, rank));
  const keptShape = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const out = nd(keptShape).data.fill(init);
  const offs = broadcastOffsets(keptShape, x.shape);
  for (let i = 0; i < x.data.length; i++) out[offs[i]!] = step(out[offs[i]!]!, x.data[i]!);
  const count = axes.reduce((n, a) => n * x.shape[a]!, 1);
  if (finish) for (let i = 0; i < out.length; i++) out[i] = finish(out[i]!, count);
  const finalShape = attrs.keepdims === 0 ? x.shape.filter((_, i) => !axes.includes(i)) : keptShape;
  return { shape: finalShape, data: out };
}

function matmul(a: NDArray, b: NDArray): NDArray {
  const m = a.shape[a.shape.length - 2]!;
  const k = a.shape[a.shape.length - 1]!;
  const n = b.shape[b.shape.length - 1]!;
  const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2))!;
  const out = nd([...batch, m, n]);
  const aOff = broadcastOffsets(a.shape.slice(0, -2), batch);
  const bOff = broadcastOffsets(b.shape.slice(0, -2), batch);
  const nb = size(batch);
  for (let bi = 0; bi < nb; bi++) {
    const ao = aOff[bi]! * m * k;
    const bo = bOff[bi]! * k * n;
    const oo = bi * m * n;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let q = 0; q < k; q++) s += a.data[ao + i * k + q]! * b.data[bo + q * n + j]!;
        out.data[oo + i * n + j] = s;
      }
  }
  return out;
}

function transpose(x: NDArray, perm: number[]): NDArray {
  const outShape = perm.map((p) => x.shape[p]!);
  const inStr = strides(x.shape);
  const out = nd(outShape);
  const idx = new Array<number>(outShape.length).fill(0);
  for (let i = 0; i < out.data.length; i++) {
    let o = 0;
    for (let k = 0; k < perm.length; k++) o += idx[k]! * inStr[perm[k]!]!;
    out.data[i] = x.data[o]!;
    for (let k = outShape.length - 1; k >= 0; k--) {
      if (++idx[k]! < outShape[k]!) break;
      idx[k] = 0;
    }
  }
  return out;
}

/** Splits a shape around `axis` into (outer, axis length, inner) for axis-wise loops. */
function around(shape: Shape, axis: number): [number, number, number] {
  return [size(shape.slice(0, axis)), shape[axis]!, size(shape.slice(axis + 1))];
}

function softmax(x: NDArray, axis: number): NDArray {
  const [outer, len, inner] = around(x.shape, normAxis(axis, x.shape.length));
  const out = nd(x.shape);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => o * len * inner + j * inner + i;
      let mx = -Infinity;
      for (let j = 0; j < len; j++) mx = Math.max(mx, x.data[at(j)]!);
      let s = 0;
      for (let j = 0; j < len; j++) s += Math.exp(x.data[at(j)]! - mx);
      for (let j = 0; j < len; j++) out.data[at(j)] = Math.exp(x.data[at(j)]! - mx) / s;
    }
  return out;
}

function layerNorm(x: NDArray, scale: NDArray, bias: NDArray, eps: number): NDArray {
  const d = x.shape[x.shape.length - 1]!;
  const out = nd(x.shape);
  for (let r = 0; r < x.data.length / d; r++) {
    let mean = 0;
    for (let j = 0; j < d; j++) mean += x.data[r * d + j]!;
    mean /= d;
    let v = 0;
    for (let j = 0; j < d; j++) v += (x.data[r * d + j]! - mean) ** 2;
    const rstd = 1 / Math.sqrt(v / d + eps);
    for (let j = 0; j < d; j++)
      out.data[r * d + j] = (x.data[r * d + j]! - mean) * rstd * scale.data[j]! + bias.data[j]!;
  }
  return out;
}

function concat(xs: NDArray[], axis: number): NDArray {
  const ax = normAxis(axis, xs[0]!.shape.length);
  const shape = [...xs[0]!.shape];
  shape[ax] = xs.reduce((n, t) => n + t.shape[ax]!, 0);
  const out = nd(shape);
  const [outer, , inner] = around(shape, ax);
  let pos = 0;
  for (let o = 0; o < outer; o++)
    for (const t of xs) {
      const chunk = t.shape[ax]! * inner;
      out.data.set(t.data.subarray(o * chunk, (o + 1) * chunk), pos);
      pos += chunk;
    }
  return out;
}

function slice(x: NDArray, attrs: Attrs): NDArray {
  const { starts, ends, axes } = attrs as { starts: number[]; ends: number[]; axes: number[] };
  const lo = x.shape.map(() => 0);
  const hi = [...x.shape];
  axes.forEach((a, i) => {
    const ax = normAxis(a, x.shape.length);
    lo[ax] = starts[i]!;
    hi[ax] = ends[i]!;
  });
  const outShape = hi.map((h, i) => h - lo[i]!);
  const inStr = strides(x.shape);
  const out = nd(outShape);
  const idx = new Array<number>(outShape.length).fill(0);
  for (let i = 0; i < out.data.length; i++) {
    let o = 0;
    for (let k = 0; k < idx.length; k++) o += (idx[k]! + lo[k]!) * inStr[k]!;
    out.data[i] = x.data[o]!;
    for (let k = outShape.length - 1; k >= 0; k--) {
      if (++idx[k]! < outShape[k]!) break;
      idx[k] = 0;
    }
  }
  return out;
}

function gather(data: NDArray, indices: NDArray, axis: number): NDArray {
  const ax = normAxis(axis, data.shape.length);
  const [outer, len, inner] = around(data.shape, ax);
  const out = nd([...data.shape.slice(0, ax), ...indices.shape, ...data.shape.slice(ax + 1)]);
  const ni = indices.data.length;
  for (let o = 0; o < outer; o++)
    for (let q = 0; q < ni; q++) {
      let j = indices.data[q]!;
      if (j < 0) j += len;
      for (let i = 0; i < inner; i++) out.data[(o * ni + q) * inner + i] = data.data[(o * len + j) * inner + i]!;
    }
  return out;
}

function gatherElementsLast(data: NDArray, indices: NDArray): NDArray {
  const len = data.shape[data.shape.length - 1]!;
  const k = indices.shape[indices.shape.length - 1]!;
  const out = nd(indices.shape);
  for (let r = 0; r < indices.data.length / k; r++)
    for (let q = 0; q < k; q++) {
      let j = indices.data[r * k + q]!;
      if (j < 0) j += len;
      out.data[r * k + q] = data.data[r * len + j]!;
    }
  return out;
}

type Kernel = (x: NDArray[], attrs: Attrs) => NDArray;

/** One float64 kernel per op of the table (ops.ts): a missing kernel does not compile. */
const kernels: Record<OpName, Kernel> = {
  Add: (x) => elementwise(x, (a, b) => a + b),
  Sub: (x) => elementwise(x, (a, b) => a - b),
  Mul: (x) => elementwise(x, (a, b) => a * b),
  Div: (x) => elementwise(x, (a, b) => a / b),
  Pow: (x) => elementwise(x, (a, b) => a ** b),
  Exp: ([x]) => map(x!, Math.exp),
  Log: ([x]) => map(x!, Math.log),
  Sqrt: ([x]) => map(x!, Math.sqrt),
  Tanh: ([x]) => map(x!, Math.tanh),
  Sigmoid: ([x]) => map(x!, (v) => 1 / (1 + Math.exp(-v))),
  Erf: ([x]) => map(x!, erf),
  Clip: ([x], a) => map(x!, (v) => Math.min(Math.max(v, a.min as number), a.max as number)),
  Identity: ([x]) => x!,
  Equal: (x) => elementwise(x, (a, b) => (a === b ? 1 : 0)),
  Less: (x) => elementwise(x, (a, b) => (a < b ? 1 : 0)),
  Greater: (x) => elementwise(x, (a, b) => (a > b ? 1 : 0)),
  Where: (x) => elementwise(x, (c, a, b) => (c ? a : b)),
  Cast: ([x], a) => map(x!, (v) => (a.to === 'float32' ? v : a.to === 'bool' ? (v ? 1 : 0) : Math.trunc(v))),
  MatMul: ([a, b]) => matmul(a!, b!),
  Transpose: ([x], a) => transpose(x!, a.perm as number[]),
  Reshape: ([x], a) => ({ shape: [...(a.shape as number[])], data: x!.data }),
  Expand: ([x], a) => elementwise([x!, nd(a.shape as number[])], (v) => v),
  Concat: (x, a) => concat(x, a.axis as number),
  Slice: ([x], a) => slice(x!, a),
  Gather: ([d, i], a) => gather(d!, i!, a.axis as number),
  GatherElements: ([d, i]) => gatherElementsLast(d!, i!),
  Softmax: ([x], a) => softmax(x!, a.axis as number),
  LayerNormalization: ([x, s, b], a) => layerNorm(x!, s!, b!, a.epsilon as number),
  ReduceSum: ([x], a) => reduce(x!, a, 0, (s, v) => s + v),
  ReduceMean: ([x], a) =>
    reduce(
      x!,
      a,
      0,
      (s, v) => s + v,
      (s, n) => s / n,
    ),
  ReduceMax: ([x], a) => reduce(x!, a, -Infinity, Math.max),
  ReduceLogSumExp: ([x], a) => {
    const mx = reduce(x!, { ...a, keepdims: 1 }, -Infinity, Math.max);
    const shifted = elementwise([x!, mx], (v, m) => Math.exp(v - m));
    const s = reduce(shifted, { ...a, keepdims: 1 }, 0, (acc, v) => acc + v);
    const r = elementwise([s, mx], (v, m) => Math.log(v) + m);
    return { shape: reduce(x!, a, 0, (p) => p).shape, data: r.data };
  },
};

/** Runs the graph in float64 on the given feeds; returns every requested tensor (default: the outputs). */
export function evaluate(graph: Graph, feeds: Record<string, NDArray>, wanted: Tensor[] = graph.outputs): NDArray[] {
  const values = new Map<number, NDArray>();
  for (const t of graph.inputs) {
    const v = feeds[t.name];
    if (!v) throw new Error(`evaluate: missing feed "${t.name}"`);
    if (v.data.length !== size(t.shape))
      throw new Error(`evaluate: feed "${t.name}" has ${v.data.length} values, expected shape [${t.shape}]`);
    values.set(t.id, { shape: t.shape, data: v.data });
  }
  for (const c of graph.constants)
    values.set(c.tensor.id, nd(c.tensor.shape, Array.from(c.data as ArrayLike<number | bigint>, Number)));
  for (const node of graph.nodes) {
    const kernel = kernels[node.op];
    if (!kernel) throw new Error(`evaluate: no reference kernel for ${node.op}`);
    const out = kernel(
      node.inputs.map((t) => values.get(t.id)!),
      node.attrs,
    );
    values.set(node.outputs[0]!.id, out);
  }
  return wanted.map((t) => {
    const v = values.get(t.id);
    if (!v) throw new Error(`evaluate: tensor "${t.name}" was not computed`);
    return v;
  });
}
