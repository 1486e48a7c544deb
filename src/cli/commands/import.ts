import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { HfImportError, type HfFolder } from '../../model/hf-import.ts';
import { importAnyHuggingFace } from '../../model/hf-import-llama.ts';
import { flag, flagUsage, parseArgs, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { PEFT_IMPORT_FLAGS, peftImportHelp, runPeftImport } from './import-peft.ts';
import { tokenizerFileNames } from '../../model/text-codec.ts';
import { writeCheckpoint } from '../../node/checkpoint-files.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = {
  format: {
    value: 'hf',
    help: "a Hugging Face folder: LlamaForCausalLM, Qwen2ForCausalLM or the playground's GPT-2",
  },
  out: { value: 'OUTDIR', help: 'the checkpoint folder to write' },
  name: { value: 'NAME', help: 'the checkpoint\'s name when the weights were trained elsewhere (default "<base>+hf")' },
};

const help = `rlvr import --format hf DIR --out OUTDIR [--name NAME]
  Turns a Hugging Face folder into a playground checkpoint. Two kinds are read:
  - LlamaForCausalLM and Qwen2ForCausalLM folders (config.json; model.safetensors, or its shards and
    model.safetensors.index.json; tokenizer.json with a BPE model; tokenizer_config.json,
    generation_config.json and chat_template.jinja when present, copied beside the manifest). A config
    the engine cannot run (rope scaling, sliding window, mixture of experts, another activation, ...)
    is refused naming the field; rlvr score --model takes the result.
  - a GPT-2 folder with the playground's tokenizer, turned into a playground checkpoint:
  OUTDIR/manifest.json and OUTDIR/model.safetensors, which rlvr eval --model, rlvr train --model and
  the page's "Load checkpoint" take. DIR is what rlvr export --format hf wrote, or what TRL saved after
  training from it (train_grpo.py's --output_dir). Importing an unchanged export gives back the exported
  checkpoint bit for bit; other weights get a manifest that names where they came from, without the
  base's held-out figures. A model with another vocabulary, tokenizer or shape is refused, saying which.
${flagUsage(FLAGS)}

${peftImportHelp}`;

/** The folder's top-level files (the ones the import reads are all at the top). */
function readFolder(dir: string): HfFolder {
  const files: HfFolder = new Map();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const wanted = ['.json', '.safetensors', '.bin', '.jinja'].some((ext) => name.endsWith(ext));
    if (statSync(path).isFile() && wanted) files.set(name, new Uint8Array(readFileSync(path)));
  }
  return files;
}

export const importCommand: Command = {
  name: 'import',
  summary:
    'import a Hugging Face Llama or Qwen2 folder, or a GPT-2 one (rlvr export --format hf, or trained ' +
    'from it by TRL), as a playground checkpoint (--format hf), or a PEFT LoRA adapter onto its base ' +
    '(--format peft)',
  help,
  modes: [
    { argv: ['--format', 'hf'], flags: FLAGS },
    { argv: ['--format', 'peft'], flags: PEFT_IMPORT_FLAGS },
  ],
  async run(argv) {
    if (flag(parseArgs(argv), 'format') === 'peft') return runPeftImport(argv);
    const a = parseFlags(argv, FLAGS);
    const format = requireFlag(a, 'format');
    if (format !== 'hf') throw new UsageError(`--format must be hf or peft, got "${format}"`);
    if (a.positional.length !== 1)
      throw new UsageError(
        'give one folder to import (DIR), got ' +
          (a.positional.length ? a.positional.map((p) => JSON.stringify(p)).join(' ') : 'none'),
      );
    const dir = resolve(a.positional[0]!);
    if (!existsSync(dir)) throw new UsageError(`${dir} does not exist`);
    if (!statSync(dir).isDirectory())
      throw new UsageError(
        `${dir} is not a folder; give the folder that holds config.json and model.safetensors (unzip a ` +
          `zip first; the page's Import Hugging Face reads zips)`,
      );
    const out = resolve(requireFlag(a, 'out'));
    if (existsSync(join(out, 'manifest.json')))
      throw new Error(
        `--out ${out} already holds a checkpoint (manifest.json); choose another folder, nothing was written`,
      );
    let result;
    try {
      result = importAnyHuggingFace(readFolder(dir), {
        name: flag(a, 'name'),
        source: relative(process.cwd(), dir) || basename(dir),
      });
    } catch (e) {
      if (e instanceof HfImportError) throw new Error(`cannot import ${dir}: ${e.message}`);
      throw e;
    }
    const files = result.files ?? new Map<string, Uint8Array>();
    const text = (f: string) => new TextDecoder().decode(files.get(f));
    const tokenizerFiles = Object.fromEntries(tokenizerFileNames(result.manifest).map((f) => [f, text(f)]));
    writeCheckpoint(out, result.manifest, result.weights, tokenizerFiles);
    for (const [name, bytes] of files) writeFileSync(join(out, name), bytes);
    process.stdout.write(
      JSON.stringify({
        out,
        manifest: join(out, 'manifest.json'),
        format: 'hf',
        model: result.manifest.name,
        unchanged: result.unchanged,
        parameters: result.manifest.parameters,
        tasks: result.manifest.tasks.map((t) => t.task),
      }) + '\n',
    );
    return 0;
  },
};
