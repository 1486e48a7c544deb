// Import Hugging Face (folder): the chosen folder may itself be a TRL checkpoint-N/ folder; only
// checkpoint folders nested below the chosen one are left out.
import { describe, expect, it } from 'vitest';
import { hfImportPaths, nestedCheckpoints } from './hf-folder-paths.ts';

// The paths a folder picker gives (webkitRelativePath: the chosen folder's name, then the path in it),
// for the files TRL's Trainer.save_model / _save_checkpoint write.
const checkpointFolder = [
  'checkpoint-20/config.json',
  'checkpoint-20/generation_config.json',
  'checkpoint-20/model.safetensors',
  'checkpoint-20/trainer_state.json',
  'checkpoint-20/optimizer.pt',
  'checkpoint-20/tokenizer.json',
];

describe('which files Import Hugging Face (folder) reads', () => {
  it('a chosen checkpoint-20/ folder is read, not dropped', () => {
    expect(hfImportPaths(checkpointFolder)).toEqual([
      'checkpoint-20/config.json',
      'checkpoint-20/generation_config.json',
      'checkpoint-20/model.safetensors',
      'checkpoint-20/trainer_state.json',
      'checkpoint-20/tokenizer.json',
    ]);
  });

  it('checkpoint folders inside the chosen output folder are left out; the final model is read', () => {
    const out = [
      'out/config.json',
      'out/model.safetensors',
      'out/onnx/model.onnx',
      ...checkpointFolder.map((p) => 'out/' + p),
      'out/checkpoint-10/config.json',
    ];
    expect(hfImportPaths(out)).toEqual(['out/config.json', 'out/model.safetensors']);
    expect(nestedCheckpoints(out)).toEqual(['checkpoint-20', 'checkpoint-10']);
    expect(nestedCheckpoints(checkpointFolder)).toEqual([]);
  });

  it('loose files (no folder) are read by name', () => {
    expect(hfImportPaths(['config.json', 'model.safetensors', 'notes.txt'])).toEqual([
      'config.json',
      'model.safetensors',
    ]);
  });

  it('a Llama or Qwen2 folder: its shards, their index and its chat template are read, a PyTorch file is not', () => {
    const folder = [
      'tiny-llama/config.json',
      'tiny-llama/generation_config.json',
      'tiny-llama/model-00001-of-00002.safetensors',
      'tiny-llama/model-00002-of-00002.safetensors',
      'tiny-llama/model.safetensors.index.json',
      'tiny-llama/tokenizer.json',
      'tiny-llama/tokenizer_config.json',
      'tiny-llama/chat_template.jinja',
      'tiny-llama/training_args.bin',
      'tiny-llama/README.md',
    ];
    expect(hfImportPaths(folder)).toEqual(folder.slice(0, 8));
  });
});
