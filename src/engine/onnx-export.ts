import type { Graph, Tensor } from './graph.ts';
import type { AttrValue } from './ops.ts';
import { ProtoWriter } from './protobuf.ts';
import type { DType } from './shape.ts';

export const OPSET = 17;
export const IR_VERSION = 8;

/** ONNX TensorProto.DataType codes. */
const ONNX_DTYPE: Record<DType, number> = { float32: 1, int64: 7, bool: 9 };

export interface Initializer {
  name: string;
  dtype: DType;
  shape: readonly number[];
  data: Float32Array | BigInt64Array | Uint8Array;
  /**
   * The name of an external data file that holds the values instead of the model (ONNX's external data; the
   * session is given the file's bytes, compile.ts `externalData`): onnxruntime-web then copies them once, straight
   * into the tensor's memory, where values inside the model are copied with the model, parsed and copied again.
   */
  external?: string;
}

/** The values as bytes (a view, not a copy). */
export const initializerBytes = (t: Initializer): Uint8Array =>
  new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);

export function tensorProto(w: ProtoWriter, t: Initializer): void {
  w.packedInts(1, t.shape);
  w.int(2, ONNX_DTYPE[t.dtype]);
  w.string(8, t.name);
  if (t.external === undefined) {
    w.bytes(9, initializerBytes(t));
    return;
  }
  // external_data (13): StringStringEntryProto {key 1, value 2}; data_location (14) EXTERNAL = 1
  w.message(13, (e) => e.string(1, 'location').string(2, t.external!));
  w.message(13, (e) => e.string(1, 'length').string(2, String(t.data.byteLength)));
  w.int(14, 1);
}

function valueInfo(w: ProtoWriter, t: Tensor): void {
  w.string(1, t.name);
  w.message(2, (type) =>
    type.message(1, (tt) => {
      tt.int(1, ONNX_DTYPE[t.dtype]);
      tt.message(2, (shape) => {
        for (const d of t.shape) shape.message(1, (dim) => dim.int(1, d));
      });
    }),
  );
}

type OnnxAttr = { name: string; ints?: number[]; i?: number; f?: number };

/** Our IR keeps shape-like operands as attributes; ONNX wants some of them as constant inputs. */
function lowerNode(
  op: string,
  attrs: Record<string, AttrValue>,
  extraInits: Initializer[],
  nodeName: string,
): { attrs: OnnxAttr[]; extraInputs: string[] } {
  const constInput = (suffix: string, values: number[], dtype: DType = 'int64'): string => {
    const name = `${nodeName}_${suffix}`;
    extraInits.push({
      name,
      dtype,
      shape: [values.length],
      data: dtype === 'int64' ? BigInt64Array.from(values, (v) => BigInt(v)) : Float32Array.from(values),
    });
    return name;
  };
  const scalarInput = (suffix: string, v: number): string => {
    const name = `${nodeName}_${suffix}`;
    extraInits.push({ name, dtype: 'float32', shape: [], data: Float32Array.of(v) });
    return name;
  };
  switch (op) {
    case 'Reshape':
    case 'Expand':
      return { attrs: [], extraInputs: [constInput('shape', attrs.shape as number[])] };
    case 'Slice': {
      const a = attrs as { starts: number[]; ends: number[]; axes: number[] };
      return {
        attrs: [],
        extraInputs: [constInput('starts', a.starts), constInput('ends', a.ends), constInput('axes', a.axes)],
      };
    }
    case 'Clip':
      return {
        attrs: [],
        extraInputs: [scalarInput('min', attrs.min as number), scalarInput('max', attrs.max as number)],
      };
    case 'ReduceSum':
      return {
        attrs: [{ name: 'keepdims', i: attrs.keepdims as number }],
        extraInputs: [constInput('axes', attrs.axes as number[])],
      };
    case 'ReduceMean':
    case 'ReduceMax':
    case 'ReduceLogSumExp':
      return {
        attrs: [
          { name: 'axes', ints: attrs.axes as number[] },
          { name: 'keepdims', i: attrs.keepdims as number },
        ],
        extraInputs: [],
      };
    case 'Cast':
      return { attrs: [{ name: 'to', i: ONNX_DTYPE[attrs.to as DType] }], extraInputs: [] };
    case 'Transpose':
      return { attrs: [{ name: 'perm', ints: attrs.perm as number[] }], extraInputs: [] };
    case 'Concat':
    case 'Gather':
    case 'GatherElements':
    case 'Softmax':
      return { attrs: [{ name: 'axis', i: attrs.axis as number }], extraInputs: [] };
    case 'LayerNormalization':
      return {
        attrs: [
          { name: 'axis', i: attrs.axis as number },
          { name: 'epsilon', f: attrs.epsilon as number },
        ],
        extraInputs: [],
      };
    default:
      return { attrs: [], extraInputs: [] };
  }
}

export interface ExportOptions {
  /** Graph inputs to bake in as initializers (weights of a standalone inference model). */
  initializers?: Initializer[];
  name?: string;
}

/** The nodes that some output depends on, in graph order (autodiff and shared builders leave dead ones). */
export function liveNodes(graph: Graph): Graph['nodes'] {
  const needed = new Set(graph.outputs.map((t) => t.id));
  const keep: boolean[] = new Array(graph.nodes.length).fill(false);
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const n = graph.nodes[i]!;
    if (n.outputs.some((t) => needed.has(t.id))) {
      keep[i] = true;
      n.inputs.forEach((t) => needed.add(t.id));
    }
  }
  return graph.nodes.filter((_, i) => keep[i]);
}

/** Serialises a graph to ONNX ModelProto bytes (opset 17). Dead nodes and unused constants are dropped. */
export function exportOnnx(graph: Graph, opts: ExportOptions = {}): Uint8Array {
  const nodes = liveNodes(graph);
  const used = new Set(nodes.flatMap((n) => n.inputs.map((t) => t.id)));
  graph.outputs.forEach((t) => used.add(t.id));
  const baked = new Set((opts.initializers ?? []).map((i) => i.name));
  const inits: Initializer[] = [...(opts.initializers ?? [])];
  for (const c of graph.constants)
    if (used.has(c.tensor.id))
      inits.push({ name: c.tensor.name, dtype: c.tensor.dtype, shape: c.tensor.shape, data: c.data });

  const model = new ProtoWriter();
  model.int(1, IR_VERSION);
  model.string(2, 'rlvr-playground');
  model.message(8, (o) => o.string(1, '').int(2, OPSET));
  model.message(7, (gw) => {
    nodes.forEach((node, i) => {
      const nodeName = `n${i}_${node.op}`;
      const lowered = lowerNode(node.op, node.attrs, inits, nodeName);
      gw.message(1, (nw) => {
        for (const t of node.inputs) nw.string(1, t.name);
        for (const e of lowered.extraInputs) nw.string(1, e);
        for (const t of node.outputs) nw.string(2, t.name);
        nw.string(3, nodeName);
        nw.string(4, node.op);
        for (const a of lowered.attrs) {
          nw.message(5, (aw) => {
            aw.string(1, a.name);
            if (a.f !== undefined) aw.float(2, a.f).int(20, 1);
            else if (a.i !== undefined) aw.int(3, a.i).int(20, 2);
            else aw.packedInts(8, a.ints!).int(20, 7);
          });
        }
      });
    });
    gw.string(2, opts.name ?? 'graph');
    for (const init of inits) gw.message(5, (tw) => tensorProto(tw, init));
    for (const t of graph.inputs) if (!baked.has(t.name)) gw.message(11, (vw) => valueInfo(vw, t));
    for (const t of graph.outputs) gw.message(12, (vw) => valueInfo(vw, t));
  });
  return model.finish();
}
