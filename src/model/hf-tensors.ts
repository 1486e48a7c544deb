import type { ModelConfig } from './config.ts';
import { checkWeights, type Weights } from './policy.ts';

/**
 * Our weights renamed and laid out as GPT-2's state dict: what both the safetensors file
 * (hf-export.ts) and the ONNX graph (hf-onnx.ts) of the Hugging Face export are built from.
 */
export type HfTensors = Map<string, { shape: number[]; data: Float32Array }>;

/** Within a block `h<l>.`: our parameter name -> GPT-2's, under `transformer.h.<l>.`. */
const BLOCK_NAMES: Record<string, string> = {
  'ln1.g': 'ln_1.weight',
  'ln1.b': 'ln_1.bias',
  'attn.wq': 'attn.c_attn.weight',
  'attn.wk': 'attn.c_attn.weight',
  'attn.wv': 'attn.c_attn.weight',
  'attn.bq': 'attn.c_attn.bias',
  'attn.bk': 'attn.c_attn.bias',
  'attn.bv': 'attn.c_attn.bias',
  'attn.wo': 'attn.c_proj.weight',
  'attn.bo': 'attn.c_proj.bias',
  'ln2.g': 'ln_2.weight',
  'ln2.b': 'ln_2.bias',
  'mlp.w1': 'mlp.c_fc.weight',
  'mlp.b1': 'mlp.c_fc.bias',
  'mlp.w2': 'mlp.c_proj.weight',
  'mlp.b2': 'mlp.c_proj.bias',
};
const TOP_NAMES: Record<string, string> = {
  wte: 'transformer.wte.weight',
  wpe: 'transformer.wpe.weight',
  'lnf.g': 'transformer.ln_f.weight',
  'lnf.b': 'transformer.ln_f.bias',
};

/**
 * The GPT-2 state-dict name our parameter is exported under (q, k and v share c_attn, fused along its
 * output axis). The head is tied to wte, so transformers' lm_head.weight is wte too.
 */
export function hfParamName(name: string): string {
  const top = TOP_NAMES[name];
  if (top) return top;
  const m = /^h(\d+)\.(.+)$/.exec(name);
  const local = m ? BLOCK_NAMES[m[2]!] : undefined;
  if (!m || !local) throw new Error(`no GPT-2 name for parameter ${name}`);
  return `transformer.h.${m[1]}.${local}`;
}

/** Our weights under GPT-2's names and layouts (transformers' GPT2LMHeadModel state dict, head tied). */
export function toHfTensors(c: ModelConfig, w: Weights): HfTensors {
  checkWeights(c, w);
  const d = c.dModel;
  const get = (n: string) => w.get(n)!;
  const out: HfTensors = new Map();
  const put = (name: string, shape: number[], data: Float32Array) => out.set(name, { shape, data });
  put(hfParamName('wte'), [c.vocabSize, d], get('wte'));
  put(hfParamName('wpe'), [c.contextLength, d], get('wpe'));
  for (let l = 0; l < c.nLayers; l++) {
    const ours = `h${l}.`;
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
    put(hfParamName(ours + 'ln1.g'), [d], get(ours + 'ln1.g'));
    put(hfParamName(ours + 'ln1.b'), [d], get(ours + 'ln1.b'));
    put(hfParamName(ours + 'attn.wq'), [d, 3 * d], cAttn);
    put(hfParamName(ours + 'attn.bq'), [3 * d], bAttn);
    put(hfParamName(ours + 'attn.wo'), [d, d], get(ours + 'attn.wo'));
    put(hfParamName(ours + 'attn.bo'), [d], get(ours + 'attn.bo'));
    put(hfParamName(ours + 'ln2.g'), [d], get(ours + 'ln2.g'));
    put(hfParamName(ours + 'ln2.b'), [d], get(ours + 'ln2.b'));
    put(hfParamName(ours + 'mlp.w1'), [d, c.dFF], get(ours + 'mlp.w1'));
    put(hfParamName(ours + 'mlp.b1'), [c.dFF], get(ours + 'mlp.b1'));
    put(hfParamName(ours + 'mlp.w2'), [c.dFF, d], get(ours + 'mlp.w2'));
    put(hfParamName(ours + 'mlp.b2'), [d], get(ours + 'mlp.b2'));
  }
  put(hfParamName('lnf.g'), [d], get('lnf.g'));
  put(hfParamName('lnf.b'), [d], get('lnf.b'));
  return out;
}
