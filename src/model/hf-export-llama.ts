import type { HfTokenizerSpec, Manifest } from './checkpoint.ts';
import { isLlama, type ModelConfig } from './config.ts';
import { LLAMA_DEFAULTS } from './llama.ts';
import { mergedWeights, zeroAdaptersWarning } from './lora.ts';
import type { Weights } from './policy.ts';
import { writeSafetensors } from './safetensors.ts';

/**
 * An imported Llama or Qwen2 checkpoint (hf-import-llama.ts), trained here or not, as a Hugging Face
 * folder that transformers' AutoModelForCausalLM and AutoTokenizer load: the inverse of the import.
 * LoRA adapters are merged into the base weights (lora.ts mergedWeights, PEFT's merge_and_unload), so
 * the folder is a plain LlamaForCausalLM / Qwen2ForCausalLM. The architecture is the one the import
 * read: hf-import-llama.ts LLAMA_FAMILY gives Qwen2 (and only Qwen2) q/k/v biases.
 */
export class LlamaExportError extends Error {}

/** Tokenizer files as the manifest names them (Save checkpoint prefixes them, checkpoint-files.ts) -> text. */
export type TokenizerTexts = Record<string, string>;

/** Files a checkpoint folder may carry beside the manifest (rlvr import copies them there), passed through. */
export interface LlamaExportExtras {
  generationConfig?: string;
  specialTokensMap?: string;
}

const architectureOf = (c: ModelConfig) =>
  c.qkvBias
    ? { architecture: 'Qwen2ForCausalLM', modelType: 'qwen2' }
    : { architecture: 'LlamaForCausalLM', modelType: 'llama' };

/** One id as a number, several as a list, none as null: how transformers writes eos_token_id. */
const idField = (ids: number[]) => (ids.length === 0 ? null : ids.length === 1 ? ids[0]! : ids);

/**
 * config.json with the fields transformers 5 writes for the architecture (rope_parameters), plus
 * rope_theta, which transformers 4 reads instead; every field hf-import-llama.ts llamaConfigOf reads gives
 * back this model config.
 */
export function llamaHfConfig(c: ModelConfig, eosTokenIds: number[]): Record<string, unknown> {
  const { architecture, modelType } = architectureOf(c);
  const ropeTheta = c.ropeTheta ?? LLAMA_DEFAULTS.ropeTheta;
  const common = {
    architectures: [architecture],
    model_type: modelType,
    vocab_size: c.vocabSize,
    hidden_size: c.dModel,
    intermediate_size: c.dFF,
    num_hidden_layers: c.nLayers,
    num_attention_heads: c.nHeads,
    num_key_value_heads: c.nKvHeads ?? c.nHeads,
    hidden_act: 'silu',
    max_position_embeddings: c.contextLength,
    rms_norm_eps: c.normEps ?? LLAMA_DEFAULTS.normEps,
    rope_theta: ropeTheta,
    rope_parameters: { rope_theta: ropeTheta, rope_type: 'default' },
    tie_word_embeddings: c.tiedEmbeddings !== false,
    attention_dropout: 0,
    use_cache: true,
    bos_token_id: null,
    eos_token_id: idField(eosTokenIds),
    pad_token_id: null,
    dtype: 'float32',
  };
  if (modelType === 'qwen2') {
    return {
      ...common,
      use_sliding_window: false,
      sliding_window: null,
      layer_types: Array.from({ length: c.nLayers }, () => 'full_attention'),
    };
  }
  return {
    ...common,
    head_dim: c.dModel / c.nHeads,
    attention_bias: false,
    mlp_bias: false,
    pretraining_tp: 1,
  };
}

/** [rows, cols] -> [cols, rows]: our x·W matrix [in, out] as a torch Linear's weight [out, in]. */
function transposed(a: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = a[i * cols + j]!;
  return out;
}

/** model.safetensors under transformers' names (the inverse of hf-import-llama.ts llamaWeightsFrom). */
export function llamaStateDict(c: ModelConfig, w: Weights): Map<string, { shape: number[]; data: Float32Array }> {
  const d = c.dModel;
  const dh = d / c.nHeads;
  const q = c.nHeads * dh;
  const kv = (c.nKvHeads ?? c.nHeads) * dh;
  const get = (name: string) =>
    w.get(name) ?? fail(`the checkpoint has no weight "${name}" (a model of its manifest's shape needs it)`);
  const out = new Map<string, { shape: number[]; data: Float32Array }>();
  out.set('model.embed_tokens.weight', { shape: [c.vocabSize, d], data: get('wte') });
  if (c.tiedEmbeddings === false) out.set('lm_head.weight', { shape: [c.vocabSize, d], data: get('lm_head') });
  for (let l = 0; l < c.nLayers; l++) {
    const ours = `h${l}.`;
    const hf = `model.layers.${l}.`;
    const lin = (name: string, weight: string, inDim: number, outDim: number) =>
      out.set(`${hf}${name}.weight`, { shape: [outDim, inDim], data: transposed(get(ours + weight), inDim, outDim) });
    out.set(hf + 'input_layernorm.weight', { shape: [d], data: get(ours + 'ln1.g') });
    lin('self_attn.q_proj', 'attn.wq', d, q);
    lin('self_attn.k_proj', 'attn.wk', d, kv);
    lin('self_attn.v_proj', 'attn.wv', d, kv);
    if (c.qkvBias) {
      out.set(hf + 'self_attn.q_proj.bias', { shape: [q], data: get(ours + 'attn.bq') });
      out.set(hf + 'self_attn.k_proj.bias', { shape: [kv], data: get(ours + 'attn.bk') });
      out.set(hf + 'self_attn.v_proj.bias', { shape: [kv], data: get(ours + 'attn.bv') });
    }
    lin('self_attn.o_proj', 'attn.wo', q, d);
    out.set(hf + 'post_attention_layernorm.weight', { shape: [d], data: get(ours + 'ln2.g') });
    lin('mlp.gate_proj', 'mlp.wg', d, c.dFF);
    lin('mlp.up_proj', 'mlp.wu', d, c.dFF);
    lin('mlp.down_proj', 'mlp.wd', c.dFF, d);
  }
  out.set('model.norm.weight', { shape: [d], data: get('lnf.g') });
  return out;
}

const fail = (msg: string): never => {
  throw new LlamaExportError(msg);
};

/** The tokenizer's files under the names transformers looks for, whatever the checkpoint calls them. */
function tokenizerFilesOf(name: string, spec: HfTokenizerSpec, texts: TokenizerTexts): Map<string, string> {
  const out = new Map<string, string>();
  const take = (ours: string | undefined, theirs: string) => {
    if (ours === undefined) return;
    const text =
      texts[ours] ?? fail(`${name}: its tokenizer file ${ours} (named by the manifest) was not given to the export`);
    out.set(theirs, text);
  };
  take(spec.file, 'tokenizer.json');
  take(spec.config, 'tokenizer_config.json');
  take(spec.chatTemplate, 'chat_template.jinja');
  return out;
}

/** README.md: where the folder came from, and what was merged (or that the adapters were all zero). */
function readme(m: Manifest, warning: string | null): string {
  const { architecture } = architectureOf(m.model);
  const l = m.model.lora;
  const lines = [
    `# ${m.name}`,
    '',
    `A ${architecture} exported by \`rlvr export --format hf\` from the playground checkpoint ${m.name}`,
    `(${m.training.command}).`,
  ];
  if (l) {
    lines.push(
      '',
      `Its LoRA adapters (r = ${l.r}, lora_alpha = ${l.alpha}, target_modules ${l.targets.join(', ')}) are merged`,
      'into the base weights: W + (lora_alpha / r) · B A, as PEFT merge_and_unload computes it.',
    );
  }
  if (warning) lines.push('', `**Warning:** ${warning}.`);
  return lines.join('\n') + '\n';
}

/**
 * Every file of the export, by name: config.json, model.safetensors (LoRA merged), generation_config.json
 * (the checkpoint's own, else its eos ids), the tokenizer files, special_tokens_map.json when carried,
 * and README.md. `warning` is zeroAdaptersWarning's message, for the caller to show too.
 */
export function exportLlamaHuggingFace(
  m: Manifest,
  weights: Weights,
  tokenizerTexts: TokenizerTexts,
  extras: LlamaExportExtras = {},
): { files: Map<string, Uint8Array>; warning: string | null } {
  const c = m.model;
  if (!isLlama(c))
    fail(`${m.name} is the playground's GPT-2, not a Llama or Qwen2 (its export is exportHuggingFace, hf-export.ts)`);
  const spec =
    m.tokenizer.kind === 'hf'
      ? m.tokenizer
      : fail(
          `${m.name} is a Llama without its own tokenizer (tokenizer.json), which transformers needs: only a ` +
            'checkpoint imported with rlvr import --format hf (or trained from one) exports as a Llama folder',
        );
  const warning = zeroAdaptersWarning(c, weights);
  const { lora: _merged, ...plain } = c;
  const enc = new TextEncoder();
  const json = (o: unknown) => enc.encode(JSON.stringify(o, null, 2) + '\n');
  const files = new Map<string, Uint8Array>();
  files.set('config.json', json(llamaHfConfig(plain, spec.eosTokenIds)));
  files.set('model.safetensors', writeSafetensors(llamaStateDict(plain, mergedWeights(c, weights)), { format: 'pt' }));
  if (extras.generationConfig !== undefined) files.set('generation_config.json', enc.encode(extras.generationConfig));
  else if (spec.eosTokenIds.length)
    files.set('generation_config.json', json({ eos_token_id: idField(spec.eosTokenIds) }));
  for (const [name, text] of tokenizerFilesOf(m.name, spec, tokenizerTexts)) files.set(name, enc.encode(text));
  if (extras.specialTokensMap !== undefined) files.set('special_tokens_map.json', enc.encode(extras.specialTokensMap));
  files.set('README.md', enc.encode(readme(m, warning)));
  return { files, warning };
}
