// The GPT-2 Hugging Face export of a LoRA checkpoint (hf-export.ts): GPT2LMHeadModel has no adapters, so
// they are merged into the base weights as PEFT's merge_and_unload does (lora.ts mergedWeights, whose
// logits lora.test.ts checks); before, the adapters were dropped and the export was the base model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWeights, type Manifest } from './checkpoint.ts';
import { exportHuggingFace } from './hf-export.ts';
import { importHuggingFace } from './hf-import.ts';
import { initAdapters, mergedWeights } from './lora.ts';
import { readSafetensors } from './safetensors.ts';
import { paramSpecs } from './transformer.ts';

const shipped = join(import.meta.dirname, '..', '..', 'public/checkpoints/arithmetic-tiny');

describe('the GPT-2 Hugging Face export of a LoRA checkpoint', () => {
  it('merges the adapters into c_proj and c_fc, and imports back as the merged model', () => {
    const base = JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')) as Manifest;
    const baseWeights = loadWeights(base, new Uint8Array(readFileSync(join(shipped, 'model.safetensors'))));
    const model = { ...base.model, lora: { r: 4, alpha: 8, targets: ['o_proj', 'up_proj', 'down_proj'] } };
    const weights = new Map([...baseWeights, ...initAdapters(model, paramSpecs(base.model), 3)]);
    for (const [k, b] of weights)
      if (k.endsWith('.lora_B')) b.forEach((_, i) => (b[i] = 0.05 * Math.sin(i + k.length)));
    const m: Manifest = { ...base, name: 'arithmetic-tiny+lora', model };

    const files = exportHuggingFace(m, weights, { onnx: false });
    const tensors = readSafetensors(files.get('model.safetensors')!).tensors;
    const merged = mergedWeights(model, weights);
    const l = base.model.nLayers - 1;
    for (const [hf, ours] of [
      [`transformer.h.${l}.attn.c_proj.weight`, `h${l}.attn.wo`],
      [`transformer.h.${l}.mlp.c_fc.weight`, `h${l}.mlp.w1`],
      [`transformer.h.${l}.mlp.c_proj.weight`, `h${l}.mlp.w2`],
    ] as const) {
      expect(Array.from(tensors.get(hf)!.data), hf).toEqual(Array.from(merged.get(ours)!));
      expect(Array.from(tensors.get(hf)!.data), hf).not.toEqual(Array.from(baseWeights.get(ours)!));
    }
    expect([...tensors.keys()].some((k) => k.includes('lora'))).toBe(false);

    const back = importHuggingFace(files);
    expect(back.unchanged).toBe(true);
    expect(back.manifest.model.lora).toBeUndefined();
    for (const [k, w] of merged) expect(Array.from(back.weights.get(k)!), k).toEqual(Array.from(w));
  });
});
