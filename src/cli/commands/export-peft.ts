import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { zeroAdaptersWarning } from '../../model/lora.ts';
import { adapterFiles, adapterReadme } from '../../model/peft-adapter.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';
import { flag, flagUsage, parseFlags, requireFlag, type FlagTable } from '../args.ts';

export const PEFT_EXPORT_FLAGS: FlagTable = {
  format: { value: 'peft', help: "a LoRA checkpoint's adapters in PEFT's format" },
  model: { value: 'MANIFEST', help: "the checkpoint's manifest.json (trained with lora_r > 0)" },
  out: { value: 'DIR', help: 'the folder to write' },
  base: { value: 'NAME', help: "adapter_config.json's base_model_name_or_path (default: the checkpoint's name)" },
};

export const peftExportHelp = `rlvr export --format peft --model MANIFEST --out DIR [--base NAME]
  The LoRA adapters of a checkpoint trained with lora_r > 0, as PEFT's save_pretrained writes them:
  adapter_config.json and adapter_model.safetensors (PEFT's module names; PeftModel.from_pretrained reads them),
  and README.md. Adapters whose B matrices are all zero (they change nothing) are warned about on stderr
  and in README.md. To export the model whole, adapters merged in, use --format hf.
${flagUsage(PEFT_EXPORT_FLAGS)}`;

/** `rlvr export --format peft`: the checkpoint's adapters under DIR. */
export function runPeftExport(argv: string[]): number {
  const a = parseFlags(argv, PEFT_EXPORT_FLAGS);
  const path = resolve(requireFlag(a, 'model'));
  const { manifest, weights } = readCheckpoint(path);
  if (!manifest.model.lora)
    throw new Error(
      `${path}: ${manifest.name} has no LoRA adapters (it was trained with lora_r = 0, every weight trained): ` +
        'export it whole with --format hf, or train with lora_r > 0 to get adapters',
    );
  const out = resolve(requireFlag(a, 'out'));
  let isFile = false;
  try {
    isFile = !statSync(out).isDirectory();
  } catch {
    // does not exist yet: created below
  }
  if (isFile) throw new Error(`--out ${out} is a file; the PEFT export writes a folder`);
  const base = flag(a, 'base') ?? manifest.name;
  const files = adapterFiles(manifest.model, weights, base);
  const warning = zeroAdaptersWarning(manifest.model, weights);
  const readme = adapterReadme(manifest.name, manifest.model, base, warning);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'adapter_config.json'), files.config);
  writeFileSync(join(out, 'adapter_model.safetensors'), files.weights);
  writeFileSync(join(out, 'README.md'), readme);
  if (warning) process.stderr.write(`warning: ${path}: ${warning}\n`);
  process.stdout.write(
    JSON.stringify({
      out,
      format: 'peft',
      files: {
        'adapter_config.json': files.config.length,
        'adapter_model.safetensors': files.weights.length,
        'README.md': readme.length,
      },
      model: manifest.name,
      lora: manifest.model.lora,
    }) + '\n',
  );
  return 0;
}
