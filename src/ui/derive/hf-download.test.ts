// The page's Download checkpoint and Export for Hugging Face on a LoRA run (the shipped arithmetic-tiny with
// adapters): adapters whose every B is still zero (a run that never earned a reward) are named, moved ones
// are not, and the Hugging Face zip's weights have the adapters merged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWeights, saveWeights, type Manifest } from '../../model/checkpoint.ts';
import { initAdapters } from '../../model/lora.ts';
import { readSafetensors } from '../../model/safetensors.ts';
import { paramSpecs } from '../../model/transformer.ts';
import { checkpointWarning, huggingFaceFolder } from './hf-download.ts';

const shipped = join(import.meta.dirname, '..', '..', '..', 'public/checkpoints/arithmetic-tiny');

function loraCheckpoint(moved: boolean): { manifest: Manifest; bytes: Uint8Array } {
  const base = JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')) as Manifest;
  const weights = loadWeights(base, new Uint8Array(readFileSync(join(shipped, 'model.safetensors'))));
  const model = { ...base.model, lora: { r: 4, alpha: 8, targets: ['o_proj', 'up_proj'] } };
  for (const [k, w] of initAdapters(model, paramSpecs(base.model), 3)) {
    if (moved && k.endsWith('.lora_B')) w[0] = 0.01;
    weights.set(k, w);
  }
  const manifest: Manifest = { ...base, name: 'arithmetic-tiny+grpo', model };
  return { manifest, bytes: saveWeights(model, weights, { name: manifest.name }) };
}

describe("the page's checkpoint exports of a LoRA run", () => {
  it('name adapters whose every B is zero, on Download checkpoint and on Export for Hugging Face', () => {
    const zero = loraCheckpoint(false);
    const said =
      'arithmetic-tiny+grpo: every LoRA B matrix is zero: the adapters change nothing — did the run get any reward?';
    expect(checkpointWarning(zero.manifest, zero.bytes)).toContain(said);
    const folder = huggingFaceFolder(zero.manifest, zero.bytes, {});
    expect(folder.warning).toContain(said);
    expect(folder.warning).toMatch(/Train with a task and settings that earn some reward first\.$/);
    expect([...folder.files.keys()]).toContain('model.safetensors');
  });

  it('say nothing when an adapter moved, and merge it into the exported weights', () => {
    const moved = loraCheckpoint(true);
    expect(checkpointWarning(moved.manifest, moved.bytes)).toBeNull();
    const folder = huggingFaceFolder(moved.manifest, moved.bytes, {});
    expect(folder.warning).toBeNull();
    const tensors = readSafetensors(folder.files.get('model.safetensors')!).tensors;
    const base = loadWeights(
      JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')),
      new Uint8Array(readFileSync(join(shipped, 'model.safetensors'))),
    );
    expect(Array.from(tensors.get('transformer.h.0.attn.c_proj.weight')!.data)).not.toEqual(
      Array.from(base.get('h0.attn.wo')!),
    );
  });
});
