import type { Manifest } from './checkpoint.ts';
import type { ModelConfig } from './config.ts';
import { buildHfOnnx } from './hf-onnx.ts';
import { toHfTensors } from './hf-tensors.ts';
import { hfTokenizerConfig, hfTokenizerJson } from './hf-tokenizer.ts';
import { mergedWeights } from './lora.ts';
import type { Weights } from './policy.ts';
import { writeSafetensors } from './safetensors.ts';
import { EOS, PAD } from './tokenizer.ts';
import { paramSpecs } from './transformer.ts';
import { crc32 } from '../util/zip.ts';

/**
 * A checkpoint as a Hugging Face GPT-2 folder. Our transformer (transformer.ts) is GPT-2's
 * architecture: learned positions, pre-LayerNorm blocks, exact-erf GELU, 1/sqrt(d_head) attention
 * scaling and a head tied to the token embedding. Our linear weights are stored [in, out] (x · W),
 * which is already the layout of GPT-2's Conv1D, so only q/k/v need fusing into c_attn.
 */

/** LayerNormalization's epsilon in our graphs (the default of Graph.layerNorm in src/engine/graph.ts). */
export const LAYER_NORM_EPSILON = 1e-5;

/**
 * CRC-32 of the weights' float32 bytes, tensor after tensor in paramSpecs order, as 8 hex digits.
 * The export records it so the import (hf-import.ts) can tell the very weights it exported from
 * weights trained elsewhere (a check against accidental change, not a signature).
 */
export function weightsFingerprint(c: ModelConfig, w: Weights): string {
  const specs = paramSpecs(c);
  const total = specs.reduce((n, s) => n + w.get(s.name)!.byteLength, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const s of specs) {
    const d = w.get(s.name)!;
    all.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), at);
    at += d.byteLength;
  }
  return crc32(all).toString(16).padStart(8, '0');
}

/**
 * config.json. `rlvr_playground` carries what the import needs to give back the same checkpoint:
 * the whole manifest and the fingerprint of the exported weights (transformers keeps unknown config
 * keys through from_pretrained / save_pretrained, so a model TRL trained from the export has them too).
 */
export function hfConfig(m: Manifest, weights_fingerprint?: string): Record<string, unknown> {
  const c = m.model;
  return {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    activation_function: 'gelu',
    n_positions: c.contextLength,
    n_ctx: c.contextLength,
    n_embd: c.dModel,
    n_layer: c.nLayers,
    n_head: c.nHeads,
    n_inner: c.dFF,
    vocab_size: c.vocabSize,
    layer_norm_epsilon: LAYER_NORM_EPSILON,
    // GPT-2's convention (bos = eos); our tokenizer never prepends it and prompts start without one.
    bos_token_id: EOS,
    eos_token_id: EOS,
    pad_token_id: PAD,
    tie_word_embeddings: true,
    embd_pdrop: 0,
    attn_pdrop: 0,
    resid_pdrop: 0,
    summary_first_dropout: 0,
    initializer_range: 0.02,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    use_cache: true,
    torch_dtype: 'float32',
    rlvr_playground: {
      checkpoint: m.name,
      tasks: m.tasks.map((t) => t.task),
      layout: m.layout,
      ...(weights_fingerprint ? { weights_fingerprint } : {}),
      manifest: m,
    },
  };
}

/** Our sampler's defaults (temperature 1, no top-k, no top-p) and the layout's completion budget. */
export function hfGenerationConfig(m: Manifest): Record<string, unknown> {
  return {
    bos_token_id: EOS,
    eos_token_id: EOS,
    pad_token_id: PAD,
    do_sample: true,
    temperature: 1.0,
    top_k: 0,
    top_p: 1.0,
    max_new_tokens: m.layout.completionLen,
  };
}

export type HfFiles = Map<string, Uint8Array>;

export interface HfExportOptions {
  /** Also write onnx/model.onnx, the layout transformers.js loads (default true). */
  onnx?: boolean;
}

const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o, null, 2) + '\n');

/**
 * Every file of the export, by its path inside the folder. LoRA adapters are merged into the base weights
 * (lora.ts mergedWeights, as PEFT's merge_and_unload): GPT2LMHeadModel has no place for them, and the
 * manifest the config carries is the merged model's.
 */
export function exportHuggingFace(checkpoint: Manifest, weights: Weights, opts: HfExportOptions = {}): HfFiles {
  const { lora: _merged, ...plain } = checkpoint.model;
  const m: Manifest = checkpoint.model.lora
    ? {
        ...checkpoint,
        model: plain,
        parameters: paramSpecs(plain).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0),
      }
    : checkpoint;
  const w = mergedWeights(checkpoint.model, weights);
  const tensors = toHfTensors(m.model, w);
  const files: HfFiles = new Map();
  files.set('config.json', json(hfConfig(m, weightsFingerprint(m.model, w))));
  files.set('generation_config.json', json(hfGenerationConfig(m)));
  files.set('model.safetensors', writeSafetensors(tensors, { format: 'pt' }));
  files.set('tokenizer.json', json(hfTokenizerJson()));
  files.set('tokenizer_config.json', json(hfTokenizerConfig(m.model.contextLength)));
  if (opts.onnx ?? true) files.set('onnx/model.onnx', buildHfOnnx(m.model, tensors));
  return files;
}
