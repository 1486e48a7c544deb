import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { exportHuggingFace } from '../../model/hf-export.ts';
import { flagUsage, parseFlags, requireFlag, type FlagTable } from '../args.ts';
import { requireCharTokenizer } from '../../model/checkpoint.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';

export const HF_EXPORT_FLAGS: FlagTable = {
  format: { value: 'hf', help: 'a Hugging Face GPT-2 folder' },
  model: { value: 'MANIFEST', help: "the checkpoint's manifest.json" },
  out: { value: 'DIR', help: 'the folder to write' },
};

export const hfExportHelp = `rlvr export --format hf --model MANIFEST --out DIR
  A Hugging Face GPT-2 folder: config.json, generation_config.json, model.safetensors (GPT2LMHeadModel
  names, head tied to wte), tokenizer.json, tokenizer_config.json, and onnx/model.onnx for transformers.js.
${flagUsage(HF_EXPORT_FLAGS)}`;

/** `rlvr export --format hf`: writes every file of the export under DIR. */
export function runHfExport(argv: string[]): number {
  const a = parseFlags(argv, HF_EXPORT_FLAGS);
  const { manifest, weights } = readCheckpoint(resolve(requireFlag(a, 'model')));
  requireCharTokenizer(manifest, 'rlvr export --format hf (the GPT-2 export)');
  const out = resolve(requireFlag(a, 'out'));
  let isFile = false;
  try {
    isFile = !statSync(out).isDirectory();
  } catch {
    // does not exist yet: created below
  }
  if (isFile) throw new Error(`--out ${out} is a file; the Hugging Face export writes a folder`);
  const files = exportHuggingFace(manifest, weights);
  const sizes: Record<string, number> = {};
  for (const [name, bytes] of files) {
    const path = join(out, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    sizes[name] = bytes.length;
  }
  process.stdout.write(JSON.stringify({ out, format: 'hf', files: sizes, model: manifest.name }) + '\n');
  return 0;
}
