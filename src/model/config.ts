import { VOCAB_SIZE } from './tokenizer.ts';

export interface ModelConfig {
  vocabSize: number;
  /** Longest prompt + completion the model sees (learned position embeddings). */
  contextLength: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  dFF: number;
  /**
   * The architecture: absent or 'gpt2' is the playground's own GPT-2 (learned positions, LayerNorm,
   * GELU MLP, tied head); 'llama' is transformers' LlamaForCausalLM (rotary positions, RMSNorm, SwiGLU
   * MLP, grouped-query attention), which with `qkvBias` is Qwen2ForCausalLM. The fields below are
   * read for 'llama' only.
   */
  arch?: 'gpt2' | 'llama';
  /** Key/value heads (grouped-query attention); nHeads must be a multiple. */
  nKvHeads?: number;
  ropeTheta?: number;
  /** RMSNorm's epsilon (config.json rms_norm_eps). */
  normEps?: number;
  /** Biases on the q, k and v projections (Qwen2). */
  qkvBias?: boolean;
  /** The output head is the token embedding (tie_word_embeddings); otherwise its own lm_head. */
  tiedEmbeddings?: boolean;
  /**
   * LoRA adapters (lora.ts): rank-r pairs on the weights PEFT's `targets` name, base weights frozen.
   * Absent: full fine-tuning. Checked by lora.ts validateLora (Policy.create calls it).
   */
  lora?: LoraSpec;
}

/**
 * PEFT's LoraConfig fields the graphs read: r, lora_alpha and target_modules (lora_dropout is the trainer's, not the
 * model's).
 */
export interface LoraSpec {
  r: number;
  alpha: number;
  targets: string[];
}

export const isLlama = (c: ModelConfig) => c.arch === 'llama';

/**
 * Presets. `tiny` is the WASM default; `mini` (twice tiny's width, about 4 times its parameters) is
 * countdown's checkpoint, where tiny's RL gain stayed below +15 points (docs/sweeps.md); `small` is
 * meant for WebGPU; `nano` is the smallest, for tests and the SwiftShader (software WebGPU) e2e
 * path. The output head is tied to the token embedding.
 */
export const modelPresets = {
  nano: { vocabSize: VOCAB_SIZE, contextLength: 128, dModel: 32, nLayers: 2, nHeads: 2, dFF: 64 },
  tiny: { vocabSize: VOCAB_SIZE, contextLength: 128, dModel: 64, nLayers: 4, nHeads: 4, dFF: 256 },
  mini: { vocabSize: VOCAB_SIZE, contextLength: 128, dModel: 128, nLayers: 4, nHeads: 4, dFF: 512 },
  small: { vocabSize: VOCAB_SIZE, contextLength: 192, dModel: 256, nLayers: 6, nHeads: 8, dFF: 1024 },
} satisfies Record<string, ModelConfig>;

export type ModelPresetId = keyof typeof modelPresets;

export function validateModelConfig(c: ModelConfig): void {
  for (const k of ['vocabSize', 'contextLength', 'dModel', 'nLayers', 'nHeads', 'dFF'] as const) {
    if (!Number.isInteger(c[k]) || c[k] <= 0)
      throw new Error(`model config: ${k} must be a positive integer, got ${c[k]}`);
  }
  if (c.dModel % c.nHeads !== 0)
    throw new Error(`model config: dModel (${c.dModel}) must be divisible by nHeads (${c.nHeads})`);
  if (isLlama(c)) {
    const kv = c.nKvHeads ?? c.nHeads;
    if (!Number.isInteger(kv) || kv <= 0 || c.nHeads % kv)
      throw new Error(`model config: nHeads (${c.nHeads}) must be a multiple of nKvHeads (${kv})`);
    if ((c.dModel / c.nHeads) % 2)
      throw new Error(`model config: the head size (${c.dModel / c.nHeads}) must be even for rotary embeddings`);
  } else if (c.arch !== undefined && c.arch !== 'gpt2')
    throw new Error(`model config: unknown arch ${JSON.stringify(c.arch)}`);
}
