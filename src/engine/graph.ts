import { broadcastShapes, fmt, type DType, type Shape } from './shape.ts';
import { opDefs, type Attrs, type OpDef, type OpName } from './ops.ts';

/** A value in the graph: its dtype and static shape are known as soon as it is created. */
export interface Tensor {
  readonly id: number;
  readonly name: string;
  readonly dtype: DType;
  readonly shape: Shape;
  readonly graph: Graph;
}

export interface Node {
  readonly op: OpName;
  readonly inputs: Tensor[];
  readonly outputs: Tensor[];
  readonly attrs: Attrs;
}

export interface Constant {
  tensor: Tensor;
  data: Float32Array | BigInt64Array | Uint8Array;
}

export class GraphError extends Error {}

/**
 * A small typed tensor-graph builder. Ops check dtypes and shapes as they are added and throw a
 * GraphError naming the op and the shapes, so a mistake fails at build time, never inside ONNX Runtime.
 */
export class Graph {
  readonly nodes: Node[] = [];
  readonly inputs: Tensor[] = [];
  readonly outputs: Tensor[] = [];
  readonly constants: Constant[] = [];
  /** Gradients given by hand (withGradient), by the id of the tensor they differentiate. */
  /** Hand-written gradient rules (withGradient); a null rule stops the gradient (stopGradient). */
  readonly customGradients = new Map<number, { x: Tensor; rule: ((dy: Tensor) => Tensor) | null }>();
  private nextId = 0;
  private names = new Set<string>();

  /**
   * `forwardOnly`: the graph is never differentiated (sampling, scoring), so builders may emit the op
   * patterns ONNX Runtime fuses into single kernels instead of keeping intermediates a gradient reuses.
   */
  constructor(readonly opts: { forwardOnly?: boolean } = {}) {}

  get forwardOnly(): boolean {
    return this.opts.forwardOnly === true;
  }

  private newTensor(dtype: DType, shape: Shape, name?: string): Tensor {
    const id = this.nextId++;
    let n = name ?? `t${id}`;
    if (this.names.has(n)) {
      if (name !== undefined) throw new GraphError(`duplicate tensor name "${name}"`);
      n = `t${id}_${this.names.size}`;
    }
    this.names.add(n);
    return { id, name: n, dtype, shape: [...shape], graph: this };
  }

  input(name: string, dtype: DType, shape: Shape): Tensor {
    for (const d of shape) {
      if (!Number.isInteger(d) || d <= 0)
        throw new GraphError(`input "${name}": every dimension must be a positive integer, got ${fmt(shape)}`);
    }
    const t = this.newTensor(dtype, shape, name);
    this.inputs.push(t);
    return t;
  }

  output(t: Tensor, name?: string): Tensor {
    this.own(t, 'output');
    const out = name && name !== t.name ? this.op('Identity', [t], {}, name)[0]! : t;
    if (this.inputs.includes(out)) throw new GraphError(`output "${out.name}" is a graph input: give it a new name`);
    this.outputs.push(out);
    return out;
  }

  constant(values: ArrayLike<number> | number, shape: Shape = [], dtype: DType = 'float32'): Tensor {
    const arr = typeof values === 'number' ? [values] : Array.from(values);
    let n = 1;
    for (const d of shape) n *= d;
    if (arr.length !== n) throw new GraphError(`constant: ${arr.length} values do not fill shape ${fmt(shape)}`);
    const t = this.newTensor(dtype, shape);
    const data =
      dtype === 'float32'
        ? Float32Array.from(arr)
        : dtype === 'int64'
          ? BigInt64Array.from(arr, (v) => BigInt(Math.trunc(v)))
          : Uint8Array.from(arr, (v) => (v ? 1 : 0));
    this.constants.push({ tensor: t, data });
    return t;
  }

  scalar(v: number): Tensor {
    return this.constant(v, []);
  }

  /**
   * Declares y = f(x) differentiable by a hand-written rule, dL/dx = rule(dL/dy), instead of the chain
   * rule through the ops that computed y (autodiff.ts does not look inside). For element-wise
   * functions whose derivative has a shorter form than its chain rule; check it with gradcheck.ts.
   */
  withGradient(y: Tensor, x: Tensor, rule: (dy: Tensor) => Tensor): Tensor {
    this.own(y, 'withGradient');
    this.own(x, 'withGradient');
    this.customGradients.set(y.id, { x, rule });
    return y;
  }

  /**
   * y = x in the forward pass, but no gradient flows from y back to x: torch's `.detach()`. Used where
   * an objective multiplies by a weight it must not differentiate (CISPO's clipped ratio, VESPO's
   * gamma weight).
   */
  stopGradient(x: Tensor): Tensor {
    const y = this.identity(x);
    this.customGradients.set(y.id, { x, rule: null });
    return y;
  }

  private own(t: Tensor, op: string): void {
    if (!t || t.graph !== this)
      throw new GraphError(`${op}: input ${t ? `"${t.name}"` : 'undefined'} belongs to another graph`);
  }

  /** Adds a node; the op's definition infers (and checks) the output types. */
  op(op: OpName, inputs: Tensor[], attrs: Attrs = {}, outName?: string): Tensor[] {
    // Typed callers cannot name an op outside the table; this still guards plain JavaScript callers.
    const def: OpDef | undefined = opDefs[op];
    if (!def) throw new GraphError(`unknown op "${op}" (known: ${Object.keys(opDefs).join(', ')})`);
    inputs.forEach((t) => this.own(t, op));
    let infos;
    try {
      infos = def.infer(inputs, attrs);
    } catch (e) {
      const desc = inputs.map((t) => `${t.name}:${t.dtype}${fmt(t.shape)}`).join(', ');
      throw new GraphError(`${op}(${desc}): ${(e as Error).message}`);
    }
    const outputs = infos.map((info, i) => this.newTensor(info.dtype, info.shape, i === 0 ? outName : undefined));
    this.nodes.push({ op, inputs, outputs, attrs });
    return outputs;
  }

  private one(op: OpName, inputs: Tensor[], attrs: Attrs = {}): Tensor {
    return this.op(op, inputs, attrs)[0]!;
  }

  // Elementwise arithmetic (numpy broadcasting). Numbers become float scalar constants.
  add(a: Tensor, b: Tensor | number): Tensor {
    return this.one('Add', [a, this.lift(b)]);
  }
  sub(a: Tensor | number, b: Tensor | number): Tensor {
    return this.one('Sub', [this.lift(a), this.lift(b)]);
  }
  mul(a: Tensor, b: Tensor | number): Tensor {
    return this.one('Mul', [a, this.lift(b)]);
  }
  div(a: Tensor | number, b: Tensor | number): Tensor {
    return this.one('Div', [this.lift(a), this.lift(b)]);
  }
  pow(a: Tensor, b: Tensor | number): Tensor {
    return this.one('Pow', [a, this.lift(b)]);
  }
  neg(a: Tensor): Tensor {
    return this.mul(a, -1);
  }
  exp(a: Tensor): Tensor {
    return this.one('Exp', [a]);
  }
  log(a: Tensor): Tensor {
    return this.one('Log', [a]);
  }
  sqrt(a: Tensor): Tensor {
    return this.one('Sqrt', [a]);
  }
  tanh(a: Tensor): Tensor {
    return this.one('Tanh', [a]);
  }
  sigmoid(a: Tensor): Tensor {
    return this.one('Sigmoid', [a]);
  }
  erf(a: Tensor): Tensor {
    return this.one('Erf', [a]);
  }
  clip(a: Tensor, min: number, max: number): Tensor {
    return this.one('Clip', [a], { min, max });
  }
  identity(a: Tensor): Tensor {
    return this.one('Identity', [a]);
  }

  /** Elementwise minimum, via Where (WebGPU-safe). */
  minimum(a: Tensor, b: Tensor | number): Tensor {
    const bt = this.lift(b);
    return this.where(this.less(a, bt), a, bt);
  }
  maximum(a: Tensor, b: Tensor | number): Tensor {
    const bt = this.lift(b);
    return this.where(this.less(a, bt), bt, a);
  }

  equal(a: Tensor, b: Tensor | number): Tensor {
    return this.one('Equal', [a, this.lift(b, a.dtype)]);
  }
  less(a: Tensor, b: Tensor | number): Tensor {
    return this.one('Less', [a, this.lift(b, a.dtype)]);
  }
  greater(a: Tensor, b: Tensor | number): Tensor {
    return this.one('Greater', [a, this.lift(b, a.dtype)]);
  }
  where(cond: Tensor, a: Tensor | number, b: Tensor | number): Tensor {
    return this.one('Where', [cond, this.lift(a), this.lift(b)]);
  }
  cast(a: Tensor, to: DType): Tensor {
    return a.dtype === to ? a : this.one('Cast', [a], { to });
  }

  matmul(a: Tensor, b: Tensor): Tensor {
    return this.one('MatMul', [a, b]);
  }
  transpose(a: Tensor, perm: number[]): Tensor {
    return this.one('Transpose', [a], { perm });
  }
  reshape(a: Tensor, shape: number[]): Tensor {
    return this.one('Reshape', [a], { shape });
  }
  expand(a: Tensor, shape: number[]): Tensor {
    return this.one('Expand', [a], { shape });
  }
  concat(ts: Tensor[], axis: number): Tensor {
    return this.one('Concat', ts, { axis });
  }
  /** Slice with step 1 along the given axes. */
  slice(a: Tensor, starts: number[], ends: number[], axes: number[]): Tensor {
    return this.one('Slice', [a], { starts, ends, axes });
  }
  gather(data: Tensor, indices: Tensor, axis = 0): Tensor {
    return this.one('Gather', [data, indices], { axis });
  }
  gatherElements(data: Tensor, indices: Tensor, axis: number): Tensor {
    return this.one('GatherElements', [data, indices], { axis });
  }
  softmax(a: Tensor, axis = -1): Tensor {
    return this.one('Softmax', [a], { axis });
  }
  layerNorm(x: Tensor, scale: Tensor, bias: Tensor, epsilon = 1e-5): Tensor {
    return this.one('LayerNormalization', [x, scale, bias], { axis: -1, epsilon });
  }
  reduceSum(a: Tensor, axes: number[], keepdims = true): Tensor {
    return this.one('ReduceSum', [a], { axes, keepdims: keepdims ? 1 : 0 });
  }
  reduceMean(a: Tensor, axes: number[], keepdims = true): Tensor {
    return this.one('ReduceMean', [a], { axes, keepdims: keepdims ? 1 : 0 });
  }
  reduceMax(a: Tensor, axes: number[], keepdims = true): Tensor {
    return this.one('ReduceMax', [a], { axes, keepdims: keepdims ? 1 : 0 });
  }
  reduceLogSumExp(a: Tensor, axes: number[], keepdims = true): Tensor {
    return this.one('ReduceLogSumExp', [a], { axes, keepdims: keepdims ? 1 : 0 });
  }

  /** log-softmax composed from WebGPU-supported ops: x - logsumexp(x). */
  logSoftmax(a: Tensor, axis = -1): Tensor {
    return this.sub(a, this.reduceLogSumExp(a, [axis], true));
  }
  sumAll(a: Tensor): Tensor {
    return this.reduceSum(
      a,
      a.shape.map((_, i) => i),
      false,
    );
  }
  meanAll(a: Tensor): Tensor {
    return this.reduceMean(
      a,
      a.shape.map((_, i) => i),
      false,
    );
  }
  /** Inserts a dimension of size 1 (a Reshape, since shapes are static). */
  unsqueeze(a: Tensor, axis: number): Tensor {
    const s = [...a.shape];
    s.splice(axis < 0 ? s.length + axis + 1 : axis, 0, 1);
    return this.reshape(a, s);
  }
  /**
   * one-hot (float32) of integer indices, from float ops only (int64 Equal/Reshape/Cast have no WebGPU
   * kernel): each index as a float (a Gather from the column 0..depth-1), d = index - j for every
   * column j, and clip(1 - d², 0, 1): exactly 1 where d = 0 and 0 elsewhere (|d| ≥ 1). Two constants of
   * depth values, where a constant identity would hold depth² (at a 49,152-token vocabulary, 2.4
   * billion values: more than a JavaScript array can hold).
   */
  oneHot(indices: Tensor, depth: number): Tensor {
    const iota = Array.from({ length: depth }, (_, j) => j);
    const at = this.gather(this.constant(iota, [depth, 1]), indices, 0); // [...indices, 1]
    const d = this.sub(at, this.constant(iota, [depth]));
    return this.clip(this.sub(1, this.mul(d, d)), 0, 1);
  }

  /**
   * RMSNorm (Llama, Qwen2): x / sqrt(mean(x²) + eps) · scale over the last axis, composed from table ops
   * (exact: the same arithmetic transformers' LlamaRMSNorm does, so no op, rule or kernel of its own).
   */
  rmsNorm(x: Tensor, scale: Tensor, epsilon: number): Tensor {
    const rstd = this.div(1, this.sqrt(this.add(this.reduceMean(this.mul(x, x), [-1], true), epsilon)));
    return this.mul(this.mul(x, rstd), scale);
  }
  /** SiLU (swish), x·sigmoid(x): the gate of Llama's SwiGLU MLP. */
  silu(x: Tensor): Tensor {
    return this.mul(x, this.sigmoid(x));
  }
  /**
   * Rotary position embedding over the last axis (d even), transformers' apply_rotary_pos_emb:
   * x·cos + rotate_half(x)·sin, rotate_half(x) = [-x₂, x₁] for the halves x₁, x₂. rotate_half is a
   * MatMul by a constant signed permutation: exact (each output is one input times ±1 plus zeros) and one
   * node whose gradient the MatMul rule already gives, where Slice/Concat would add zero-padded Concats.
   */
  rope(x: Tensor, cos: Tensor, sin: Tensor): Tensor {
    const d = x.shape[x.shape.length - 1]!;
    if (d % 2) throw new GraphError(`rope: the last axis must be even, got ${fmt(x.shape)}`);
    const half = d / 2;
    const r = new Array<number>(d * d).fill(0);
    for (let j = 0; j < half; j++) {
      r[(j + half) * d + j] = -1;
      r[j * d + j + half] = 1;
    }
    return this.add(this.mul(x, cos), this.mul(this.matmul(x, this.constant(r, [d, d])), sin));
  }
  /**
   * Each of the heads on axis 1 repeated `n` times in place ([B,KV,T,d] -> [B,KV·n,T,d], head h reads
   * KV head ⌊h/n⌋): transformers' repeat_kv for grouped-query attention, as Reshape/Expand/Reshape.
   */
  repeatHeads(x: Tensor, n: number): Tensor {
    if (n === 1) return x;
    const [b, kv, ...rest] = x.shape as [number, number, ...number[]];
    const e = this.expand(this.reshape(x, [b, kv, 1, ...rest]), [b, kv, n, ...rest]);
    return this.reshape(e, [b, kv * n, ...rest]);
  }

  /** Reduces a broadcast gradient back to `shape` (sums over the broadcast dimensions). */
  sumToShape(t: Tensor, shape: Shape): Tensor {
    if (t.shape.length === shape.length && t.shape.every((d, i) => d === shape[i])) return t;
    if (!broadcastShapes(t.shape, shape))
      throw new GraphError(`sumToShape: ${fmt(t.shape)} does not broadcast from ${fmt(shape)}`);
    const lead = t.shape.length - shape.length;
    const axes: number[] = [];
    for (let i = 0; i < t.shape.length; i++) {
      if (i < lead || (shape[i - lead] === 1 && t.shape[i] !== 1)) axes.push(i);
    }
    const r = axes.length ? this.reduceSum(t, axes, true) : t;
    return this.reshape(r, [...shape]);
  }

  private lift(v: Tensor | number, dtype: DType = 'float32'): Tensor {
    return typeof v === 'number' ? this.constant(v, [], dtype) : v;
  }
}
