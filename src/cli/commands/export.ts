import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exportInferenceModel } from '../../model/export-onnx.ts';
import { totalLen } from '../../model/layout.ts';
import { checkKnownFlags, flag, intFlag, parseArgs, requireFlag, UsageError } from '../args.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';
import type { Command } from './command.ts';
import { hfExportHelp, runHfExport } from './export-hf.ts';
import { runTrlExport, trlExportHelp } from './export-trl.ts';

export const exportCommand: Command = {
  name: 'export',
  summary: 'export a checkpoint as a standalone ONNX model (default) or a Hugging Face GPT-2 folder (--format hf), or a run config as a TRL project (--format trl)',
  help: `rlvr export [--format onnx] --model MANIFEST --out FILE.onnx [--batch B (1)] [--length T (the checkpoint's prompt+completion length)]
  Inputs: tokens, positions (int64 [B,T]), key_bias (float [B,T], 0 real / -1e9 padding); output: logits [B,T,V].
${hfExportHelp}

${trlExportHelp}`,
  async run(argv) {
    const a = parseArgs(argv);
    const format = flag(a, 'format') ?? 'onnx';
    if (format === 'hf') return runHfExport(a);
    if (format === 'trl') return runTrlExport(argv);
    if (format !== 'onnx') throw new UsageError(`--format must be onnx, hf or trl, got "${format}"`);
    checkKnownFlags(a, ['format', 'model', 'out', 'batch', 'length']);
    const { manifest, weights } = readCheckpoint(resolve(requireFlag(a, 'model')));
    const bytes = exportInferenceModel(manifest.model, weights, intFlag(a, 'batch', 1), intFlag(a, 'length', totalLen(manifest.layout)));
    const out = resolve(requireFlag(a, 'out'));
    writeFileSync(out, bytes);
    process.stdout.write(JSON.stringify({ out, bytes: bytes.length, model: manifest.name }) + '\n');
    return 0;
  },
};
