/**
 * The SmolLM2-135M preset's model, batch and run config, without Node: bench/llama.ts (Node) and the
 * device bench page (bench/browser/device.ts, which runs where only a browser is) share them.
 */
import type { ModelConfig } from '../src/model/config.ts';
import type { Layout } from '../src/model/layout.ts';
import { llamaConfigOf } from '../src/model/hf-import-llama.ts';
import { PEFT_TARGETS } from '../src/model/lora.ts';
import { defaultConfig, validateConfig, type RunConfig } from '../src/rl/config.ts';
import { Rng } from '../src/util/rng.ts';

import { makeUpdateBatch, type UpdateBatch } from './batches.ts';
import type { LlamaPresetId } from './session.ts';

/** HuggingFaceTB/SmolLM2-135M's config.json (the fields the engine reads); the weights are random. */
export const SMOLLM2_135M_CONFIG = {
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  vocab_size: 49152,
  max_position_embeddings: 8192,
  rope_theta: 100000,
  rms_norm_eps: 1e-5,
  hidden_act: 'silu',
  tie_word_embeddings: true,
};

/**
 * LoRA r = 8, alpha 16 (PEFT's usual 2r), on every Llama projection PEFT names (the engine's default target_modules).
 */
export const LLAMA_LORA = { r: 8, alpha: 16, targets: [...PEFT_TARGETS] };

export interface LlamaShape {
  prompts: number;
  generations: number;
  promptLen: number;
  completionLen: number;
}

/** The batch: small, so the whole preset runs in a few minutes on 2 cores. */
export const LLAMA_SHAPE: LlamaShape = { prompts: 2, generations: 2, promptLen: 16, completionLen: 16 };

/**
 * The preset's model with its adapters: SmolLM2-135M's shape, or with only its first `layers` hidden layers (the
 * same width, heads and vocabulary: `rlvr bench --layers N`, the quick form scripts/bench-quick.mjs runs).
 */
export function llamaPresetModel(_id: LlamaPresetId, layers?: number): ModelConfig {
  const model = { ...llamaConfigOf(SMOLLM2_135M_CONFIG), lora: LLAMA_LORA };
  return layers === undefined ? model : { ...model, nLayers: layers };
}

/** A Llama small enough for a test's dry run of the same code path (`runBench`'s `llamaModel` override). */
export const DRY_LLAMA: ModelConfig = {
  arch: 'llama',
  vocabSize: 512,
  contextLength: 64,
  dModel: 64,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  dFF: 128,
  ropeTheta: 100000,
  normEps: 1e-5,
  qkvBias: false,
  tiedEmbeddings: true,
  lora: LLAMA_LORA,
};

/** The run config: GRPO defaults with the preset's batch and LoRA (task arithmetic only fills the required field). */
export function llamaRunConfig(model: ModelConfig, shape: LlamaShape = LLAMA_SHAPE): RunConfig {
  return validateConfig({
    ...defaultConfig,
    task: 'arithmetic',
    seed: 0,
    prompts_per_step: shape.prompts,
    num_generations: shape.generations,
    max_completion_length: shape.completionLen,
    lora_r: model.lora!.r,
    lora_alpha: model.lora!.alpha,
    target_modules: model.lora!.targets.join(','),
  });
}

/** The prompt rows: P seeded random prompts of token ids in [2, vocab) (0 and 1 are PAD and EOS), each G times. */
export function llamaRows(model: ModelConfig, shape: LlamaShape = LLAMA_SHAPE): number[][] {
  const rng = new Rng(20_240_135);
  const prompts = Array.from({ length: shape.prompts }, () =>
    Array.from({ length: shape.promptLen }, () => 2 + Math.floor(rng.next() * (model.vocabSize - 2))),
  );
  return prompts.flatMap((p) => new Array<number[]>(shape.generations).fill(p));
}

/**
 * The update batch of a first sampling. Rewards are seeded coin flips (core.ts); with G = 2 a group often
 * gets equal rewards and no signal, so take the first seed whose every group has one (the work is the same
 * either way, but a check then compares non-zero gradients).
 */
export function llamaUpdateBatch(
  layout: Layout,
  config: RunConfig,
  prompts: number[][],
  completions: { tokens: number[]; logp: number[] }[],
  G: number,
): UpdateBatch {
  for (let seed = 7; ; seed++) {
    const batch = makeUpdateBatch(layout, config, prompts, completions, seed);
    const adv = batch.advantages;
    const rowHas = (r: number) => adv.slice(r * batch.len, (r + 1) * batch.len).some((x) => x !== 0);
    if (Array.from({ length: prompts.length / G }, (_, g) => rowHas(g * G)).every(Boolean) || seed > 100) return batch;
  }
}
