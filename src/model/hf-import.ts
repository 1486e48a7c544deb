import { validateManifest, type Manifest } from './checkpoint.ts';
import type { ModelConfig } from './config.ts';
import { LAYER_NORM_EPSILON, weightsFingerprint } from './hf-export.ts';
import { hfTokenizerJson } from './hf-tokenizer.ts';
import type { Layout } from './layout.ts';
import { checkWeights, type Weights } from './policy.ts';
import { readSafetensors } from './safetensors.ts';
import { SPECIALS, tokenizerSpec, VOCAB_SIZE } from './tokenizer.ts';
import { paramSpecs } from './transformer.ts';

/**
 * The way back from the Hugging Face export (hf-export.ts): a GPT-2 folder with the playground's
 * tokenizer (ours, or one that TRL or transformers trained and saved) into our checkpoint. The
 * inverse of toHfTensors (hf-tensors.ts): c_attn is split back into q | k | v; every other tensor is
 * already in our layout. Anything our transformer (transformer.ts) would compute differently is
 * refused with a message that names the field or tensor and says why, never approximated.
 */
export class HfImportError extends Error {}

/** The folder's files by their path inside it (config.json, model.safetensors, tokenizer.json, ...). */
export type HfFolder = Map<string, Uint8Array>;

export interface HfImportOptions {
  /** Name of the checkpoint when the weights are not the exported ones (default: "<exported name>+hf"). */
  name?: string;
  /** Where the folder came from, for the manifest's training.command (default "a Hugging Face folder"). */
  source?: string;
  /** The day written into a new manifest's `created` (default today, YYYY-MM-DD). */
  created?: string;
}

export interface HfImportResult {
  manifest: Manifest;
  weights: Weights;
  /**
   * True when the weights are exactly the ones the export wrote (its recorded fingerprint): the
   * manifest is then the exported one, unchanged. False for weights trained elsewhere: the manifest
   * keeps the base's model, layout, tasks and recipe, names the import in `training`, and drops the
   * held-out figures that were measured on the base (pass@k, rl_gain), which no longer describe it.
   */
  unchanged: boolean;
  /** Files to write beside the manifest (an imported Llama or Qwen2 folder's tokenizer files). */
  files?: Map<string, Uint8Array>;
}

const text = (f: HfFolder, name: string) => new TextDecoder().decode(f.get(name)!);

function readJson(f: HfFolder, name: string, why: string): Record<string, unknown> {
  if (!f.has(name)) throw new HfImportError(`${name} is missing: ${why}`);
  let o: unknown;
  try {
    o = JSON.parse(text(f, name));
  } catch {
    throw new HfImportError(`${name} is not valid JSON`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new HfImportError(`${name} is not a JSON object`);
  return o as Record<string, unknown>;
}

/** config.json's GPT-2 fields as our model config, refusing what our transformer would compute otherwise. */
export function modelConfigOf(cfg: Record<string, unknown>): ModelConfig {
  const where = 'config.json';
  if (cfg.model_type === 'llama' || cfg.model_type === 'qwen2') {
    // Read by hf-import-llama.ts: importAnyHuggingFace (rlvr import --format hf and the page's Import
    // Hugging Face) sends these folders there and never here.
    throw new HfImportError(
      `${where}: model_type is ${JSON.stringify(cfg.model_type)}: a Llama/Qwen2 folder, which importAnyHuggingFace ` +
        "(hf-import-llama.ts, behind `rlvr import --format hf` and the page's Import Hugging Face) reads; " +
        'this is the GPT-2 reader',
    );
  }
  if (cfg.model_type !== 'gpt2') {
    const archs = Array.isArray(cfg.architectures) ? ` (architectures ${JSON.stringify(cfg.architectures)})` : '';
    throw new HfImportError(
      `${where}: model_type is ${JSON.stringify(cfg.model_type)}${archs}, an unsupported architecture; ` +
        `the import reads "gpt2" (the playground's own export), "llama" (LlamaForCausalLM) and "qwen2" ` +
        '(Qwen2ForCausalLM)',
    );
  }
  const int = (k: string) => {
    const v = cfg[k];
    if (!Number.isInteger(v) || (v as number) <= 0)
      throw new HfImportError(`${where}: ${k} must be a positive integer, got ${JSON.stringify(v)}`);
    return v as number;
  };
  const vocabSize = int('vocab_size');
  if (vocabSize !== VOCAB_SIZE) {
    throw new HfImportError(
      `${where}: vocab_size is ${vocabSize}, but the playground's tokenizer has ${VOCAB_SIZE} tokens (6 ` +
        'specials and 96 characters); a model with another vocabulary cannot run here',
    );
  }
  const dModel = int('n_embd');
  const nHeads = int('n_head');
  if (dModel % nHeads) throw new HfImportError(`${where}: n_embd (${dModel}) is not divisible by n_head (${nHeads})`);
  const dFF = cfg.n_inner === null || cfg.n_inner === undefined ? 4 * dModel : int('n_inner');
  const act = cfg.activation_function ?? 'gelu_new';
  if (act !== 'gelu') {
    throw new HfImportError(
      `${where}: activation_function is ${JSON.stringify(act)}; the playground's transformer uses the ` +
        'exact (erf) GELU, which GPT-2 calls "gelu"',
    );
  }
  const eps = cfg.layer_norm_epsilon ?? 1e-5;
  if (eps !== LAYER_NORM_EPSILON)
    throw new HfImportError(
      `${where}: layer_norm_epsilon is ${JSON.stringify(eps)}; the playground's LayerNorm uses ${LAYER_NORM_EPSILON}`,
    );
  if (cfg.scale_attn_weights === false)
    throw new HfImportError(
      `${where}: scale_attn_weights is false; the playground scales attention scores by 1/sqrt(d_head)`,
    );
  if (cfg.scale_attn_by_inverse_layer_idx === true)
    throw new HfImportError(
      `${where}: scale_attn_by_inverse_layer_idx is true; the playground does not scale attention by layer`,
    );
  if (cfg.tie_word_embeddings === false)
    throw new HfImportError(
      `${where}: tie_word_embeddings is false; the playground's output head is the token embedding (tied)`,
    );
  return { vocabSize, contextLength: int('n_positions'), dModel, nLayers: int('n_layer'), nHeads, dFF };
}

/** tokenizer.json must map every token to the id our tokenizer gives it; the message names the first that does not. */
export function checkTokenizer(tok: Record<string, unknown>): void {
  const where = 'tokenizer.json';
  const model = tok.model as { vocab?: unknown } | undefined;
  const vocab = model?.vocab;
  if (typeof vocab !== 'object' || vocab === null || Array.isArray(vocab))
    throw new HfImportError(
      `${where}: no model.vocab table (token → id); the import needs it to check the vocabulary is the playground's`,
    );
  const ours = (hfTokenizerJson().model as { vocab: Record<string, number> }).vocab;
  const theirs = vocab as Record<string, unknown>;
  for (const [token, id] of Object.entries(ours)) {
    if (theirs[token] !== id) {
      throw new HfImportError(
        `${where}: token ${JSON.stringify(token)} has id ${JSON.stringify(theirs[token] ?? null)}, the ` +
          `playground's tokenizer gives it ${id}; this is another tokenizer`,
      );
    }
  }
  const extra = Object.keys(theirs).filter((t) => !(t in ours));
  if (extra.length)
    throw new HfImportError(
      `${where}: ${extra.length} token(s) the playground's tokenizer lacks, e.g. ` +
        `${JSON.stringify(extra[0])}; this is another tokenizer`,
    );
  const added = Array.isArray(tok.added_tokens) ? (tok.added_tokens as { id?: unknown; content?: unknown }[]) : [];
  for (const a of added) {
    if (typeof a.id === 'number' && a.id < SPECIALS.length && a.content !== SPECIALS[a.id]) {
      throw new HfImportError(
        `${where}: added token ${a.id} is ${JSON.stringify(a.content)}` +
          `, the playground's is ${JSON.stringify(SPECIALS[a.id])}`,
      );
    }
  }
}

/** Tensors transformers keeps in some GPT-2 files that are not weights (the causal mask buffers). */
const isBuffer = (name: string) => /^transformer\.h\.\d+\.attn\.(bias|masked_bias)$/.test(name);

/** GPT-2's state dict (model.safetensors) as our weights; shapes are checked against config.json's. */
export function weightsFromHf(c: ModelConfig, bytes: Uint8Array): Weights {
  let tensors: Map<string, { shape: number[]; data: Float32Array }>;
  try {
    tensors = readSafetensors(bytes).tensors;
  } catch (e) {
    throw new HfImportError(`model.safetensors: ${(e as Error).message}`);
  }
  const d = c.dModel;
  const used = new Set<string>();
  const get = (name: string, shape: number[]) => {
    const t = tensors.get(name);
    if (!t)
      throw new HfImportError(
        `model.safetensors: tensor "${name}" is missing (a GPT-2 of config.json's shape needs it)`,
      );
    if (t.shape.length !== shape.length || t.shape.some((x, i) => x !== shape[i])) {
      throw new HfImportError(
        `model.safetensors: tensor "${name}" has shape [${t.shape}], but config.json's model (n_embd ` +
          `${c.dModel}, n_inner ${c.dFF}, n_positions ${c.contextLength}, vocab_size ${c.vocabSize}) needs ` +
          `[${shape}]`,
      );
    }
    used.add(name);
    return t.data;
  };
  const w: Weights = new Map();
  w.set('wte', get('transformer.wte.weight', [c.vocabSize, d]));
  w.set('wpe', get('transformer.wpe.weight', [c.contextLength, d]));
  for (let l = 0; l < c.nLayers; l++) {
    const ours = `h${l}.`;
    const hf = `transformer.h.${l}.`;
    const cAttn = get(hf + 'attn.c_attn.weight', [d, 3 * d]);
    const bAttn = get(hf + 'attn.c_attn.bias', [3 * d]);
    const [wq, wk, wv] = [0, 1, 2].map(() => new Float32Array(d * d));
    for (let i = 0; i < d; i++) {
      wq!.set(cAttn.subarray(i * 3 * d, i * 3 * d + d), i * d);
      wk!.set(cAttn.subarray(i * 3 * d + d, i * 3 * d + 2 * d), i * d);
      wv!.set(cAttn.subarray(i * 3 * d + 2 * d, (i + 1) * 3 * d), i * d);
    }
    w.set(ours + 'ln1.g', get(hf + 'ln_1.weight', [d]));
    w.set(ours + 'ln1.b', get(hf + 'ln_1.bias', [d]));
    w.set(ours + 'attn.wq', wq!);
    w.set(ours + 'attn.bq', bAttn.slice(0, d));
    w.set(ours + 'attn.wk', wk!);
    w.set(ours + 'attn.bk', bAttn.slice(d, 2 * d));
    w.set(ours + 'attn.wv', wv!);
    w.set(ours + 'attn.bv', bAttn.slice(2 * d, 3 * d));
    w.set(ours + 'attn.wo', get(hf + 'attn.c_proj.weight', [d, d]));
    w.set(ours + 'attn.bo', get(hf + 'attn.c_proj.bias', [d]));
    w.set(ours + 'ln2.g', get(hf + 'ln_2.weight', [d]));
    w.set(ours + 'ln2.b', get(hf + 'ln_2.bias', [d]));
    w.set(ours + 'mlp.w1', get(hf + 'mlp.c_fc.weight', [d, c.dFF]));
    w.set(ours + 'mlp.b1', get(hf + 'mlp.c_fc.bias', [c.dFF]));
    w.set(ours + 'mlp.w2', get(hf + 'mlp.c_proj.weight', [c.dFF, d]));
    w.set(ours + 'mlp.b2', get(hf + 'mlp.c_proj.bias', [d]));
  }
  w.set('lnf.g', get('transformer.ln_f.weight', [d]));
  w.set('lnf.b', get('transformer.ln_f.bias', [d]));
  const head = tensors.get('lm_head.weight');
  if (head) {
    // A saved head must be the tied one: ours has no separate output matrix.
    const wte = w.get('wte')!;
    if (head.data.length !== wte.length || head.data.some((x, i) => !Object.is(x, wte[i]))) {
      throw new HfImportError(
        'model.safetensors: lm_head.weight differs from transformer.wte.weight; the playground ties its ' +
          'output head to the token embedding',
      );
    }
    used.add('lm_head.weight');
  }
  for (const name of tensors.keys()) {
    if (!used.has(name) && !isBuffer(name)) {
      throw new HfImportError(
        `model.safetensors: unexpected tensor "${name}" (config.json's n_layer is ${c.nLayers}; the ` +
          `playground's GPT-2 has no such weight)`,
      );
    }
  }
  checkWeights(c, w);
  return w;
}

function layoutOf(cfg: Record<string, unknown>, c: ModelConfig, embedded: Manifest | undefined): Layout {
  const pg = cfg.rlvr_playground as { layout?: Layout } | undefined;
  const layout = embedded?.layout ?? pg?.layout;
  if (!layout || !Number.isInteger(layout.promptLen) || !Number.isInteger(layout.completionLen)) {
    throw new HfImportError(
      'config.json: no rlvr_playground.layout (the prompt and completion lengths); only a folder written ' +
        'by `rlvr export --format hf` (or trained from one) can be imported',
    );
  }
  if (layout.promptLen + layout.completionLen > c.contextLength) {
    throw new HfImportError(
      `config.json: n_positions ${c.contextLength} is shorter than the layout's ${layout.promptLen} ` +
        `prompt + ${layout.completionLen} completion tokens`,
    );
  }
  return { promptLen: layout.promptLen, completionLen: layout.completionLen };
}

function sameModel(a: ModelConfig, b: ModelConfig): boolean {
  return (['vocabSize', 'contextLength', 'dModel', 'nLayers', 'nHeads', 'dFF'] as const).every((k) => a[k] === b[k]);
}

/** A Hugging Face GPT-2 folder as a playground checkpoint: its manifest and weights. */
export function importHuggingFace(folder: HfFolder, opts: HfImportOptions = {}): HfImportResult {
  const cfg = readJson(folder, 'config.json', "a Hugging Face model folder has one (the model's shape)");
  const model = modelConfigOf(cfg);
  checkTokenizer(
    readJson(folder, 'tokenizer.json', "the import needs it to check that the vocabulary is the playground's"),
  );
  if (!folder.has('model.safetensors')) {
    const why = folder.has('model.safetensors.index.json')
      ? 'the weights are sharded (model.safetensors.index.json), which the import does not read; save with ' +
        'a larger max_shard_size'
      : folder.has('pytorch_model.bin')
        ? 'only pytorch_model.bin is there; save with safe_serialization=True'
        : 'the weights file is not in the folder';
    throw new HfImportError(`model.safetensors is missing: ${why}`);
  }
  const weights = weightsFromHf(model, folder.get('model.safetensors')!);

  const pg = (cfg.rlvr_playground ?? {}) as {
    manifest?: unknown;
    weights_fingerprint?: unknown;
    checkpoint?: unknown;
    tasks?: unknown;
  };
  let embedded: Manifest | undefined;
  if (pg.manifest !== undefined) {
    try {
      embedded = validateManifest(pg.manifest);
    } catch (e) {
      throw new HfImportError(`config.json: rlvr_playground.manifest: ${(e as Error).message}`);
    }
    if (!sameModel(embedded.model, model))
      throw new HfImportError(
        "config.json: the GPT-2 fields do not match rlvr_playground.manifest's model; the folder's config was edited",
      );
  }
  const layout = layoutOf(cfg, model, embedded);
  const fingerprint = weightsFingerprint(model, weights);
  if (embedded && pg.weights_fingerprint === fingerprint) {
    // The weights file is written beside the manifest under this name: a plain file name only.
    const safe = /^[\w.+-]+\.safetensors$/.test(embedded.weights) && !embedded.weights.startsWith('.');
    return { manifest: safe ? embedded : { ...embedded, weights: 'model.safetensors' }, weights, unchanged: true };
  }

  const baseName = embedded?.name ?? (typeof pg.checkpoint === 'string' ? pg.checkpoint : 'hf-import');
  const taskIds =
    embedded?.tasks.map((t) => t.task) ??
    (Array.isArray(pg.tasks) ? pg.tasks.filter((t): t is string => typeof t === 'string') : []);
  const difficultyOf = (task: string) => embedded?.tasks.find((t) => t.task === task)?.difficulty ?? {};
  const parameters = paramSpecs(model).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
  const manifest: Manifest = {
    format: 'rlvr-playground-checkpoint',
    version: 1,
    name: opts.name ?? `${baseName}+hf`,
    weights: 'model.safetensors',
    model,
    layout,
    tokenizer: tokenizerSpec,
    // Not measured on these weights: `rlvr eval` measures them.
    tasks: taskIds.map((task) => ({
      task,
      difficulty: difficultyOf(task),
      pass_at_k: {},
      eval: embedded?.tasks.find((t) => t.task === task)?.eval ?? { prompts: 0, n: 0, seed: 0 },
    })),
    training: {
      kind: 'rl',
      command:
        `imported from ${opts.source ?? 'a Hugging Face folder'} (rlvr import --format hf), trained outside ` +
        `the playground from ${baseName}`,
      seed: embedded?.training.seed ?? 0,
      steps: 0,
      trained_on: taskIds.map((task) => ({ task, difficulty: difficultyOf(task) })),
    },
    created: opts.created ?? new Date().toISOString().slice(0, 10),
    parameters,
    ...(embedded?.recipe ? { recipe: embedded.recipe } : {}),
  };
  return { manifest, weights, unchanged: false };
}
