import { broadcastShapes, fmt, normAxis, type DType, type Shape } from './shape.ts';

export type AttrValue = number | number[] | string;
export type Attrs = Record<string, AttrValue>;

export interface TensorInfo {
  dtype: DType;
  shape: Shape;
}

/**
 * What each op accepts and produces. Only ops that ONNX Runtime Web's WebGPU EP implements appear here
 * (docs/training.md); anything else is rejected when the graph is built.
 */
export interface OpDef {
  infer(inputs: TensorInfo[], attrs: Attrs): TensorInfo[];
}

function arity(inputs: TensorInfo[], n: number): void {
  if (inputs.length !== n) throw new Error(`expects ${n} inputs, got ${inputs.length}`);
}

function needFloat(t: TensorInfo, what = 'input'): void {
  if (t.dtype !== 'float32') throw new Error(`${what} must be float32, got ${t.dtype}`);
}

function broadcast(inputs: TensorInfo[]): Shape {
  const s = broadcastShapes(...inputs.map((t) => t.shape));
  if (!s) throw new Error(`shapes ${inputs.map((t) => fmt(t.shape)).join(' and ')} do not broadcast`);
  return s;
}

const binaryFloat: OpDef = {
  infer(inputs) {
    arity(inputs, 2);
    inputs.forEach((t) => needFloat(t));
    return [{ dtype: 'float32', shape: broadcast(inputs) }];
  },
};

const unaryFloat: OpDef = {
  infer(inputs) {
    arity(inputs, 1);
    needFloat(inputs[0]!);
    return [{ dtype: 'float32', shape: inputs[0]!.shape }];
  },
};

const compare: OpDef = {
  infer(inputs) {
    arity(inputs, 2);
    if (inputs[0]!.dtype !== inputs[1]!.dtype)
      throw new Error(`dtypes differ: ${inputs[0]!.dtype} vs ${inputs[1]!.dtype}`);
    return [{ dtype: 'bool', shape: broadcast(inputs) }];
  },
};

function reduceShape(shape: Shape, attrs: Attrs): Shape {
  const axes = (attrs.axes as number[]).map((a) => normAxis(a, shape.length));
  if (new Set(axes).size !== axes.length) throw new Error(`repeated axes ${fmt(axes)}`);
  const keep = attrs.keepdims !== 0;
  const out: number[] = [];
  shape.forEach((d, i) => {
    if (!axes.includes(i)) out.push(d);
    else if (keep) out.push(1);
  });
  return out;
}

const reduce: OpDef = {
  infer(inputs, attrs) {
    arity(inputs, 1);
    needFloat(inputs[0]!);
    return [{ dtype: 'float32', shape: reduceShape(inputs[0]!.shape, attrs) }];
  },
};

/**
 * The op table: every op a graph may hold, by its ONNX name. `OpName` is its keys, and the other
 * per-op tables (the gradient rules in gradients.ts, the float64 kernels in reference.ts) are typed
 * by it, so an op added here without its rule or kernel does not compile.
 */
export const opDefs = {
  Add: binaryFloat,
  Sub: binaryFloat,
  Mul: binaryFloat,
  Div: binaryFloat,
  Pow: binaryFloat,
  Exp: unaryFloat,
  Log: unaryFloat,
  Sqrt: unaryFloat,
  Tanh: unaryFloat,
  Sigmoid: unaryFloat,
  Erf: unaryFloat,
  Clip: unaryFloat,
  Identity: {
    infer(inputs) {
      arity(inputs, 1);
      return [{ ...inputs[0]! }];
    },
  },
  Equal: compare,
  Less: compare,
  Greater: compare,
  Where: {
    infer(inputs) {
      arity(inputs, 3);
      if (inputs[0]!.dtype !== 'bool') throw new Error(`condition must be bool, got ${inputs[0]!.dtype}`);
      if (inputs[1]!.dtype !== inputs[2]!.dtype)
        throw new Error(`branches differ in dtype: ${inputs[1]!.dtype} vs ${inputs[2]!.dtype}`);
      return [{ dtype: inputs[1]!.dtype, shape: broadcast(inputs) }];
    },
  },
  Cast: {
    infer(inputs, attrs) {
      arity(inputs, 1);
      return [{ dtype: attrs.to as DType, shape: inputs[0]!.shape }];
    },
  },
  MatMul: {
    infer(inputs) {
      arity(inputs, 2);
      const [a, b] = inputs as [TensorInfo, TensorInfo];
      needFloat(a);
      needFloat(b);
      if (a.shape.length < 2 || b.shape.length < 2)
        throw new Error(`both operands need rank >= 2, got ${fmt(a.shape)} x ${fmt(b.shape)}`);
      const m = a.shape[a.shape.length - 2]!;
      const k = a.shape[a.shape.length - 1]!;
      const k2 = b.shape[b.shape.length - 2]!;
      const n = b.shape[b.shape.length - 1]!;
      if (k !== k2) throw new Error(`inner dimensions differ: ${fmt(a.shape)} x ${fmt(b.shape)}`);
      const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
      if (!batch) throw new Error(`batch dimensions do not broadcast: ${fmt(a.shape)} x ${fmt(b.shape)}`);
      return [{ dtype: 'float32', shape: [...batch, m, n] }];
    },
  },
  Transpose: {
    infer(inputs, attrs) {
      arity(inputs, 1);
      const perm = attrs.perm as number[];
      const s = inputs[0]!.shape;
      if (perm.length !== s.length || [...perm].sort((x, y) => x - y).some((p, i) => p !== i)) {
        throw new Error(`perm ${fmt(perm)} is not a permutation of rank ${s.length}`);
      }
      return [{ dtype: inputs[0]!.dtype, shape: perm.map((p) => s[p]!) }];
    },
  },
  Reshape: {
    infer(inputs, attrs) {
      arity(inputs, 1);
      const shape = attrs.shape as number[];
      const n = inputs[0]!.shape.reduce((a, b) => a * b, 1);
      const m = shape.reduce((a, b) => a * b, 1);
      if (shape.some((d) => !Number.isInteger(d) || d <= 0) || n !== m) {
        throw new Error(`cannot reshape ${fmt(inputs[0]!.shape)} (${n} elements) to ${fmt(shape)}`);
      }
      return [{ dtype: inputs[0]!.dtype, shape }];
    },
  },
  Expand: {
    infer(inputs, attrs) {
      arity(inputs, 1);
      const target = attrs.shape as number[];
      const s = broadcastShapes(inputs[0]!.shape, target);
      if (!s || s.length !== target.length || s.some((d, i) => d !== target[i])) {
        throw new Error(`cannot expand ${fmt(inputs[0]!.shape)} to ${fmt(target)}`);
      }
      return [{ dtype: inputs[0]!.dtype, shape: target }];
    },
  },
  Concat: {
    infer(inputs, attrs) {
      if (inputs.length < 1) throw new Error('needs at least one input');
      const first = inputs[0]!;
      const axis = normAxis(attrs.axis as number, first.shape.length);
      let total = 0;
      for (const t of inputs) {
        if (t.dtype !== first.dtype) throw new Error(`dtypes differ: ${first.dtype} vs ${t.dtype}`);
        if (t.shape.length !== first.shape.length || t.shape.some((d, i) => i !== axis && d !== first.shape[i])) {
          throw new Error(`shapes ${inputs.map((x) => fmt(x.shape)).join(', ')} differ outside axis ${axis}`);
        }
        total += t.shape[axis]!;
      }
      const shape = [...first.shape];
      shape[axis] = total;
      return [{ dtype: first.dtype, shape }];
    },
  },
  Slice: {
    infer(inputs, attrs) {
      arity(inputs, 1);
      const s = [...inputs[0]!.shape];
      const { starts, ends, axes } = attrs as { starts: number[]; ends: number[]; axes: number[] };
      axes.forEach((a, i) => {
        const ax = normAxis(a, s.length);
        const st = starts[i]!;
        const en = ends[i]!;
        if (st < 0 || en > inputs[0]!.shape[ax]! || st >= en)
          throw new Error(`slice [${st}, ${en}) is out of range for axis ${ax} of size ${inputs[0]!.shape[ax]}`);
        s[ax] = en - st;
      });
      return [{ dtype: inputs[0]!.dtype, shape: s }];
    },
  },
  Gather: {
    infer(inputs, attrs) {
      arity(inputs, 2);
      const [data, idx] = inputs as [TensorInfo, TensorInfo];
      if (idx.dtype !== 'int64') throw new Error(`indices must be int64, got ${idx.dtype}`);
      const axis = normAxis(attrs.axis as number, data.shape.length);
      return [
        { dtype: data.dtype, shape: [...data.shape.slice(0, axis), ...idx.shape, ...data.shape.slice(axis + 1)] },
      ];
    },
  },
  GatherElements: {
    infer(inputs, attrs) {
      arity(inputs, 2);
      const [data, idx] = inputs as [TensorInfo, TensorInfo];
      if (idx.dtype !== 'int64') throw new Error(`indices must be int64, got ${idx.dtype}`);
      const axis = normAxis(attrs.axis as number, data.shape.length);
      if (idx.shape.length !== data.shape.length || idx.shape.some((d, i) => i !== axis && d !== data.shape[i])) {
        throw new Error(`indices ${fmt(idx.shape)} must match data ${fmt(data.shape)} outside axis ${axis}`);
      }
      if (axis !== data.shape.length - 1) throw new Error('only the last axis is supported');
      return [{ dtype: data.dtype, shape: idx.shape }];
    },
  },
  Softmax: {
    infer(inputs, attrs) {
      arity(inputs, 1);
      needFloat(inputs[0]!);
      normAxis(attrs.axis as number, inputs[0]!.shape.length);
      return [{ dtype: 'float32', shape: inputs[0]!.shape }];
    },
  },
  LayerNormalization: {
    infer(inputs) {
      arity(inputs, 3);
      const [x, scale, bias] = inputs as [TensorInfo, TensorInfo, TensorInfo];
      inputs.forEach((t) => needFloat(t));
      const d = x.shape[x.shape.length - 1];
      if (scale.shape.length !== 1 || scale.shape[0] !== d || bias.shape.length !== 1 || bias.shape[0] !== d) {
        throw new Error(
          `scale ${fmt(scale.shape)} and bias ${fmt(bias.shape)} must be [${d}] for input ${fmt(x.shape)}`,
        );
      }
      return [{ dtype: 'float32', shape: x.shape }];
    },
  },
  ReduceSum: reduce,
  ReduceMean: reduce,
  ReduceMax: reduce,
  ReduceLogSumExp: reduce,
} satisfies Record<string, OpDef>;

/** The name of an op in the table (opDefs). */
export type OpName = keyof typeof opDefs;
