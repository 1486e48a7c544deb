import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeTrlExport } from '../../export/trl/export.ts';
import { portedFamilies } from '../../export/trl/python-sources.ts';
import { validateManifest } from '../../model/checkpoint.ts';
import type { RunConfig } from '../../rl/config.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { checkKnownFlags, flag, intFlag, parseArgs, requireFlag, UsageError } from '../args.ts';
import { shippedFor } from '../shipped.ts';
import { resolveRunConfig } from './train.ts';

export const trlExportHelp = `rlvr export --format trl (--config FILE | --task T) [--preset P] [--set key=value …] --out DIR
  Writes a TRL (Hugging Face) GRPO project for the run config, resolved exactly as rlvr train resolves it:
  train_grpo.py (GRPOConfig + GRPOTrainer), rewards.py (the task's verifier in Python),
  prompts.jsonl (training prompts) and README.md (how to run it on a GPU machine).
  --seed S           the run seed (prompts are the ones rlvr train --seed S draws)
  --model MANIFEST   base checkpoint whose measured difficulty is used when the config sets none
                     (default: the shipped checkpoint for the task, as rlvr train does)
  --prompts N        how many training prompts to write (default 2000)`;

/** The difficulty rlvr train would run at: the config's, else the base checkpoint's measured one. */
function runDifficulty(config: RunConfig, model: string | undefined): Partial<Difficulty> {
  if (Object.keys(config.difficulty).length > 0) return config.difficulty;
  const path = resolve(model ?? shippedFor(config.task));
  let manifest;
  try {
    manifest = validateManifest(JSON.parse(readFileSync(path, 'utf8')));
  } catch (e) {
    throw new UsageError(`--model ${path}: ${(e as Error).message}`);
  }
  return manifest.tasks.find((t) => t.task === config.task)?.difficulty ?? {};
}

export async function runTrlExport(argv: string[]): Promise<number> {
  const a = parseArgs(argv);
  checkKnownFlags(a, ['format', 'config', 'task', 'preset', 'set', 'seed', 'model', 'out', 'prompts']);
  const out = resolve(requireFlag(a, 'out'));
  if (!flag(a, 'config') && !flag(a, 'task')) throw new UsageError('rlvr export --format trl needs --config FILE or --task T');
  let config: RunConfig;
  try {
    config = resolveRunConfig({ preset: flag(a, 'preset'), file: flag(a, 'config'), sets: a.flags.get('set') ?? [], task: flag(a, 'task'), seed: a.flags.has('seed') ? intFlag(a, 'seed') : undefined });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!(portedFamilies as readonly string[]).includes(config.task)) {
    throw new UsageError(`the TRL export has reward functions for ${portedFamilies.join(', ')}; not for task "${config.task}"`);
  }
  const count = intFlag(a, 'prompts', 2000);
  if (count < 1 || count > 1_000_000) throw new UsageError(`--prompts must be 1..1000000, got ${count}`);
  const result = writeTrlExport(config, runDifficulty(config, flag(a, 'model')), out, count);
  process.stdout.write(JSON.stringify({ ...result, task: config.task }) + '\n');
  return 0;
}
