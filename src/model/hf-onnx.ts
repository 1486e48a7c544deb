import { IR_VERSION, OPSET, tensorProto, type Initializer } from '../engine/onnx-export.ts';
import { ProtoWriter } from '../engine/protobuf.ts';
import type { ModelConfig } from './config.ts';
import type { HfTensors } from './hf-tensors.ts';
import { MASKED } from './transformer.ts';

/**
 * GPT-2 as the ONNX model transformers.js loads for a causal LM (`onnx/model.onnx`): inputs
 * input_ids, attention_mask (past + current), position_ids and past_key_values.N.key/value; outputs
 * logits and present.N.key/value, with batch and lengths left symbolic. It is written node by node
 * rather than with our graph builder (src/engine/graph.ts), whose shapes are static: transformers.js
 * feeds any length, and a KV cache that grows. The weights are the Hugging Face tensors themselves
 * (hf-export.ts), fused c_attn included, so this file and model.safetensors cannot drift apart.
 */

type Attr = { name: string; i?: number; f?: number; ints?: number[] };
type Dim = number | string;

interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs: Attr[];
}

class OnnxWriter {
  nodes: NodeSpec[] = [];
  inits: Initializer[] = [];
  private n = 0;

  node(op: string, inputs: string[], attrs: Attr[] = [], outputs?: string[]): string {
    const outs = outputs ?? [`${op.toLowerCase()}_${this.n++}`];
    this.nodes.push({ op, inputs, outputs: outs, attrs });
    return outs[0]!;
  }

  floats(name: string, shape: number[], data: Float32Array): string {
    if (this.inits.some((i) => i.name === name)) return name;
    this.inits.push({ name, dtype: 'float32', shape, data });
    return name;
  }

  ints(name: string, values: number[]): string {
    this.inits.push({ name, dtype: 'int64', shape: [values.length], data: BigInt64Array.from(values, BigInt) });
    return name;
  }

  scalar(name: string, v: number): string {
    this.inits.push({ name, dtype: 'float32', shape: [], data: Float32Array.of(v) });
    return name;
  }

  encode(inputs: [string, number, Dim[]][], outputs: [string, number, Dim[]][]): Uint8Array {
    const valueInfo = (w: ProtoWriter, [name, dtype, dims]: [string, number, Dim[]]) => {
      w.string(1, name);
      w.message(2, (type) =>
        type.message(1, (tt) => {
          tt.int(1, dtype);
          tt.message(2, (shape) => {
            for (const d of dims) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
          });
        }),
      );
    };
    const model = new ProtoWriter();
    model.int(1, IR_VERSION);
    model.string(2, 'rlvr-playground');
    model.message(8, (o) => o.string(1, '').int(2, OPSET));
    model.message(7, (gw) => {
      this.nodes.forEach((node, k) => {
        gw.message(1, (nw) => {
          node.inputs.forEach((i) => nw.string(1, i));
          node.outputs.forEach((o) => nw.string(2, o));
          nw.string(3, `n${k}_${node.op}`);
          nw.string(4, node.op);
          for (const a of node.attrs) {
            nw.message(5, (aw) => {
              aw.string(1, a.name);
              if (a.f !== undefined) aw.float(2, a.f).int(20, 1);
              else if (a.i !== undefined) aw.int(3, a.i).int(20, 2);
              else aw.packedInts(8, a.ints!).int(20, 7);
            });
          }
        });
      });
      gw.string(2, 'gpt2');
      for (const init of this.inits) gw.message(5, (tw) => tensorProto(tw, init));
      for (const i of inputs) gw.message(11, (vw) => valueInfo(vw, i));
      for (const o of outputs) gw.message(12, (vw) => valueInfo(vw, o));
    });
    return model.finish();
  }
}

const FLOAT = 1;
const INT64 = 7;

export function buildHfOnnx(c: ModelConfig, t: HfTensors, epsilon = 1e-5): Uint8Array {
  const g = new OnnxWriter();
  const d = c.dModel;
  const h = c.nHeads;
  const dh = d / h;
  const w = (name: string) => {
    const x = t.get(name);
    if (!x) throw new Error(`Hugging Face ONNX export: tensor "${name}" is missing`);
    return g.floats(name, x.shape, x.data);
  };
  const ln = (x: string, pre: string) =>
    g.node(
      'LayerNormalization',
      [x, w(pre + '.weight'), w(pre + '.bias')],
      [
        { name: 'axis', i: -1 },
        { name: 'epsilon', f: epsilon },
      ],
    );
  const linear = (x: string, pre: string) =>
    g.node('Add', [g.node('MatMul', [x, w(pre + '.weight')]), w(pre + '.bias')]);

  // Attention bias [B,1,T,S] (T new tokens, S = past + T keys): the rows past..past+T of a causal
  // n_positions² table, plus MASKED where attention_mask is 0 — the same additive bias as forward().
  const p = c.contextLength;
  const causal = new Float32Array(p * p);
  for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) causal[i * p + j] = MASKED;
  const [i0, i1, i2] = [g.ints('c_0', [0]), g.ints('c_1', [1]), g.ints('c_2', [2])];
  const one = g.scalar('one', 1);
  const seqLen = g.node('Slice', [g.node('Shape', ['input_ids']), i1, i2, i0]);
  const total = g.node('Slice', [g.node('Shape', ['attention_mask']), i1, i2, i0]);
  const starts = g.node('Concat', [g.node('Sub', [total, seqLen]), i0], [{ name: 'axis', i: 0 }]);
  const ends = g.node('Concat', [total, total], [{ name: 'axis', i: 0 }]);
  const causalRows = g.node('Slice', [
    g.floats('causal_bias', [p, p], causal),
    starts,
    ends,
    g.ints('axes_01', [0, 1]),
  ]);
  const maskF = g.node('Cast', ['attention_mask'], [{ name: 'to', i: FLOAT }]);
  const keyBias = g.node('Mul', [g.node('Sub', [one, maskF]), g.scalar('masked', MASKED)]);
  const bias = g.node('Add', [causalRows, g.node('Unsqueeze', [keyBias, g.ints('axes_12', [1, 2])])]);

  const heads = g.ints('heads_shape', [0, 0, h, dh]);
  const merge = g.ints('merge_shape', [0, 0, d]);
  const split = g.ints('qkv_split', [d, d, d]);
  const scale = g.scalar('attn_scale', 1 / Math.sqrt(dh));
  const half = g.scalar('half', 0.5);
  const invSqrt2 = g.scalar('inv_sqrt2', Math.SQRT1_2);

  let x = g.node('Add', [
    g.node('Gather', [w('transformer.wte.weight'), 'input_ids'], [{ name: 'axis', i: 0 }]),
    g.node('Gather', [w('transformer.wpe.weight'), 'position_ids'], [{ name: 'axis', i: 0 }]),
  ]);
  for (let l = 0; l < c.nLayers; l++) {
    const pre = `transformer.h.${l}.`;
    const qkv = linear(ln(x, pre + 'ln_1'), pre + 'attn.c_attn');
    const parts = [`l${l}_q`, `l${l}_k`, `l${l}_v`];
    g.node('Split', [qkv, split], [{ name: 'axis', i: 2 }], parts);
    const [q, k, v] = parts.map((s) =>
      g.node('Transpose', [g.node('Reshape', [s, heads])], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
    );
    const kAll = g.node('Concat', [`past_key_values.${l}.key`, k!], [{ name: 'axis', i: 2 }], [`present.${l}.key`]);
    const vAll = g.node('Concat', [`past_key_values.${l}.value`, v!], [{ name: 'axis', i: 2 }], [`present.${l}.value`]);
    const scores = g.node('Add', [
      g.node('Mul', [
        g.node('MatMul', [q!, g.node('Transpose', [kAll], [{ name: 'perm', ints: [0, 1, 3, 2] }])]),
        scale,
      ]),
      bias,
    ]);
    const ctx = g.node('MatMul', [g.node('Softmax', [scores], [{ name: 'axis', i: -1 }]), vAll]);
    const merged = g.node('Reshape', [g.node('Transpose', [ctx], [{ name: 'perm', ints: [0, 2, 1, 3] }]), merge]);
    x = g.node('Add', [x, linear(merged, pre + 'attn.c_proj')]);
    const a = linear(ln(x, pre + 'ln_2'), pre + 'mlp.c_fc');
    const gelu = g.node('Mul', [
      g.node('Mul', [a, half]),
      g.node('Add', [g.node('Erf', [g.node('Mul', [a, invSqrt2])]), one]),
    ]);
    x = g.node('Add', [x, linear(gelu, pre + 'mlp.c_proj')]);
  }
  const wteT = g.node('Transpose', ['transformer.wte.weight'], [{ name: 'perm', ints: [1, 0] }]);
  g.node('MatMul', [ln(x, 'transformer.ln_f'), wteT], [], ['logits']);

  const cache = (prefix: string, len: string): [string, number, Dim[]][] =>
    Array.from({ length: c.nLayers }, (_, l) =>
      ['key', 'value'].map((kv): [string, number, Dim[]] => [
        `${prefix}.${l}.${kv}`,
        FLOAT,
        ['batch_size', h, len, dh],
      ]),
    ).flat();
  return g.encode(
    [
      ['input_ids', INT64, ['batch_size', 'sequence_length']],
      ['attention_mask', INT64, ['batch_size', 'total_sequence_length']],
      ['position_ids', INT64, ['batch_size', 'sequence_length']],
      ...cache('past_key_values', 'past_sequence_length'),
    ],
    [['logits', FLOAT, ['batch_size', 'sequence_length', c.vocabSize]], ...cache('present', 'total_sequence_length')],
  );
}
