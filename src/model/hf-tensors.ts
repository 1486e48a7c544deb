import type { ModelConfig } from './config.ts';
import { checkWeights, type Weights } from './policy.ts';

/**
 * Our weights renamed and laid out as GPT-2's state dict: what both the safetensors file
 * (hf-export.ts) and the ONNX graph (hf-onnx.ts) of the Hugging Face export are built from.
 */
export type HfTensors = Map<string, { shape: number[]; data: Float32Array }>;

/** Our weights under GPT-2's names and layouts (transformers' GPT2LMHeadModel state dict, head tied). */
export function toHfTensors(c: ModelConfig, w: Weights): HfTensors {
  checkWeights(c, w);
  const d = c.dModel;
  const get = (n: string) => w.get(n)!;
  const out: HfTensors = new Map();
  const put = (name: string, shape: number[], data: Float32Array) => out.set(name, { shape, data });
  put('transformer.wte.weight', [c.vocabSize, d], get('wte'));
  put('transformer.wpe.weight', [c.contextLength, d], get('wpe'));
  for (let l = 0; l < c.nLayers; l++) {
    const ours = `h${l}.`;
    const hf = `transformer.h.${l}.`;
    const [wq, wk, wv] = ['wq', 'wk', 'wv'].map((n) => get(ours + 'attn.' + n));
    // c_attn's output axis is [q | k | v], each d wide; GPT-2 splits it the same way before its heads.
    const cAttn = new Float32Array(d * 3 * d);
    for (let i = 0; i < d; i++) {
      cAttn.set(wq!.subarray(i * d, (i + 1) * d), i * 3 * d);
      cAttn.set(wk!.subarray(i * d, (i + 1) * d), i * 3 * d + d);
      cAttn.set(wv!.subarray(i * d, (i + 1) * d), i * 3 * d + 2 * d);
    }
    const bAttn = new Float32Array(3 * d);
    bAttn.set(get(ours + 'attn.bq'), 0);
    bAttn.set(get(ours + 'attn.bk'), d);
    bAttn.set(get(ours + 'attn.bv'), 2 * d);
    put(hf + 'ln_1.weight', [d], get(ours + 'ln1.g'));
    put(hf + 'ln_1.bias', [d], get(ours + 'ln1.b'));
    put(hf + 'attn.c_attn.weight', [d, 3 * d], cAttn);
    put(hf + 'attn.c_attn.bias', [3 * d], bAttn);
    put(hf + 'attn.c_proj.weight', [d, d], get(ours + 'attn.wo'));
    put(hf + 'attn.c_proj.bias', [d], get(ours + 'attn.bo'));
    put(hf + 'ln_2.weight', [d], get(ours + 'ln2.g'));
    put(hf + 'ln_2.bias', [d], get(ours + 'ln2.b'));
    put(hf + 'mlp.c_fc.weight', [d, c.dFF], get(ours + 'mlp.w1'));
    put(hf + 'mlp.c_fc.bias', [c.dFF], get(ours + 'mlp.b1'));
    put(hf + 'mlp.c_proj.weight', [c.dFF, d], get(ours + 'mlp.w2'));
    put(hf + 'mlp.c_proj.bias', [d], get(ours + 'mlp.b2'));
  }
  put('transformer.ln_f.weight', [d], get('lnf.g'));
  put('transformer.ln_f.bias', [d], get('lnf.b'));
  return out;
}
