import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { exportHuggingFace } from '../../model/hf-export.ts';
import { exportLlamaHuggingFace, LlamaExportError } from '../../model/hf-export-llama.ts';
import { isLlama } from '../../model/config.ts';
import { zeroAdaptersWarning } from '../../model/lora.ts';
import { requireCharTokenizer } from '../../model/checkpoint.ts';
import { flagUsage, parseFlags, requireFlag, type FlagTable } from '../args.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';

export const HF_EXPORT_FLAGS: FlagTable = {
  format: { value: 'hf', help: 'a Hugging Face folder (GPT-2, or the Llama/Qwen2 it was imported as)' },
  model: { value: 'MANIFEST', help: "the checkpoint's manifest.json" },
  out: { value: 'DIR', help: 'the folder to write' },
};

export const hfExportHelp = `rlvr export --format hf --model MANIFEST --out DIR
  A Hugging Face folder that transformers' AutoModelForCausalLM and AutoTokenizer load.
  - A Llama or Qwen2 checkpoint (rlvr import --format hf, trained here or not): config.json (the
    architecture it was imported as), model.safetensors with any LoRA adapters merged into the base
    weights (W + (lora_alpha/r)·B·A, as PEFT's merge_and_unload), generation_config.json, the checkpoint's
    tokenizer files (tokenizer.json, tokenizer_config.json, chat_template.jinja, special_tokens_map.json)
    and README.md. Adapters whose B matrices are all zero (they change nothing) are warned about on stderr.
  - The playground's GPT-2: config.json, generation_config.json, model.safetensors (GPT2LMHeadModel
    names, head tied to wte; LoRA adapters merged), tokenizer.json, tokenizer_config.json, and
    onnx/model.onnx for transformers.js.
${flagUsage(HF_EXPORT_FLAGS)}`;

/** A file beside the manifest that rlvr import copied there, if it is still there. */
function beside(manifestPath: string, name: string): string | undefined {
  const path = join(dirname(manifestPath), name);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** `rlvr export --format hf`: writes every file of the export under DIR. */
export function runHfExport(argv: string[]): number {
  const a = parseFlags(argv, HF_EXPORT_FLAGS);
  const manifestPath = resolve(requireFlag(a, 'model'));
  const { manifest, weights, tokenizerFiles } = readCheckpoint(manifestPath);
  const out = resolve(requireFlag(a, 'out'));
  let isFile = false;
  try {
    isFile = !statSync(out).isDirectory();
  } catch {
    // does not exist yet: created below
  }
  if (isFile) throw new Error(`--out ${out} is a file; the Hugging Face export writes a folder`);
  let files: Map<string, Uint8Array>;
  if (isLlama(manifest.model)) {
    let warning: string | null;
    try {
      ({ files, warning } = exportLlamaHuggingFace(manifest, weights, tokenizerFiles ?? {}, {
        generationConfig: beside(manifestPath, 'generation_config.json'),
        specialTokensMap: beside(manifestPath, 'special_tokens_map.json'),
      }));
    } catch (e) {
      if (e instanceof LlamaExportError) throw new Error(`cannot export ${manifestPath}: ${e.message}`);
      throw e;
    }
    if (warning) process.stderr.write(`warning: ${manifestPath}: ${warning}\n`);
  } else {
    requireCharTokenizer(manifest, 'rlvr export --format hf (the GPT-2 export)');
    files = exportHuggingFace(manifest, weights);
    const warning = zeroAdaptersWarning(manifest.model, weights);
    if (warning) process.stderr.write(`warning: ${manifestPath}: ${warning}\n`);
  }
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
