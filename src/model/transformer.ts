import type { Graph, Tensor } from '../engine/graph.ts';
import { Rng } from '../util/rng.ts';
import { isLlama, type ModelConfig } from './config.ts';
import type { ParamSpec, Params } from './param-spec.ts';
import { adapterSpecs, initAdapters, linear } from './lora.ts';
import { llamaAttnOut, llamaHead, llamaMlp, llamaParamSpecs, llamaQkv, ropeAt, type Rope } from './llama.ts';

/**
 * A decoder-only transformer: learned token and position embeddings, pre-LayerNorm blocks with causal
 * multi-head attention and a GELU MLP, a final LayerNorm and an output head tied to the token embedding.
 * Written once against the graph builder; the same code builds the scoring/training graph (whole
 * sequences) and the incremental decode graph (one token per row, static KV cache). With
 * `arch: 'llama'` the blocks are transformers' Llama/Qwen2 ones instead (llama.ts): the functions below
 * choose per block, so the same graphs serve both.
 */
export type { ParamSpec, Params };

/** Biases end in `.b` + suffix, LayerNorm parameters sit under `ln1.`, `ln2.`, `lnf.`. */
const decays = (name: string) => !/(^|\.)ln(\d|f)\./.test(name) && !/\.b[a-z0-9]*$/.test(name);

/**
 * The model's weights in order. With `c.lora` the base weights come first, `frozen`, then the adapters
 * (lora.ts adapterSpecs), which AdamW decays like any weight matrix (as transformers' Trainer does).
 */
export function paramSpecs(c: ModelConfig): ParamSpec[] {
  const base = baseParamSpecs(c);
  if (!c.lora) return base;
  return [...base.map((s) => ({ ...s, frozen: true })), ...adapterSpecs(c, base).map((s) => ({ ...s, decay: true }))];
}

/** The weights that train: all of them, or only the adapters under LoRA. */
export const trainableSpecs = (c: ModelConfig): ParamSpec[] => paramSpecs(c).filter((s) => !s.frozen);

function baseParamSpecs(c: ModelConfig): ParamSpec[] {
  if (isLlama(c)) return llamaParamSpecs(c).map((s) => ({ ...s, decay: decays(s.name) }));
  const d = c.dModel;
  const specs: Omit<ParamSpec, 'decay'>[] = [
    { name: 'wte', shape: [c.vocabSize, d], init: 'normal' },
    { name: 'wpe', shape: [c.contextLength, d], init: 'normal' },
  ];
  for (let l = 0; l < c.nLayers; l++) {
    const p = `h${l}.`;
    specs.push(
      { name: p + 'ln1.g', shape: [d], init: 'ones' },
      { name: p + 'ln1.b', shape: [d], init: 'zeros' },
      { name: p + 'attn.wq', shape: [d, d], init: 'normal' },
      { name: p + 'attn.bq', shape: [d], init: 'zeros' },
      { name: p + 'attn.wk', shape: [d, d], init: 'normal' },
      { name: p + 'attn.bk', shape: [d], init: 'zeros' },
      { name: p + 'attn.wv', shape: [d, d], init: 'normal' },
      { name: p + 'attn.bv', shape: [d], init: 'zeros' },
      { name: p + 'attn.wo', shape: [d, d], init: 'residual' },
      { name: p + 'attn.bo', shape: [d], init: 'zeros' },
      { name: p + 'ln2.g', shape: [d], init: 'ones' },
      { name: p + 'ln2.b', shape: [d], init: 'zeros' },
      { name: p + 'mlp.w1', shape: [d, c.dFF], init: 'normal' },
      { name: p + 'mlp.b1', shape: [c.dFF], init: 'zeros' },
      { name: p + 'mlp.w2', shape: [c.dFF, d], init: 'residual' },
      { name: p + 'mlp.b2', shape: [d], init: 'zeros' },
    );
  }
  specs.push({ name: 'lnf.g', shape: [d], init: 'ones' }, { name: 'lnf.b', shape: [d], init: 'zeros' });
  return specs.map((s) => ({ ...s, decay: decays(s.name) }));
}

export function parameterCount(c: ModelConfig): number {
  return paramSpecs(c).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
}

/** GPT-2 style initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2 * layers). */
export function initParams(c: ModelConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  const base = baseParamSpecs(c);
  for (const [k, a] of initAdapters(c, base, seed + 1)) out.set(k, a);
  for (const s of base) {
    const n = s.shape.reduce((a, b) => a * b, 1);
    const a = new Float32Array(n);
    const std = s.init === 'normal' ? 0.02 : s.init === 'residual' ? 0.02 / Math.sqrt(2 * c.nLayers) : 0;
    for (let i = 0; i < n; i++) a[i] = s.init === 'ones' ? 1 : std * rng.normal();
    out.set(s.name, a);
  }
  return out;
}

export function declareParams(g: Graph, c: ModelConfig, prefix = ''): Params {
  const p: Params = {};
  for (const s of paramSpecs(c)) p[s.name] = g.input(prefix + s.name, 'float32', s.shape);
  return p;
}

/** Large negative additive bias for masked attention keys (finite, so softmax never sees -Inf - -Inf). */
export const MASKED = -1e9;

/** ln(1/√(2π)): the normal density's constant, folded into its exponent. */
const LN_INV_SQRT_2PI = -0.5 * Math.log(2 * Math.PI);

/**
 * Exact GELU, x·Φ(x) with Φ(x) = (1 + erf(x/√2)) / 2. Its derivative Φ(x) + x·φ(x), with
 * φ(x) = exp(ln(1/√(2π)) - (x/√2)²), reuses Φ and x/√2 from the forward pass: six element-wise passes
 * over the MLP's widest activation instead of the chain rule's eleven.
 */
function gelu(g: Graph, x: Tensor): Tensor {
  // ONNX Runtime's GeluFusion turns exactly this pattern into one Gelu kernel (four element-wise
  // ops fewer per layer); it cannot fire in a training graph, where the backward pass reads Φ and u.
  if (g.forwardOnly) return g.mul(g.mul(x, 0.5), g.add(g.erf(g.div(x, Math.SQRT2)), 1));
  const u = g.mul(x, Math.SQRT1_2);
  const phi = g.add(g.mul(g.erf(u), 0.5), 0.5);
  return g.withGradient(g.mul(x, phi), x, (dy) =>
    g.mul(dy, g.add(phi, g.mul(x, g.exp(g.sub(LN_INV_SQRT_2PI, g.mul(u, u)))))),
  );
}

function mlp(g: Graph, c: ModelConfig, p: Params, l: number, x: Tensor): Tensor {
  if (isLlama(c)) return llamaMlp(g, c, p, l, x);
  const pre = `h${l}.`;
  const h = g.layerNorm(x, p[pre + 'ln2.g']!, p[pre + 'ln2.b']!);
  const a = gelu(g, g.add(linear(g, c, p, pre + 'mlp.w1', h), p[pre + 'mlp.b1']!));
  return g.add(x, g.add(linear(g, c, p, pre + 'mlp.w2', a), p[pre + 'mlp.b2']!));
}

/**
 * [B,T,D] -> q, k, v as [B,H,T,dh], with q already scaled by 1/sqrt(dh) (scaling q is cheaper than
 * scaling the T x T scores). Separate projections rather than one fused matrix: slicing a fused
 * output costs a zero-padded Concat per slice in the backward pass.
 */
function qkv(g: Graph, c: ModelConfig, p: Params, l: number, x: Tensor, rope: Rope | null): [Tensor, Tensor, Tensor] {
  if (rope) return llamaQkv(g, c, p, l, x, rope);
  const [b, t] = x.shape as [number, number, number];
  const h = c.nHeads;
  const dh = c.dModel / h;
  const pre = `h${l}.attn.`;
  const n = g.layerNorm(x, p[`h${l}.ln1.g`]!, p[`h${l}.ln1.b`]!);
  const proj = (w: string) =>
    g.transpose(g.reshape(g.add(linear(g, c, p, pre + 'w' + w, n), p[pre + 'b' + w]!), [b, t, h, dh]), [0, 2, 1, 3]);
  return [g.mul(proj('q'), 1 / Math.sqrt(dh)), proj('k'), proj('v')];
}

/** softmax(q k^T + bias) v, merged back to [B,Tq,D] and projected. */
function attend(g: Graph, c: ModelConfig, p: Params, l: number, q: Tensor, k: Tensor, v: Tensor, bias: Tensor): Tensor {
  const [b, , tq] = q.shape as [number, number, number, number];
  const scores = g.add(g.matmul(q, g.transpose(k, [0, 1, 3, 2])), bias);
  const ctx = g.matmul(g.softmax(scores, -1), v);
  const merged = g.reshape(g.transpose(ctx, [0, 2, 1, 3]), [b, tq, c.dModel]);
  return attnOut(g, c, p, l, merged);
}

function attnOut(g: Graph, c: ModelConfig, p: Params, l: number, merged: Tensor): Tensor {
  if (isLlama(c)) return llamaAttnOut(g, c, p, l, merged);
  return g.add(linear(g, c, p, `h${l}.attn.wo`, merged), p[`h${l}.attn.bo`]!);
}

/** The token embedding, plus the learned position embedding (GPT-2; Llama's positions are rotary, in qkv). */
function embed(g: Graph, c: ModelConfig, p: Params, tokens: Tensor, positions: Tensor): Tensor {
  const tok = g.gather(p['wte']!, tokens);
  return isLlama(c) ? tok : g.add(tok, g.gather(p['wpe']!, positions));
}

/** The rotary tables at these positions (Llama), or null (GPT-2). */
const ropeOf = (g: Graph, c: ModelConfig, positions: Tensor): Rope | null =>
  isLlama(c) ? ropeAt(g, c, positions) : null;

export function head(g: Graph, c: ModelConfig, p: Params, x: Tensor): Tensor {
  if (isLlama(c)) return llamaHead(g, c, p, x);
  const n = g.layerNorm(x, p['lnf.g']!, p['lnf.b']!);
  return g.matmul(n, g.transpose(p['wte']!, [1, 0]));
}

/** The causal mask of a T-column sequence plus its key bias, as [B,1,T,T]. */
function causalBias(g: Graph, keyBias: Tensor): Tensor {
  const [b, t] = keyBias.shape as [number, number];
  const causal: number[] = [];
  for (let i = 0; i < t; i++) for (let j = 0; j < t; j++) causal.push(j <= i ? 0 : MASKED);
  return g.add(g.constant(causal, [1, 1, t, t]), g.reshape(keyBias, [b, 1, 1, t]));
}

/**
 * The blocks over a whole sequence, before the final LayerNorm; `kv` sees each layer's keys and values ([B,H,T,dh]).
 */
function blocks(
  g: Graph,
  c: ModelConfig,
  p: Params,
  tokens: Tensor,
  positions: Tensor,
  keyBias: Tensor,
  kv?: (k: Tensor, v: Tensor) => void,
): Tensor {
  const [b, t] = keyBias.shape as [number, number];
  // Expanded over the heads once: a same-shape Add in every layer is several times faster on the CPU
  // than one that broadcasts over the head axis.
  const bias = g.expand(causalBias(g, keyBias), [b, c.nHeads, t, t]);
  let x = embed(g, c, p, tokens, positions);
  const rope = ropeOf(g, c, positions);
  for (let l = 0; l < c.nLayers; l++) {
    const [q, k, v] = qkv(g, c, p, l, x, rope);
    kv?.(k, v);
    x = g.add(x, attend(g, c, p, l, q, k, v, bias));
    x = mlp(g, c, p, l, x);
  }
  return x;
}

/** A grid whose rows share prompts (see layout.ts splitShared), as the graph's inputs. */
export interface SharedSequence {
  promptTokens: Tensor; // [U,P] int64: the distinct left-padded prompts
  promptPositions: Tensor; // [U,P] int64
  promptKeyBias: Tensor; // [U,P] float
  rowOf: Tensor; // [B] int64: the distinct prompt each row continues
  tokens: Tensor; // [B,C] int64: each row's completion columns
  positions: Tensor; // [B,C] int64
  keyBias: Tensor; // [B,C] float
}

/**
 * The hidden states that predict each row's completion tokens, [B,C,D] (entry i predicts completion
 * token i: the last prompt column, then completion columns 0..C-2), computed with each distinct prompt
 * passed once. The U prompts run as their own sequences; each row's completion attends to its prompt's
 * keys and values (gathered by rowOf) and causally to its own columns, so the result equals the whole
 * grid's forward pass at those columns, gradients included (the gather's gradient sums each prompt's
 * share over its rows). A GRPO batch repeats each prompt G times, so this skips most of the prompt work.
 */
export function completionHidden(g: Graph, c: ModelConfig, p: Params, s: SharedSequence): Tensor {
  const [u, pl] = s.promptTokens.shape as [number, number];
  const [b, cl] = s.tokens.shape as [number, number];
  const h = c.nHeads;
  const promptBias = g.expand(causalBias(g, s.promptKeyBias), [u, h, pl, pl]);
  const ownBias = causalBias(g, s.keyBias); // [B,1,C,C]
  const seenPrompt = g.expand(g.reshape(g.gather(s.promptKeyBias, s.rowOf), [b, 1, 1, pl]), [b, 1, cl, pl]);
  const completionBias = g.expand(g.concat([seenPrompt, ownBias], 3), [b, h, cl, pl + cl]);
  let xp = embed(g, c, p, s.promptTokens, s.promptPositions);
  let xc = embed(g, c, p, s.tokens, s.positions);
  const [ropeP, ropeC] = [ropeOf(g, c, s.promptPositions), ropeOf(g, c, s.positions)];
  for (let l = 0; l < c.nLayers; l++) {
    const [qp, kp, vp] = qkv(g, c, p, l, xp, ropeP);
    const [qc, kc, vc] = qkv(g, c, p, l, xc, ropeC);
    const keys = g.concat([g.gather(kp, s.rowOf), kc], 2);
    const values = g.concat([g.gather(vp, s.rowOf), vc], 2);
    xp = mlp(g, c, p, l, g.add(xp, attend(g, c, p, l, qp, kp, vp, promptBias)));
    xc = mlp(g, c, p, l, g.add(xc, attend(g, c, p, l, qc, keys, values, completionBias)));
  }
  const lastPrompt = g.gather(g.slice(xp, [pl - 1], [pl], [1]), s.rowOf); // [B,1,D]
  return cl === 1 ? lastPrompt : g.concat([lastPrompt, g.slice(xc, [0], [cl - 1], [1])], 1);
}

/**
 * Whole-sequence forward pass. tokens, positions: [B,T] int64; keyBias: [B,T] float, 0 for real
 * tokens and MASKED for padding. Returns logits [B,T,V].
 */
export function forward(
  g: Graph,
  c: ModelConfig,
  p: Params,
  tokens: Tensor,
  positions: Tensor,
  keyBias: Tensor,
): Tensor {
  return head(g, c, p, blocks(g, c, p, tokens, positions, keyBias));
}

export interface PrefillOut {
  logits: Tensor; // [U,V]: the next-token logits after the last prompt column
  kCache: Tensor[]; // per layer [U,H,P,dh]: the prompt's keys
  vCache: Tensor[]; // per layer [U,H,P,dh]
}

/**
 * The whole (left-padded) prompts in one pass: their keys and values, which decodeStep reads as its
 * prompt caches, and the logits of the first completion token. One run instead of one decode step per
 * prompt column, and one row per distinct prompt (a GRPO batch repeats each prompt G times).
 */
export function prefill(
  g: Graph,
  c: ModelConfig,
  p: Params,
  tokens: Tensor,
  positions: Tensor,
  keyBias: Tensor,
): PrefillOut {
  const [u, t] = tokens.shape as [number, number];
  const out: PrefillOut = { logits: tokens, kCache: [], vCache: [] };
  const x = blocks(g, c, p, tokens, positions, keyBias, (k, v) => {
    out.kCache.push(k);
    out.vCache.push(v);
  });
  out.logits = g.reshape(head(g, c, p, g.slice(x, [t - 1], [t], [1])), [u, c.vocabSize]);
  return out;
}

export interface DecodeIO {
  tokens: Tensor; // [B] int64, the token at completion column `step`
  positions: Tensor; // [B] int64, its position id
  step: Tensor; // [] int64, the completion-cache column written this step
  promptBias: Tensor; // [U,P] float: 0 for prompt tokens, MASKED for left padding
  keyBias: Tensor; // [B,C] float: 0 for completion columns before `step`, MASKED otherwise
  promptK: Tensor[]; // per layer [U,H,P,dh]: prefill's keys; rows u·G … u·G+G−1 continue prompt u (G = B/U)
  promptV: Tensor[];
  kCache: Tensor[]; // per layer [B,H,C,dh]: the completion's keys so far (the host writes a new column contiguously)
  vCache: Tensor[];
}

export interface DecodeOut {
  logits: Tensor; // [B,V]
  kCache: Tensor[]; // updated completion caches (same shapes as the inputs)
  vCache: Tensor[];
  kNew: Tensor[]; // this step's key and value rows [B,H,1,dh], per layer
  vNew: Tensor[];
}

/**
 * One incremental decode step. Each row attends to its prompt's keys and values (one copy per
 * distinct prompt, read by the G rows that continue it as one [G × P] matmul), to its completion cache
 * (static, pre-allocated; the new key/value is written at column `step` with a Where on a one-hot mask,
 * no ScatterND on WebGPU, so shapes never change) and to this token itself. Callers on the GPU keep the
 * updated caches on the device; callers on the CPU read only the new column and write it into their
 * host cache, which avoids copying whole caches every step.
 */
export function decodeStep(g: Graph, c: ModelConfig, p: Params, io: DecodeIO): DecodeOut {
  const [b] = io.tokens.shape as [number];
  const [u, pl] = io.promptBias.shape as [number, number];
  const cl = io.keyBias.shape[1]!;
  const h = c.nHeads;
  const dh = c.dModel / h;
  const group = b / u;
  if (!Number.isInteger(group)) throw new Error(`decodeStep: ${b} rows cannot continue ${u} prompts in equal groups`);
  const write = g.reshape(g.oneHot(io.step, cl), [1, 1, cl, 1]);
  const keep = g.sub(1, write);
  const bias = g.reshape(io.keyBias, [b, 1, 1, cl]);
  const promptBias = g.reshape(io.promptBias, [u, 1, 1, pl]);
  // [B,H,1,n] <-> [U,H,G,n]: a prompt's G rows as one matrix (row r = u·G + i).
  const toGroups = (t: Tensor, n: number) => g.transpose(g.reshape(t, [u, group, h, n]), [0, 2, 1, 3]);
  const fromGroups = (t: Tensor, n: number) => g.reshape(g.transpose(t, [0, 2, 1, 3]), [b, h, 1, n]);
  // One column per row, so activations stay [B,D]: 2-D MatMul+Add become Gemm without the reshapes
  // ONNX Runtime wraps around 3-D ones, and [B,D] -> [B,H,1,dh] is a plain reshape, no transpose
  // (per-node overhead is most of a decode run).
  let x = embed(g, c, p, io.tokens, io.positions);
  const rope = ropeOf(g, c, io.positions);
  const out: DecodeOut = { logits: x, kCache: [], vCache: [], kNew: [], vNew: [] };
  for (let l = 0; l < c.nLayers; l++) {
    const [q, k, v] = rope ? qkv(g, c, p, l, g.reshape(x, [b, 1, c.dModel]), rope) : gpt2DecodeQkv(g, c, p, l, x);
    // Score the prompt, the completion cache and this token separately, then join the score blocks:
    // the caches are only read, never rewritten, on the critical path.
    const promptScores = fromGroups(
      g.add(g.matmul(toGroups(q, dh), g.transpose(io.promptK[l]!, [0, 1, 3, 2])), promptBias),
      pl,
    ); // [B,H,1,P]
    const cacheScores = g.add(g.matmul(q, g.transpose(io.kCache[l]!, [0, 1, 3, 2])), bias); // [B,H,1,C]
    const selfScore = g.reduceSum(g.mul(q, k), [-1], true); // [B,H,1,1]
    const probs = g.softmax(g.concat([promptScores, cacheScores, selfScore], -1), -1);
    const promptCtx = fromGroups(g.matmul(toGroups(g.slice(probs, [0], [pl], [3]), pl), io.promptV[l]!), dh);
    const cacheCtx = g.matmul(g.slice(probs, [pl], [pl + cl], [3]), io.vCache[l]!);
    const ctx = g.add(g.add(promptCtx, cacheCtx), g.mul(g.slice(probs, [pl + cl], [pl + cl + 1], [3]), v));
    out.kCache.push(g.add(g.mul(k, write), g.mul(io.kCache[l]!, keep)));
    out.vCache.push(g.add(g.mul(v, write), g.mul(io.vCache[l]!, keep)));
    out.kNew.push(k);
    out.vNew.push(v);
    const merged = g.reshape(ctx, [b, c.dModel]);
    x = g.add(x, attnOut(g, c, p, l, merged));
    x = mlp(g, c, p, l, x);
  }
  out.logits = head(g, c, p, x);
  return out;
}

/** q, k, v of one column per row, [B,D] -> [B,H,1,dh] (GPT-2): a plain reshape, no transpose. */
function gpt2DecodeQkv(g: Graph, c: ModelConfig, p: Params, l: number, x: Tensor): [Tensor, Tensor, Tensor] {
  const [b] = x.shape as [number];
  const h = c.nHeads;
  const dh = c.dModel / h;
  const pre = `h${l}.attn.`;
  const n = g.layerNorm(x, p[`h${l}.ln1.g`]!, p[`h${l}.ln1.b`]!);
  const proj = (w: string) => g.reshape(g.add(linear(g, c, p, pre + 'w' + w, n), p[pre + 'b' + w]!), [b, h, 1, dh]);
  return [g.mul(proj('q'), 1 / Math.sqrt(dh)), proj('k'), proj('v')];
}
