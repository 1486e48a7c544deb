import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { Manifest } from '../../model/checkpoint.ts';
import { readAdapter } from '../../model/peft-adapter.ts';
import { parameterCount } from '../../model/transformer.ts';
import { readCheckpoint, writeCheckpoint } from '../../node/checkpoint-files.ts';
import { flag, flagUsage, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';

export const PEFT_IMPORT_FLAGS: FlagTable = {
  format: { value: 'peft', help: 'a PEFT LoRA adapter folder (adapter_config.json, adapter_model.safetensors)' },
  model: { value: 'MANIFEST', help: 'the base checkpoint the adapter was trained on (its manifest.json)' },
  out: { value: 'OUTDIR', help: 'the checkpoint folder to write' },
  name: { value: 'NAME', help: 'the checkpoint\'s name (default "<base>+peft")' },
};

export const peftImportHelp = `rlvr import --format peft DIR --model MANIFEST --out OUTDIR [--name NAME]
  A LoRA adapter PEFT saved (DIR holds adapter_config.json and adapter_model.safetensors: what TRL with
  peft_config, e.g. the TRL export's train_grpo.py at lora_r > 0, writes in its output_dir), on top of
  the base checkpoint it was trained from, as one playground checkpoint with the adapters: rlvr score,
  rlvr eval and rlvr train (continuing them, with lora_r = R) take it. An adapter of another base (shapes
  that do not match), of a kind the engine does not run (rslora, DoRA, biases, modules_to_save) or that
  targets a module the base lacks is refused with the reason, and nothing is written.
${flagUsage(PEFT_IMPORT_FLAGS)}`;

/** `rlvr import --format peft`: the base checkpoint plus a PEFT adapter, written as one checkpoint. */
export function runPeftImport(argv: string[]): number {
  const a = parseFlags(argv, PEFT_IMPORT_FLAGS);
  if (a.positional.length !== 1)
    throw new UsageError(`give one adapter folder to import (DIR), got ${a.positional.length || 'none'}`);
  const dir = resolve(a.positional[0]!);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`${dir} is not a folder; give the folder that holds adapter_config.json`);
  const modelPath = resolve(requireFlag(a, 'model'));
  const out = resolve(requireFlag(a, 'out'));
  if (existsSync(join(out, 'manifest.json')))
    throw new Error(
      `--out ${out} already holds a checkpoint (manifest.json); choose another folder, nothing was written`,
    );
  const base = readCheckpoint(modelPath);
  if (base.manifest.model.lora)
    throw new Error(
      `${modelPath}: ${base.manifest.name} already carries LoRA adapters; give the base model the adapter ` +
        'was trained on',
    );
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f));
    } catch {
      throw new Error(`cannot import ${dir}: ${f} is not in the folder (PEFT's save_pretrained writes it)`);
    }
  };
  const configText = read('adapter_config.json').toString('utf8');
  const bytes = new Uint8Array(read('adapter_model.safetensors'));
  let adapter: ReturnType<typeof readAdapter>;
  try {
    adapter = readAdapter(base.manifest.model, configText, bytes);
  } catch (e) {
    throw new Error(`cannot import ${dir} onto ${base.manifest.name}: ${(e as Error).message}`);
  }
  const model = { ...base.manifest.model, lora: adapter.lora };
  const weights = new Map(base.weights);
  for (const [k, v] of adapter.weights) weights.set(k, v);
  const { rl_gain: _gain, ...inherited } = base.manifest;
  const source = relative(process.cwd(), dir) || basename(dir);
  const manifest: Manifest = {
    ...inherited,
    name: flag(a, 'name') ?? `${base.manifest.name}+peft`,
    model,
    // The adapter was trained elsewhere: the base's held-out figures are not this model's.
    tasks: [],
    training: {
      kind: 'rl',
      command: `rlvr import --format peft ${source} (adapter r = ${adapter.lora.r} on ${base.manifest.name})`,
      seed: 0,
      steps: 0,
      trained_on: [],
    },
    created: new Date().toISOString().slice(0, 10),
    parameters: parameterCount(model),
  };
  writeCheckpoint(out, manifest, weights, base.tokenizerFiles);
  process.stdout.write(
    JSON.stringify({
      out,
      manifest: join(out, 'manifest.json'),
      format: 'peft',
      model: manifest.name,
      base: base.manifest.name,
      lora: adapter.lora,
      parameters: manifest.parameters,
    }) + '\n',
  );
  return 0;
}
