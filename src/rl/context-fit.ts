/**
 * Whether a run fits the model's context: the task's longest prompt (plus room for a hint when hints
 * are on) and max_completion_length must fit in contextLength positions. The trainer refuses a run
 * that does not (trainer.ts), and the setup form shows the same check inline before Start
 * (src/ui/derive/config-form.ts), so both use these functions.
 */
import { layoutFor } from '../model/task-layout.ts';
import { charCodec, type TextCodec } from '../model/text-codec.ts';
import type { RunConfig } from './config-fields.ts';
import { ConfigError } from './config.ts';

type Level = Record<string, number | string>;

/** Prompt tokens a set of difficulties needs (plus room for a hint when hints are on). */
export function promptTokensFor(task: string, levels: Level[], hints: boolean, codec: TextCodec = charCodec): number {
  const probe = layoutFor(
    levels.map((d) => ({ task, difficulty: d })),
    0,
    100,
    codec,
  );
  return hints ? probe.promptLen + probe.completionLen : probe.promptLen;
}

/** The ladder's levels whose prompts leave room for max_completion_length. */
export function fittingLevels(
  c: Pick<RunConfig, 'task' | 'hints' | 'max_completion_length'>,
  levels: Level[],
  contextLength: number,
  codec: TextCodec = charCodec,
): Level[] {
  const room = contextLength - c.max_completion_length;
  return levels.filter((d) => promptTokensFor(c.task, [d], c.hints, codec) <= room);
}

/**
 * A ladder run's levels (those that fit the context; an Error when none does) and its first level,
 * ladder_start, checked against them (a ConfigError names the field and the range).
 */
export function fittingLadder(
  c: Pick<RunConfig, 'task' | 'hints' | 'max_completion_length' | 'ladder_start'>,
  levels: Level[],
  contextLength: number,
  codec: TextCodec = charCodec,
): { levels: Level[]; start: number } {
  const fit = fittingLevels(c, levels, contextLength, codec);
  if (!fit.length) throw new Error(noLevelFits(c, contextLength));
  const n = fit.length;
  if (c.ladder_start >= n)
    throw new ConfigError(
      'ladder_start',
      `must be below ${n}: the "${c.task}" ladder has ${n} level${n === 1 ? '' : 's'} that fit the model's context`,
    );
  return { levels: fit, start: c.ladder_start };
}

export function noLevelFits(c: Pick<RunConfig, 'task' | 'max_completion_length'>, contextLength: number): string {
  return (
    `no level of the "${c.task}" ladder fits the model's context of ${contextLength} with ` +
    `max_completion_length ${c.max_completion_length}`
  );
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
  return (
    `task "${c.task}" needs ${promptLen} prompt tokens + max_completion_length ${c.max_completion_length} = ` +
    `${total} positions, but the model has ${contextLength}; lower max_completion_length or the difficulty`
  );
}
