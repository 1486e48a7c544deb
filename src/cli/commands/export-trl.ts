import { resolve } from 'node:path';
import { writeTrlExport } from '../../export/trl/export.ts';
import { portedFamilies } from '../../export/trl/python-sources.ts';
import type { RunConfig } from '../../rl/config.ts';
import { flag, flagUsage, intFlag, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { resolveOverBase, userConfigInputs } from '../training-run.ts';
import { taskOf } from '../../rl/resolve-config.ts';

export const TRL_EXPORT_FLAGS: FlagTable = {
  format: { value: 'trl', help: 'a TRL project' },
  config: { value: 'FILE', help: "a config file (the playground's format), as rlvr train --config" },
  task: { value: 'T', help: 'task id, when there is no --config' },
  preset: { value: 'P', help: 'preset the config starts from' },
  set: { value: 'key=value', help: 'override a config field (repeatable), as rlvr train --set' },
  seed: { value: 'S', help: 'the run seed (prompts are the ones rlvr train --seed S draws)' },
  model: {
    value: 'MANIFEST',
    help:
      'base checkpoint whose recipe (difficulty and knobs) applies under the config\n' +
      '(default: the shipped checkpoint for the task, as rlvr train does)',
  },
  out: { value: 'DIR', help: 'the folder to write' },
  prompts: { value: 'N', help: 'how many training prompts to write (default 2000)' },
};

export const trlExportHelp = `rlvr export --format trl (--config FILE | --task T) [--preset P] [--set \
key=value …] --out DIR
  Writes a TRL (Hugging Face) GRPO project for the run config, resolved exactly as rlvr train resolves it:
  train_grpo.py (GRPOConfig + GRPOTrainer), rewards.py (the task's verifier in Python),
  prompts.jsonl (training prompts) and README.md (how to run it on a GPU machine).
${flagUsage(TRL_EXPORT_FLAGS)}`;

export async function runTrlExport(argv: string[]): Promise<number> {
  const a = parseFlags(argv, TRL_EXPORT_FLAGS);
  const out = resolve(requireFlag(a, 'out'));
  if (!flag(a, 'config') && !flag(a, 'task'))
    throw new UsageError('rlvr export --format trl needs --config FILE or --task T');
  let config: RunConfig;
  try {
    const user = userConfigInputs({
      preset: flag(a, 'preset'),
      file: flag(a, 'config'),
      sets: a.flags.get('set') ?? [],
      task: flag(a, 'task'),
      seed: a.flags.has('seed') ? intFlag(a, 'seed') : undefined,
    });
    const task = taskOf(user);
    if (!(portedFamilies as readonly string[]).includes(task)) {
      throw new UsageError(
        `the TRL export has reward functions for ${portedFamilies.join(', ')}; not for task "${task}"`,
      );
    }
    config = resolveOverBase(user, flag(a, 'model')).config;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const count = intFlag(a, 'prompts', 2000);
  if (count < 1 || count > 1_000_000) throw new UsageError(`--prompts must be 1..1000000, got ${count}`);
  const result = writeTrlExport(config, config.difficulty, out, count);
  process.stdout.write(JSON.stringify({ ...result, task: config.task }) + '\n');
  return 0;
}
