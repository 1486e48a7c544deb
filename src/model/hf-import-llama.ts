import { BpeTokenizer, BpeTokenizerError } from './bpe-tokenizer.ts';
import type { HfTokenizerSpec, Manifest } from './checkpoint.ts';
import {
  HfImportError,
  importHuggingFace,
  type HfFolder,
  type HfImportOptions,
  type HfImportResult,
} from './hf-import.ts';
import { validateModelConfig, type ModelConfig } from './config.ts';
import { checkWeights, type Weights } from './policy.ts';
import { readSafetensors } from './safetensors.ts';
import { paramSpecs } from './transformer.ts';

/**
 * A Hugging Face LlamaForCausalLM or Qwen2ForCausalLM folder (config.json, model.safetensors or its
 * shards with model.safetensors.index.json, tokenizer.json, tokenizer_config.json, generation_config.json,
 * chat_template.jinja) as a playground checkpoint with its own tokenizer. Whatever our Llama blocks
 * (llama.ts) would compute differently is refused naming the field, never approximated; everything is
 * checked before anything is returned, so nothing is loaded half.
 */
export class LlamaImportError extends Error {}

/** The architectures this import reads, by config.json's model_type. */
export const LLAMA_FAMILY: Record<string, { architecture: string; qkvBias: boolean }> = {
  llama: { architecture: 'LlamaForCausalLM', qkvBias: false },
  qwen2: { architecture: 'Qwen2ForCausalLM', qkvBias: true },
};

const W = 'config.json';
const fail = (msg: string): never => {
  throw new LlamaImportError(msg);
};

/** config.json as our model config; refuses any field whose value our Llama blocks do not compute. */
export function llamaConfigOf(cfg: Record<string, unknown>): ModelConfig {
  const family =
    LLAMA_FAMILY[cfg.model_type as string] ??
    fail(`${W}: model_type ${JSON.stringify(cfg.model_type)} is not supported`);
  const archs = cfg.architectures;
  if (Array.isArray(archs) && archs.some((a) => a !== family.architecture)) {
    fail(
      `${W}: architectures is ${JSON.stringify(archs)}; a ${cfg.model_type} folder is read as ${family.architecture} ` +
        'only',
    );
  }
  const int = (k: string) => {
    const v = cfg[k];
    if (!Number.isInteger(v) || (v as number) <= 0)
      fail(`${W}: ${k} must be a positive integer, got ${JSON.stringify(v)}`);
    return v as number;
  };
  const num = (k: string, fallback: number) => {
    const v = cfg[k] ?? fallback;
    if (typeof v !== 'number' || !(v > 0)) fail(`${W}: ${k} must be a positive number, got ${JSON.stringify(v)}`);
    return v as number;
  };
  const refuse = (k: string, ok: (v: unknown) => boolean, why: string) => {
    if (k in cfg && !ok(cfg[k])) fail(`${W}: ${k} is ${JSON.stringify(cfg[k])}; ${why}`);
  };
  const dModel = int('hidden_size');
  const nHeads = int('num_attention_heads');
  const nKvHeads =
    cfg.num_key_value_heads === undefined || cfg.num_key_value_heads === null ? nHeads : int('num_key_value_heads');
  if (dModel % nHeads) fail(`${W}: hidden_size (${dModel}) is not divisible by num_attention_heads (${nHeads})`);
  if (nHeads % nKvHeads)
    fail(`${W}: num_attention_heads (${nHeads}) is not a multiple of num_key_value_heads (${nKvHeads})`);
  refuse(
    'head_dim',
    (v) => v === null || v === dModel / nHeads,
    `the engine's head size is hidden_size / num_attention_heads = ${dModel / nHeads}`,
  );
  refuse('hidden_act', (v) => v === 'silu', 'the engine\'s gated MLP uses SiLU ("silu")');
  // transformers 4 writes rope_theta and rope_scaling; transformers 5 writes rope_parameters.
  const rp = (cfg.rope_parameters ?? null) as Record<string, unknown> | null;
  refuse(
    'rope_scaling',
    (v) => v === null || (v as { rope_type?: unknown }).rope_type === 'default',
    'the engine computes default rotary embeddings only (rope_scaling null)',
  );
  if (rp && rp.rope_type !== undefined && rp.rope_type !== 'default') {
    fail(
      `${W}: rope_parameters.rope_type is ${JSON.stringify(rp.rope_type)}; the engine computes default ` +
        'rotary embeddings only',
    );
  }
  const ropeTheta = typeof rp?.rope_theta === 'number' ? rp.rope_theta : num('rope_theta', 10000);
  refuse(
    'attention_bias',
    (v) => v === false,
    `${family.architecture} in the engine has ${family.qkvBias ? 'biases on q, k and v only' : 'no attention biases'}`,
  );
  refuse('mlp_bias', (v) => v === false, "the engine's gated MLP has no biases");
  refuse('pretraining_tp', (v) => v === 1, 'the engine computes the projections unsplit (pretraining_tp 1)');
  refuse('use_sliding_window', (v) => v === false, 'the engine attends to the whole context (no sliding window)');
  refuse(
    'layer_types',
    (v) => Array.isArray(v) && v.every((t) => t === 'full_attention'),
    'the engine has full attention in every layer',
  );
  for (const k of ['num_experts', 'num_local_experts', 'n_routed_experts'])
    refuse(k, (v) => v === null || v === 0, 'mixture-of-experts layers are not supported');
  const tied = cfg.tie_word_embeddings ?? true;
  if (typeof tied !== 'boolean') fail(`${W}: tie_word_embeddings must be true or false, got ${JSON.stringify(tied)}`);
  const c: ModelConfig = {
    arch: 'llama',
    vocabSize: int('vocab_size'),
    contextLength: int('max_position_embeddings'),
    dModel,
    nLayers: int('num_hidden_layers'),
    nHeads,
    dFF: int('intermediate_size'),
    nKvHeads,
    ropeTheta,
    normEps: num('rms_norm_eps', 1e-6),
    qkvBias: family.qkvBias,
    tiedEmbeddings: tied as boolean,
  };
  validateModelConfig(c);
  return c;
}

type Tensors = Map<string, { shape: number[]; data: Float32Array }>;

/** Every tensor of model.safetensors, or of the shards model.safetensors.index.json lists; each file checked whole. */
export function readWeightFiles(folder: Map<string, Uint8Array>): Tensors {
  const read = (file: string): Tensors => {
    try {
      return readSafetensors(folder.get(file)!).tensors;
    } catch (e) {
      return fail(`${file}: ${(e as Error).message}`);
    }
  };
  if (folder.has('model.safetensors')) return read('model.safetensors');
  const index = 'model.safetensors.index.json';
  if (!folder.has(index)) {
    return fail(
      `model.safetensors is missing (and no ${index}): ` +
        (folder.has('pytorch_model.bin')
          ? 'only pytorch_model.bin is there; save with safe_serialization=True'
          : 'the weights file is not in the folder'),
    );
  }
  let map: unknown;
  try {
    map = (JSON.parse(new TextDecoder().decode(folder.get(index)!)) as { weight_map?: unknown }).weight_map;
  } catch {
    fail(`${index} is not valid JSON`);
  }
  if (typeof map !== 'object' || map === null || Array.isArray(map))
    return fail(`${index}: no weight_map object (tensor name -> shard file)`);
  const out: Tensors = new Map();
  const shards = [...new Set(Object.values(map as Record<string, unknown>))];
  for (const shard of shards) {
    if (typeof shard !== 'string' || !folder.has(shard))
      fail(`${index}: shard ${JSON.stringify(shard)} is not in the folder`);
    for (const [name, t] of read(shard as string)) out.set(name, t);
  }
  for (const [name, shard] of Object.entries(map as Record<string, string>)) {
    if (!out.has(name)) fail(`${index}: tensor "${name}" is mapped to ${shard}, which does not hold it`);
  }
  return out;
}

/** [rows, cols] -> [cols, rows]: a torch Linear's weight [out, in] as our x·W matrix [in, out]. */
function transposed(t: { shape: number[]; data: Float32Array }): Float32Array {
  const [r, c] = t.shape as [number, number];
  const out = new Float32Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = t.data[i * c + j]!;
  return out;
}

/** The state dict under our names (llama.ts llamaParamSpecs), every shape checked against config.json's. */
export function llamaWeightsFrom(c: ModelConfig, tensors: Tensors): Weights {
  const used = new Set<string>();
  const get = (name: string, shape: number[]) => {
    const t =
      tensors.get(name) ?? fail(`weights: tensor "${name}" is missing (a model of config.json's shape needs it)`);
    if (t.shape.length !== shape.length || t.shape.some((x, i) => x !== shape[i])) {
      fail(
        `weights: tensor "${name}" has shape [${t.shape}], but config.json (hidden_size ${c.dModel}, ` +
          `intermediate_size ${c.dFF}, heads ${c.nHeads}/${c.nKvHeads} kv, vocab_size ${c.vocabSize}) needs [${shape}]`,
      );
    }
    used.add(name);
    return t;
  };
  const d = c.dModel;
  const dh = d / c.nHeads;
  const q = c.nHeads * dh;
  const kv = c.nKvHeads! * dh;
  const w: Weights = new Map();
  w.set('wte', get('model.embed_tokens.weight', [c.vocabSize, d]).data);
  const head = tensors.get('lm_head.weight');
  if (c.tiedEmbeddings === false) w.set('lm_head', get('lm_head.weight', [c.vocabSize, d]).data);
  else if (head) {
    const wte = w.get('wte')!;
    if (head.data.length !== wte.length || head.data.some((x, i) => !Object.is(x, wte[i]))) {
      fail(
        'weights: lm_head.weight differs from model.embed_tokens.weight, but config.json ties them ' +
          '(tie_word_embeddings true)',
      );
    }
    used.add('lm_head.weight');
  }
  for (let l = 0; l < c.nLayers; l++) {
    const ours = `h${l}.`;
    const hf = `model.layers.${l}.`;
    const lin = (name: string, out: number, inp: number) => transposed(get(`${hf}${name}.weight`, [out, inp]));
    w.set(ours + 'ln1.g', get(hf + 'input_layernorm.weight', [d]).data);
    w.set(ours + 'attn.wq', lin('self_attn.q_proj', q, d));
    w.set(ours + 'attn.wk', lin('self_attn.k_proj', kv, d));
    w.set(ours + 'attn.wv', lin('self_attn.v_proj', kv, d));
    if (c.qkvBias) {
      w.set(ours + 'attn.bq', get(hf + 'self_attn.q_proj.bias', [q]).data);
      w.set(ours + 'attn.bk', get(hf + 'self_attn.k_proj.bias', [kv]).data);
      w.set(ours + 'attn.bv', get(hf + 'self_attn.v_proj.bias', [kv]).data);
    }
    w.set(ours + 'attn.wo', lin('self_attn.o_proj', d, q));
    w.set(ours + 'ln2.g', get(hf + 'post_attention_layernorm.weight', [d]).data);
    w.set(ours + 'mlp.wg', lin('mlp.gate_proj', c.dFF, d));
    w.set(ours + 'mlp.wu', lin('mlp.up_proj', c.dFF, d));
    w.set(ours + 'mlp.wd', lin('mlp.down_proj', d, c.dFF));
  }
  w.set('lnf.g', get('model.norm.weight', [d]).data);
  // Older checkpoints save each layer's rotary inv_freq buffer: computed, not learned (llama.ts ropeTables).
  const isBuffer = (n: string) => /^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$/.test(n);
  for (const name of tensors.keys()) {
    if (!used.has(name) && !isBuffer(name))
      fail(
        `weights: unexpected tensor "${name}" (config.json's num_hidden_layers is ${c.nLayers}; ` +
          `the engine's ${c.qkvBias ? 'Qwen2' : 'Llama'} has no such weight)`,
      );
  }
  checkWeights(c, w);
  return w;
}

export interface LlamaImport {
  manifest: Manifest;
  weights: Weights;
  /** The tokenizer's files, written beside the manifest (HfTokenizerSpec names them). */
  files: Map<string, Uint8Array>;
  tokenizer: BpeTokenizer;
}

const json = (folder: Map<string, Uint8Array>, name: string, required: boolean): Record<string, unknown> | null => {
  if (!folder.has(name)) return required ? fail(`${name} is missing: the import needs the folder's tokenizer`) : null;
  try {
    const o = JSON.parse(new TextDecoder().decode(folder.get(name)!));
    if (typeof o !== 'object' || o === null || Array.isArray(o)) fail(`${name} is not a JSON object`);
    return o as Record<string, unknown>;
  } catch (e) {
    return e instanceof LlamaImportError ? fail(e.message) : fail(`${name} is not valid JSON`);
  }
};

/**
 * generation_config.json's eos_token_id (one id or a list), else the tokenizer's eos_token; [] when neither names one.
 */
function eosIds(gen: Record<string, unknown> | null, tokenizer: BpeTokenizer, vocabSize: number): number[] {
  const v = gen?.eos_token_id;
  const ids = typeof v === 'number' ? [v] : Array.isArray(v) ? v : [];
  if (!ids.length && tokenizer.eosToken !== null) {
    const id = tokenizer.idOf(tokenizer.eosToken);
    if (id !== undefined) ids.push(id);
  }
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
      fail(
        `generation_config.json: eos_token_id ${JSON.stringify(id)} is not a token id below vocab_size ${vocabSize}`,
      );
    }
  }
  return ids as number[];
}

/** The folder's tokenizer, refused when tokenizers.js cannot run it or it makes ids the model has no row for. */
export function tokenizerOf(
  folder: Map<string, Uint8Array>,
  vocabSize: number,
): { tokenizer: BpeTokenizer; files: Map<string, Uint8Array>; spec: HfTokenizerSpec } {
  const tj = json(folder, 'tokenizer.json', true)!;
  const tc = json(folder, 'tokenizer_config.json', false) ?? {};
  const template = folder.has('chat_template.jinja')
    ? new TextDecoder().decode(folder.get('chat_template.jinja')!)
    : null;
  let tokenizer: BpeTokenizer;
  try {
    tokenizer = new BpeTokenizer(tj, tc, template);
  } catch (e) {
    return fail(e instanceof BpeTokenizerError ? e.message : `tokenizer.json: ${(e as Error).message}`);
  }
  if (tokenizer.maxId >= vocabSize)
    fail(
      `tokenizer.json: it has token id ${tokenizer.maxId}, but config.json's vocab_size is ${vocabSize} ` +
        '(no embedding row for it)',
    );
  const files = new Map<string, Uint8Array>();
  for (const f of [
    'tokenizer.json',
    'tokenizer_config.json',
    'generation_config.json',
    'chat_template.jinja',
    'special_tokens_map.json',
  ]) {
    if (folder.has(f)) files.set(f, folder.get(f)!);
  }
  const spec: HfTokenizerSpec = {
    kind: 'hf',
    file: 'tokenizer.json',
    ...(folder.has('tokenizer_config.json') ? { config: 'tokenizer_config.json' } : {}),
    ...(template !== null ? { chatTemplate: 'chat_template.jinja' } : {}),
    eosTokenIds: eosIds(json(folder, 'generation_config.json', false), tokenizer, vocabSize),
  };
  return { tokenizer, files, spec };
}

/** The whole import: config, tokenizer and weights all checked before the result exists. */
export function importLlamaFolder(
  folder: Map<string, Uint8Array>,
  cfg: Record<string, unknown>,
  opts: { name?: string; source?: string; created?: string },
): LlamaImport {
  const model = llamaConfigOf(cfg);
  const { tokenizer, files, spec } = tokenizerOf(folder, model.vocabSize);
  const weights = llamaWeightsFrom(model, readWeightFiles(folder));
  // The prompt/completion grid RL would use; `rlvr score` and sampling set their own (Policy.setLayout).
  const half = Math.min(128, Math.floor(model.contextLength / 2));
  const manifest: Manifest = {
    format: 'rlvr-playground-checkpoint',
    version: 1,
    name: opts.name ?? `${String(cfg.model_type)}-hf-import`,
    weights: 'model.safetensors',
    model,
    layout: { promptLen: half, completionLen: half },
    tokenizer: spec,
    tasks: [],
    training: {
      kind: 'pretrain',
      command: `imported from ${opts.source ?? 'a Hugging Face folder'} (rlvr import --format hf)`,
      seed: 0,
      steps: 0,
      trained_on: [],
    },
    created: opts.created ?? new Date().toISOString().slice(0, 10),
    parameters: paramSpecs(model).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0),
  };
  return { manifest, weights, files, tokenizer };
}

/**
 * `rlvr import --format hf`: a Llama or Qwen2 folder by this import, any other by the GPT-2 one
 * (hf-import.ts). Every refusal is an HfImportError.
 */
export function importAnyHuggingFace(folder: HfFolder, opts: HfImportOptions = {}): HfImportResult {
  let cfg: unknown;
  try {
    cfg = folder.has('config.json') ? JSON.parse(new TextDecoder().decode(folder.get('config.json')!)) : null;
  } catch {
    cfg = null; // the GPT-2 import reports it
  }
  const type = (cfg as { model_type?: unknown } | null)?.model_type;
  if (typeof type !== 'string' || !(type in LLAMA_FAMILY)) return importHuggingFace(folder, opts);
  try {
    const r = importLlamaFolder(folder, cfg as Record<string, unknown>, opts);
    return { manifest: r.manifest, weights: r.weights, unchanged: false, files: r.files };
  } catch (e) {
    if (e instanceof LlamaImportError) throw new HfImportError(e.message);
    throw e;
  }
}
