/** Writes a TRL export (train_grpo.py, rewards.py, the run-record writer, run_config.json, prompts.jsonl, README.md) for one run config. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../../rl/config.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { promptRows, promptsJsonl } from './prompts-file.ts';
import { recordWriterSource, trlRecordSource } from './record-file.ts';
import { readmeSource } from './readme-file.ts';
import { rewardsSource } from './rewards-file.ts';
import { trainScriptSource } from './train-script.ts';

export const trlFiles = ['train_grpo.py', 'rewards.py', 'trl_record.py', 'rlvr_record.py', 'run_config.json', 'prompts.jsonl', 'README.md'] as const;

export interface TrlExportResult {
  out: string;
  files: string[];
  prompts: number;
  difficulty: Difficulty;
}

/** `difficulty` is the run's (the config's, or the base checkpoint's measured one when the config has none). */
export function writeTrlExport(config: RunConfig, difficulty: Partial<Difficulty>, out: string, promptCount: number): TrlExportResult {
  if (!Number.isInteger(promptCount) || promptCount < 1) throw new Error(`prompt count must be a positive integer, got ${promptCount}`);
  const rewards = rewardsSource(config);
  const { rows, difficulty: resolved } = promptRows(config, difficulty, promptCount);
  mkdirSync(out, { recursive: true });
  const contents: Record<(typeof trlFiles)[number], string> = {
    'train_grpo.py': trainScriptSource(config, resolved),
    'rewards.py': rewards,
    'trl_record.py': trlRecordSource(),
    'rlvr_record.py': recordWriterSource(),
    // The resolved run config, as the run record carries it.
    'run_config.json': JSON.stringify(config, null, 2) + '\n',
    'prompts.jsonl': promptsJsonl(rows),
    'README.md': readmeSource(config, resolved, rows.length),
  };
  for (const f of trlFiles) writeFileSync(join(out, f), contents[f]);
  return { out, files: [...trlFiles], prompts: rows.length, difficulty: resolved };
}
