/**
 * The files of a TRL export for one run config, as text: what `rlvr export --format trl` writes
 * (export.ts) and what the page's "Export for TRL" zips (src/ui/state/trl-export.ts). No file system, no DOM.
 */
import type { RunConfig } from '../../rl/config.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { promptRows, promptsJsonl } from './prompts-file.ts';
import { recordWriterSource, trlRecordSource } from './record-file.ts';
import { readmeSource } from './readme-file.ts';
import { rewardsSource } from './rewards-file.ts';
import { trainScriptSource } from './train-script.ts';

export const trlFiles = [
  'train_grpo.py',
  'rewards.py',
  'trl_record.py',
  'rlvr_record.py',
  'run_config.json',
  'prompts.jsonl',
  'README.md',
] as const;
export type TrlFile = (typeof trlFiles)[number];

/** The CLI's default prompt count (`rlvr export --format trl --prompts`). */
export const TRL_EXPORT_PROMPTS = 2000;

/** `difficulty` is the run's (the config's, or the base checkpoint's measured one when the config has none). */
export function trlExportContents(
  config: RunConfig,
  difficulty: Partial<Difficulty>,
  promptCount: number,
): { contents: Record<TrlFile, string>; prompts: number; difficulty: Difficulty } {
  if (!Number.isInteger(promptCount) || promptCount < 1) {
    throw new Error(`prompt count must be a positive integer, got ${promptCount}`);
  }
  const rewards = rewardsSource(config);
  const { rows, difficulty: resolved } = promptRows(config, difficulty, promptCount);
  const contents: Record<TrlFile, string> = {
    'train_grpo.py': trainScriptSource(config, resolved),
    'rewards.py': rewards,
    'trl_record.py': trlRecordSource(),
    'rlvr_record.py': recordWriterSource(),
    // The resolved run config, as the run record carries it.
    'run_config.json': JSON.stringify(config, null, 2) + '\n',
    'prompts.jsonl': promptsJsonl(rows),
    'README.md': readmeSource(config, resolved, rows.length),
  };
  return { contents, prompts: rows.length, difficulty: resolved };
}
