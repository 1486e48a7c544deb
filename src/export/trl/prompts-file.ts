/**
 * prompts.jsonl: the training prompts `rlvr train` would draw with this config and seed, in the
 * same order (instance seeds trainSeed(seed, 0..N-1), far from the held-out seeds 0..P-1 of
 * src/rl/evaluate.ts), with the columns rewards.py reads.
 */
import type { RunConfig } from '../../rl/config.ts';
import { heldOutSeed } from '../../rl/evaluate.ts';
import { trainSeed } from '../../rl/trainer.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import type { Difficulty, TaskInstance } from '../../tasks/types.ts';

export interface PromptRow {
  prompt: string;
  /** The instance's data as JSON text (one string column, whatever the family). */
  data: string;
  answer: string;
  reference: string;
  seed: number;
}

export function promptRows(
  config: RunConfig,
  difficulty: Partial<Difficulty>,
  count: number,
): { rows: PromptRow[]; difficulty: Difficulty } {
  const fam = getTaskFamily(config.task);
  const heldOutMax = heldOutSeed(Math.max(config.eval_prompts, 1024) - 1);
  let resolved: Difficulty | null = null;
  const rows = Array.from({ length: count }, (_, n) => {
    const seed = trainSeed(config.seed, n);
    if (seed <= heldOutMax) throw new Error(`training seed ${seed} overlaps the held-out seeds 0..${heldOutMax}`);
    const inst: TaskInstance = fam.generate(seed, difficulty);
    resolved ??= inst.difficulty;
    return {
      prompt: inst.prompt,
      data: JSON.stringify(inst.data),
      answer: inst.answer,
      reference: inst.reference,
      seed,
    };
  });
  return { rows, difficulty: resolved ?? fam.generate(trainSeed(config.seed, 0), difficulty).difficulty };
}

export function promptsJsonl(rows: PromptRow[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
