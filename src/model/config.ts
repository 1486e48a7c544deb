import { VOCAB_SIZE } from './tokenizer.ts';

export interface ModelConfig {
  vocabSize: number;
  /** Longest prompt + completion the model sees (learned position embeddings). */
  contextLength: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  dFF: number;
}

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
    if (!Number.isInteger(c[k]) || c[k] <= 0) throw new Error(`model config: ${k} must be a positive integer, got ${c[k]}`);
  }
  if (c.dModel % c.nHeads !== 0) throw new Error(`model config: dModel (${c.dModel}) must be divisible by nHeads (${c.nHeads})`);
}
