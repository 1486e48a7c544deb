/**
 * Writes a TRL export (train_grpo.py, rewards.py, the run-record writer, run_config.json, prompts.jsonl, README.md) for
 * one run config.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../../rl/config.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { trlExportContents, trlFiles } from './contents.ts';
import './python-sources.ts'; // the Python sources, read from disk

export { trlFiles } from './contents.ts';

export interface TrlExportResult {
  out: string;
  files: string[];
  prompts: number;
  difficulty: Difficulty;
}

/** `difficulty` is the run's (the config's, or the base checkpoint's measured one when the config has none). */
export function writeTrlExport(
  config: RunConfig,
  difficulty: Partial<Difficulty>,
  out: string,
  promptCount: number,
): TrlExportResult {
  const { contents, prompts, difficulty: resolved } = trlExportContents(config, difficulty, promptCount);
  mkdirSync(out, { recursive: true });
  for (const f of trlFiles) writeFileSync(join(out, f), contents[f]);
  return { out, files: [...trlFiles], prompts, difficulty: resolved };
}
