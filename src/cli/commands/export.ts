import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exportInferenceModel } from '../../model/export-onnx.ts';
import { totalLen } from '../../model/layout.ts';
import { flag, flagUsage, intFlag, parseArgs, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';
import type { Command } from './command.ts';
import { HF_EXPORT_FLAGS, hfExportHelp, runHfExport } from './export-hf.ts';
import { PEFT_EXPORT_FLAGS, peftExportHelp, runPeftExport } from './export-peft.ts';
import { runTrlExport, TRL_EXPORT_FLAGS, trlExportHelp } from './export-trl.ts';

const ONNX_FLAGS: FlagTable = {
  format: { value: 'onnx', help: 'a standalone ONNX model (the default)' },
  model: { value: 'MANIFEST', help: "the checkpoint's manifest.json" },
  out: { value: 'FILE.onnx', help: 'the file to write' },
  batch: { value: 'B', help: 'rows (default 1)' },
  length: { value: 'T', help: "tokens a row (default: the checkpoint's prompt+completion length)" },
};

export const exportCommand: Command = {
  name: 'export',
  summary:
    'export a checkpoint as a standalone ONNX model (default), a Hugging Face folder (--format hf: GPT-2, or ' +
    'the Llama or Qwen2 it was imported as, LoRA merged) ' +
    'or its LoRA adapters for PEFT (--format peft), or a run config as a TRL project (--format trl)',
  help: `rlvr export [--format onnx] --model MANIFEST --out FILE.onnx [--batch B] [--length T]
  Inputs: tokens, positions (int64 [B,T]), key_bias (float [B,T], 0 real / -1e9 padding); output: logits [B,T,V].
${flagUsage(ONNX_FLAGS)}

${hfExportHelp}

${peftExportHelp}

${trlExportHelp}`,
  modes: [
    { argv: [], flags: ONNX_FLAGS },
    { argv: ['--format', 'hf'], flags: HF_EXPORT_FLAGS },
    { argv: ['--format', 'peft'], flags: PEFT_EXPORT_FLAGS },
    { argv: ['--format', 'trl'], flags: TRL_EXPORT_FLAGS },
  ],
  async run(argv) {
    // Only --format is read here (none of the formats has a flag without a value); each format's table
    // then checks the flags.
    const format = flag(parseArgs(argv), 'format') ?? 'onnx';
    if (format === 'hf') return runHfExport(argv);
    if (format === 'peft') return runPeftExport(argv);
    if (format === 'trl') return runTrlExport(argv);
    if (format !== 'onnx') throw new UsageError(`--format must be onnx, hf, peft or trl, got "${format}"`);
    const a = parseFlags(argv, ONNX_FLAGS);
    const { manifest, weights } = readCheckpoint(resolve(requireFlag(a, 'model')));
    const bytes = exportInferenceModel(
      manifest.model,
      weights,
      intFlag(a, 'batch', 1),
      intFlag(a, 'length', totalLen(manifest.layout)),
    );
    const out = resolve(requireFlag(a, 'out'));
    writeFileSync(out, bytes);
    process.stdout.write(JSON.stringify({ out, bytes: bytes.length, model: manifest.name }) + '\n');
    return 0;
  },
};
