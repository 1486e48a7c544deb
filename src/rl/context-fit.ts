/**
 * Whether a run fits the model's context: the task's longest prompt (plus room for a hint when hints
 * are on) and max_completion_length must fit in contextLength positions. The trainer refuses a run
 * that does not (trainer.ts), and the setup form shows the same check inline before Start
 * (src/ui/config-form.ts), so both use these functions.
 */
import { layoutFor } from '../model/task-layout.ts';
import type { RunConfig } from './config-fields.ts';

type Level = Record<string, number | string>;

/** Prompt tokens a set of difficulties needs (plus room for a hint when hints are on). */
export function promptTokensFor(task: string, levels: Level[], hints: boolean): number {
  const probe = layoutFor(
    levels.map((d) => ({ task, difficulty: d })),
    0,
    100,
  );
  return hints ? probe.promptLen + probe.completionLen : probe.promptLen;
}

/** The ladder's levels whose prompts leave room for max_completion_length. */
export function fittingLevels(
  c: Pick<RunConfig, 'task' | 'hints' | 'max_completion_length'>,
  levels: Level[],
  contextLength: number,
): Level[] {
  const room = contextLength - c.max_completion_length;
  return levels.filter((d) => promptTokensFor(c.task, [d], c.hints) <= room);
}

export function noLevelFits(c: Pick<RunConfig, 'task' | 'max_completion_length'>, contextLength: number): string {
  return `no level of the "${c.task}" ladder fits the model's context of ${contextLength} with max_completion_length ${c.max_completion_length}`;
}

/** Null when a fixed-difficulty run fits; else the reason, naming the numbers. */
export function contextOverflow(
  c: Pick<RunConfig, 'task' | 'hints' | 'max_completion_length'>,
  difficulty: Level,
  contextLength: number,
): string | null {
  const promptLen = promptTokensFor(c.task, [difficulty], c.hints);
  const total = promptLen + c.max_completion_length;
  if (total <= contextLength) return null;
  return `task "${c.task}" needs ${promptLen} prompt tokens + max_completion_length ${c.max_completion_length} = ${total} positions, but the model has ${contextLength}; lower max_completion_length or the difficulty`;
}
