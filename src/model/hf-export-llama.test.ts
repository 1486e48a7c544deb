// hf-export-llama.ts without Python: the config.json it writes reads back (hf-import-llama.ts llamaConfigOf) as
// the same model, the state dict reads back (llamaWeightsFrom) as the same weights, a tied head writes no
// lm_head.weight, and what cannot be exported is refused naming the file. src/cli/export-hf-llama.test.ts
// loads real exports in transformers.
import { describe, expect, it } from 'vitest';
import type { Manifest } from './checkpoint.ts';
import type { ModelConfig } from './config.ts';
import { exportLlamaHuggingFace, llamaHfConfig, llamaStateDict, LlamaExportError } from './hf-export-llama.ts';
import { llamaConfigOf, llamaWeightsFrom } from './hf-import-llama.ts';
import { tokenizerSpec } from './tokenizer.ts';
import { initParams } from './transformer.ts';

const llama: ModelConfig = {
  arch: 'llama',
  vocabSize: 11,
  contextLength: 16,
  dModel: 8,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  dFF: 12,
  ropeTheta: 500,
  normEps: 1e-5,
  qkvBias: false,
  tiedEmbeddings: false,
};
const qwen2: ModelConfig = { ...llama, qkvBias: true, tiedEmbeddings: true };

describe.each([
  ['Llama', llama, 'LlamaForCausalLM'],
  ['Qwen2', qwen2, 'Qwen2ForCausalLM'],
] as const)('the %s export', (_name, c, architecture) => {
  it('writes a config.json and a state dict that the import reads back as the same model and weights', () => {
    const cfg = llamaHfConfig(c, [3]);
    expect(cfg.architectures).toEqual([architecture]);
    expect(cfg.eos_token_id).toBe(3);
    expect(llamaConfigOf(cfg)).toEqual(c);
    const w = initParams(c, 4);
    const sd = llamaStateDict(c, w);
    expect(sd.has('lm_head.weight')).toBe(c.tiedEmbeddings === false);
    expect(sd.has('model.layers.1.self_attn.k_proj.bias')).toBe(c.qkvBias);
    expect(sd.get('model.layers.0.self_attn.k_proj.weight')!.shape).toEqual([4, 8]); // [kv heads · head size, d]
    const back = llamaWeightsFrom(c, sd);
    expect([...back.keys()].sort()).toEqual([...w.keys()].sort());
    for (const [k, v] of w) expect(Array.from(back.get(k)!), k).toEqual(Array.from(v));
  });
});

describe('what the Llama export refuses', () => {
  const manifest = (tokenizer: Manifest['tokenizer']): Manifest => ({
    format: 'rlvr-playground-checkpoint',
    version: 1,
    name: 'tiny-llama',
    weights: 'model.safetensors',
    model: llama,
    layout: { promptLen: 8, completionLen: 8 },
    tokenizer,
    tasks: [],
    training: { kind: 'pretrain', command: 'test', seed: 0, steps: 0, trained_on: [] },
    created: '2026-01-01',
    parameters: 0,
  });
  const w = initParams(llama, 1);

  it('a tokenizer file the manifest names that was not given, naming it', () => {
    const m = manifest({ kind: 'hf', file: 'run-step3.tokenizer.json', eosTokenIds: [1] });
    expect(() => exportLlamaHuggingFace(m, w, {})).toThrow(
      new LlamaExportError(
        'tiny-llama: its tokenizer file run-step3.tokenizer.json (named by the manifest) was not given to the export',
      ),
    );
  });

  it('a Llama without a tokenizer of its own, and the playground GPT-2', () => {
    const m = manifest(tokenizerSpec);
    expect(() => exportLlamaHuggingFace(m, w, {})).toThrow(/tiny-llama is a Llama without its own tokenizer/);
    const gpt2 = { ...m, model: { ...llama, arch: 'gpt2' as const } };
    expect(() => exportLlamaHuggingFace(gpt2, w, {})).toThrow(/is the playground's GPT-2, not a Llama or Qwen2/);
  });
});
