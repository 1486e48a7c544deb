import type { ModelConfig } from './config.ts';
import type { Layout } from './layout.ts';
import { checkWeights, type Weights } from './policy.ts';
import { readSafetensors, writeSafetensors } from './safetensors.ts';
import { tokenizerSpec, type TokenizerSpec } from './tokenizer.ts';
import { paramSpecs } from './transformer.ts';

/** The JSON manifest that sits beside a checkpoint's model.safetensors. */
export interface Manifest {
  format: 'rlvr-playground-checkpoint';
  version: 1;
  name: string;
  weights: string; // file name relative to the manifest
  model: ModelConfig;
  layout: Layout;
  tokenizer: TokenizerSpec | HfTokenizerSpec;
  /** Task ids this checkpoint is meant for, each with the RL difficulty its figures were measured at. */
  tasks: {
    task: string;
    difficulty: Record<string, number | string>;
    pass_at_k: Record<string, number>;
    eval: { prompts: number; n: number; seed: number };
  }[];
  /** What it was trained on and how to reproduce it. */
  training: {
    kind: 'pretrain' | 'rl';
    command: string;
    seed: number;
    steps: number;
    trained_on: { task: string; difficulty: Record<string, number | string> }[];
  };
  created: string;
  parameters: number;
  /**
   * The RL setting recommended for this checkpoint: a partial run config (difficulty and any knob
   * that must differ from the defaults), applied under the user's own choices by `rlvr train` and the
   * UI. Absent on older checkpoints, where tasks[].difficulty alone is used.
   */
  recipe?: Recipe;
  /** What the recipe measurably does: GRPO with it, `steps` steps, on each of `seeds` (rlvr sweep --record-gain). */
  rl_gain?: RlGain;
}

/**
 * A Hugging Face tokenizer kept beside the manifest (an imported Llama or Qwen2 folder's), run by
 * tokenizers.js (bpe-tokenizer.ts); file names are relative to the manifest.
 */
export interface HfTokenizerSpec {
  kind: 'hf';
  file: string;
  config?: string;
  chatTemplate?: string;
  /** The ids that end a generation: generation_config.json's eos_token_id, else the tokenizer's eos_token. */
  eosTokenIds: number[];
}

/** A partial run config (field names as in src/rl/config.ts); the model layer does not interpret it. */
export type Recipe = { difficulty?: Record<string, number | string> } & Record<string, unknown>;

export interface RlGain {
  preset: string;
  steps: number;
  seeds: number[];
  eval: { prompts: number; n: number; seed: number };
  /** Sampling temperature of the runs and of the held-out evaluations (absent in older records: 1). */
  temperature?: number;
  pass_at_1_before: number;
  /** Mean over seeds. */
  pass_at_1_after: number;
  pass_at_1_after_min: number;
  pass_at_8_before: number;
  pass_at_8_after: number;
  wall_time_s: number;
}

/** The RL difficulty a checkpoint recommends for a task: its recipe's, else the one its pass@k was measured at. */
export function recommendedDifficulty(m: Manifest, task: string): Record<string, number | string> | undefined {
  const measured = m.tasks.find((t) => t.task === task);
  if (!measured) return undefined;
  return m.recipe?.difficulty ?? measured.difficulty;
}

/** The sampling temperature a checkpoint's recipe trains and measures at (1 when it sets none). */
export function recipeTemperature(m: Manifest): number {
  const t = m.recipe?.temperature;
  return typeof t === 'number' ? t : 1;
}

export class CheckpointError extends Error {}

/**
 * Refuses a checkpoint with its own (BPE) tokenizer where `what` runs the playground's character-level
 * models only: the task prompts, verifiers and trainers still lay text out in characters (tokenizer.ts).
 */
export function requireCharTokenizer(m: Manifest, what: string): void {
  if (m.tokenizer.kind !== 'char') {
    throw new CheckpointError(
      `${m.name} is a ${m.model.qkvBias ? 'Qwen2' : 'Llama'} checkpoint with its own tokenizer ` +
        `(tokenizer.json); ${what} runs the playground's character-level models only for now (rlvr score ` +
        'reads it)',
    );
  }
}

export function validateManifest(m: unknown): Manifest {
  const o = m as Manifest;
  if (typeof o !== 'object' || o === null) throw new CheckpointError('manifest: not a JSON object');
  if (o.format !== 'rlvr-playground-checkpoint')
    throw new CheckpointError(
      `manifest: "format" must be "rlvr-playground-checkpoint", got ${JSON.stringify(o.format)}`,
    );
  if (typeof o.model !== 'object' || o.model === null) throw new CheckpointError('manifest: missing "model" config');
  for (const k of ['vocabSize', 'contextLength', 'dModel', 'nLayers', 'nHeads', 'dFF'] as const) {
    if (!Number.isInteger(o.model[k]) || o.model[k] <= 0)
      throw new CheckpointError(`manifest: model.${k} must be a positive integer, got ${JSON.stringify(o.model[k])}`);
  }
  if (!o.layout || !Number.isInteger(o.layout.promptLen) || !Number.isInteger(o.layout.completionLen))
    throw new CheckpointError('manifest: "layout" needs integer promptLen and completionLen');
  if (!Array.isArray(o.tasks)) throw new CheckpointError('manifest: "tasks" must be a list');
  return o;
}

/** Reads weights and checks them against the manifest's model; the message names what does not match. */
export function loadWeights(manifest: Manifest, bytes: Uint8Array): Weights {
  const { tensors } = readSafetensors(bytes);
  const w: Weights = new Map();
  for (const s of paramSpecs(manifest.model)) {
    const t = tensors.get(s.name);
    if (!t)
      throw new CheckpointError(
        `checkpoint does not match its manifest: tensor "${s.name}" is missing (the manifest's model needs it)`,
      );
    if (t.shape.length !== s.shape.length || t.shape.some((d, i) => d !== s.shape[i])) {
      throw new CheckpointError(
        `checkpoint does not match its manifest: tensor "${s.name}" has shape [${t.shape}], the model ` +
          `needs [${s.shape}]`,
      );
    }
    w.set(s.name, t.data);
  }
  for (const name of tensors.keys())
    if (!w.has(name)) throw new CheckpointError(`checkpoint does not match its manifest: unexpected tensor "${name}"`);
  checkWeights(manifest.model, w);
  return w;
}

export function saveWeights(c: ModelConfig, w: Weights, metadata: Record<string, string> = {}): Uint8Array {
  const m = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const s of paramSpecs(c)) m.set(s.name, { shape: s.shape, data: w.get(s.name)! });
  return writeSafetensors(m, metadata);
}

export { tokenizerSpec };
