import { describe, expect, it } from 'vitest';
import type { HfTokenizerSpec } from '../../model/checkpoint.ts';
import { checkpointParts, savedTokenizer, tokenizerParts } from './checkpoint-files.ts';

const f = (name: string) => ({ name });
const spec: HfTokenizerSpec = {
  kind: 'hf',
  file: 'tokenizer.json',
  config: 'tokenizer_config.json',
  eosTokenIds: [2],
};

describe('Load checkpoint: which chosen file is which', () => {
  it('finds the manifest among a Llama checkpoint folder’s JSON files', () => {
    const files = ['tokenizer.json', 'manifest.json', 'generation_config.json', 'model.safetensors'].map(f);
    expect(checkpointParts(files)).toEqual({ manifest: f('manifest.json'), weights: f('model.safetensors') });
  });

  it('takes a saved NAME.manifest.json, and a lone JSON beside the weights as before', () => {
    const saved = ['run-step200.tokenizer.json', 'run-step200.manifest.json', 'run-step200.safetensors'].map(f);
    expect(checkpointParts(saved).manifest).toEqual(f('run-step200.manifest.json'));
    expect(checkpointParts([f('ck.json'), f('ck.safetensors')]).manifest).toEqual(f('ck.json'));
  });

  it('says what is missing or ambiguous', () => {
    expect(() => checkpointParts([f('manifest.json')])).toThrow(/choose both files/);
    expect(() => checkpointParts([f('tokenizer.json'), f('m.safetensors')])).toThrow(/choose both files/);
    expect(() => checkpointParts([f('a.json'), f('b.json'), f('m.safetensors')])).toThrow(/a.json, b.json/);
  });

  it('asks for the tokenizer file the manifest names', () => {
    const files = ['manifest.json', 'model.safetensors', 'tokenizer.json'].map(f);
    expect(() => tokenizerParts(spec, 'manifest.json', files)).toThrow(
      /manifest.json names its tokenizer's file tokenizer_config.json: choose it too/,
    );
    const all = [...files, f('tokenizer_config.json')];
    expect([...tokenizerParts(spec, 'manifest.json', all).keys()]).toEqual(['tokenizer.json', 'tokenizer_config.json']);
  });
});

describe('Save checkpoint: the tokenizer named after the checkpoint', () => {
  const bytes = { 'tokenizer.json': new Uint8Array([1]), 'tokenizer_config.json': new Uint8Array([2]) };

  it('renames each file and the manifest’s spec together, and a second save does not stack names', () => {
    const first = savedTokenizer(spec, 'llama-step200', bytes);
    expect(first.spec).toEqual({
      ...spec,
      file: 'llama-step200.tokenizer.json',
      config: 'llama-step200.tokenizer_config.json',
    });
    expect([...first.files.keys()]).toEqual(['llama-step200.tokenizer.json', 'llama-step200.tokenizer_config.json']);
    const again = savedTokenizer(first.spec, 'llama-step400', Object.fromEntries(first.files));
    expect(again.spec.file).toBe('llama-step400.tokenizer.json');
  });

  it('refuses to save half a checkpoint when the page lost the tokenizer', () => {
    expect(() => savedTokenizer(spec, 'x', {})).toThrow(
      /tokenizer.json of this run's model is not in this page any more/,
    );
  });
});
