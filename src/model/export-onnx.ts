import { compile } from '../engine/compile.ts';
import { Graph } from '../engine/graph.ts';
import type { ModelConfig } from './config.ts';
import type { Weights } from './policy.ts';
import { declareParams, forward, paramSpecs } from './transformer.ts';

/**
 * A standalone inference model: the whole-sequence forward pass with the weights baked in as
 * initializers, so onnxruntime (or any ONNX tool) loads it on its own. Inputs: tokens, positions
 * (int64 [batch, length]) and key_bias (float [batch, length]: 0 for real tokens, -1e9 for padding);
 * output: logits [batch, length, vocab].
 */
export function exportInferenceModel(c: ModelConfig, weights: Weights, batch: number, length: number): Uint8Array {
  if (length > c.contextLength)
    throw new Error(`export: length ${length} exceeds the model's context length ${c.contextLength}`);
  const g = new Graph();
  const p = declareParams(g, c);
  const tokens = g.input('tokens', 'int64', [batch, length]);
  const positions = g.input('positions', 'int64', [batch, length]);
  const keyBias = g.input('key_bias', 'float32', [batch, length]);
  g.output(forward(g, c, p, tokens, positions, keyBias), 'logits');
  const inits = paramSpecs(c).map((s) => ({
    name: s.name,
    dtype: 'float32' as const,
    shape: s.shape,
    data: weights.get(s.name)!,
  }));
  return compile(g, inits).bytes;
}
