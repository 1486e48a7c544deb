import type { Graph, Tensor } from '../engine/graph.ts';
import type { ModelConfig } from './config.ts';
import { linear } from './lora.ts';
import type { ParamSpec, Params } from './param-spec.ts';

/**
 * The pieces of transformers' LlamaForCausalLM (and Qwen2ForCausalLM, which adds q/k/v biases) that
 * differ from the playground's GPT-2: rotary positions, RMSNorm, a SwiGLU MLP, grouped-query attention
 * and an optionally untied head. transformer.ts calls them where its blocks differ by architecture, so
 * the scoring, training and KV-cache decode graphs are the same code for both. Weights are stored as
 * x·W ([in, out], the transpose of a torch Linear's weight), like the GPT-2 ones.
 */
export function llamaParamSpecs(c: ModelConfig): Omit<ParamSpec, 'decay'>[] {
  const d = c.dModel;
  const dh = d / c.nHeads;
  const q = c.nHeads * dh;
  const kv = (c.nKvHeads ?? c.nHeads) * dh;
  const specs: Omit<ParamSpec, 'decay'>[] = [{ name: 'wte', shape: [c.vocabSize, d], init: 'normal' }];
  if (c.tiedEmbeddings === false) specs.push({ name: 'lm_head', shape: [c.vocabSize, d], init: 'normal' });
  for (let l = 0; l < c.nLayers; l++) {
    const p = `h${l}.`;
    const bias = (name: string, n: number): Omit<ParamSpec, 'decay'>[] =>
      c.qkvBias ? [{ name: p + 'attn.' + name, shape: [n], init: 'zeros' }] : [];
    specs.push(
      { name: p + 'ln1.g', shape: [d], init: 'ones' },
      { name: p + 'attn.wq', shape: [d, q], init: 'normal' },
      ...bias('bq', q),
      { name: p + 'attn.wk', shape: [d, kv], init: 'normal' },
      ...bias('bk', kv),
      { name: p + 'attn.wv', shape: [d, kv], init: 'normal' },
      ...bias('bv', kv),
      { name: p + 'attn.wo', shape: [q, d], init: 'residual' },
      { name: p + 'ln2.g', shape: [d], init: 'ones' },
      { name: p + 'mlp.wg', shape: [d, c.dFF], init: 'normal' },
      { name: p + 'mlp.wu', shape: [d, c.dFF], init: 'normal' },
      { name: p + 'mlp.wd', shape: [c.dFF, d], init: 'residual' },
    );
  }
  specs.push({ name: 'lnf.g', shape: [d], init: 'ones' });
  return specs;
}

/** transformers' LlamaConfig default rms_norm_eps and rope_theta. */
export const LLAMA_DEFAULTS = { normEps: 1e-6, ropeTheta: 10000 };

/**
 * cos and sin of every position, [contextLength, dh], in float32 as transformers' default rotary
 * embedding computes them: inv_freq = 1 / θ^(2i/dh) in float32, angle = position · inv_freq, and the
 * angles of the two halves repeated (cat(freqs, freqs)).
 */
export function ropeTables(c: ModelConfig): { cos: Float32Array; sin: Float32Array } {
  const dh = c.dModel / c.nHeads;
  const half = dh / 2;
  const theta = c.ropeTheta ?? LLAMA_DEFAULTS.ropeTheta;
  const inv = Array.from({ length: half }, (_, i) => Math.fround(1 / Math.fround(theta ** Math.fround((2 * i) / dh))));
  const cos = new Float32Array(c.contextLength * dh);
  const sin = new Float32Array(c.contextLength * dh);
  for (let p = 0; p < c.contextLength; p++)
    for (let i = 0; i < dh; i++) {
      const angle = Math.fround(p * inv[i % half]!);
      cos[p * dh + i] = Math.cos(angle);
      sin[p * dh + i] = Math.sin(angle);
    }
  return { cos, sin };
}

export interface Rope {
  cos: Tensor; // [B,1,T,dh]: broadcast over the heads
  sin: Tensor;
}

const tables = new WeakMap<Graph, { cos: Tensor; sin: Tensor }>();

/**
 * The rotary tables at `positions` ([B,T] or [B] int64) as [B,1,T,dh] ([B,1,1,dh] for [B]); one table
 * constant per graph.
 */
export function ropeAt(g: Graph, c: ModelConfig, positions: Tensor): Rope {
  const dh = c.dModel / c.nHeads;
  let t = tables.get(g);
  if (!t) {
    const { cos, sin } = ropeTables(c);
    t = { cos: g.constant(cos, [c.contextLength, dh]), sin: g.constant(sin, [c.contextLength, dh]) };
    tables.set(g, t);
  }
  const [b, len] = positions.shape.length === 1 ? [positions.shape[0]!, 1] : (positions.shape as [number, number]);
  const at = (table: Tensor) => g.reshape(g.gather(table, positions), [b, 1, len, dh]);
  return { cos: at(t.cos), sin: at(t.sin) };
}

const eps = (c: ModelConfig) => c.normEps ?? LLAMA_DEFAULTS.normEps;

/**
 * [B,T,D] -> q, k, v as [B,H,T,dh]: RMSNorm, the projections (with Qwen2's biases), rotary positions on
 * q and k, q scaled by 1/sqrt(dh), and the KV heads repeated to H (grouped-query attention) so the
 * attention and the KV caches downstream are the multi-head ones.
 */
export function llamaQkv(
  g: Graph,
  c: ModelConfig,
  p: Params,
  l: number,
  x: Tensor,
  rope: Rope,
): [Tensor, Tensor, Tensor] {
  const [b, t] = x.shape as [number, number, number];
  const h = c.nHeads;
  const kvh = c.nKvHeads ?? h;
  const dh = c.dModel / h;
  const pre = `h${l}.attn.`;
  const n = g.rmsNorm(x, p[`h${l}.ln1.g`]!, eps(c));
  const proj = (w: string, heads: number) => {
    const y = linear(g, c, p, pre + 'w' + w, n);
    const biased = c.qkvBias ? g.add(y, p[pre + 'b' + w]!) : y;
    return g.transpose(g.reshape(biased, [b, t, heads, dh]), [0, 2, 1, 3]);
  };
  const q = g.mul(g.rope(proj('q', h), rope.cos, rope.sin), 1 / Math.sqrt(dh));
  const k = g.repeatHeads(g.rope(proj('k', kvh), rope.cos, rope.sin), h / kvh);
  const v = g.repeatHeads(proj('v', kvh), h / kvh);
  return [q, k, v];
}

/** The attention output projection (no bias in Llama or Qwen2). */
export function llamaAttnOut(g: Graph, c: ModelConfig, p: Params, l: number, merged: Tensor): Tensor {
  return linear(g, c, p, `h${l}.attn.wo`, merged);
}

/** x + down(silu(gate(n)) · up(n)), n = RMSNorm(x): the residual MLP block. */
export function llamaMlp(g: Graph, c: ModelConfig, p: Params, l: number, x: Tensor): Tensor {
  const pre = `h${l}.`;
  const n = g.rmsNorm(x, p[pre + 'ln2.g']!, eps(c));
  const gated = g.mul(g.silu(linear(g, c, p, pre + 'mlp.wg', n)), linear(g, c, p, pre + 'mlp.wu', n));
  return g.add(x, linear(g, c, p, pre + 'mlp.wd', gated));
}

/** The final RMSNorm and the output head (the token embedding when tied, else lm_head). */
export function llamaHead(g: Graph, c: ModelConfig, p: Params, x: Tensor): Tensor {
  const n = g.rmsNorm(x, p['lnf.g']!, eps(c));
  return g.matmul(n, g.transpose(p[c.tiedEmbeddings === false ? 'lm_head' : 'wte']!, [1, 0]));
}
