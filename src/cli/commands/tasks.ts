import { flag, flagUsage, parseFlags, type FlagTable } from '../args.ts';
import { taskFamilies } from '../../tasks/registry.ts';
import type { KnobSpec } from '../../tasks/types.ts';
import type { Command } from './command.ts';

function knobLine(k: KnobSpec): string {
  const range = k.choices
    ? ` {${k.choices.join(',')}}`
    : k.min !== undefined || k.max !== undefined
      ? ` [${k.min ?? ''}..${k.max ?? ''}]`
      : '';
  return `    ${k.name} = ${JSON.stringify(k.default)}${range}  ${k.description}`;
}

const FLAGS: FlagTable = { json: { help: 'print one JSON array instead of text' } };

export const tasksCommand: Command = {
  name: 'tasks',
  summary: 'list task families with their knobs and defaults',
  help:
    'usage: rlvr tasks [--json]\n\nLists the task families (ids, knobs with defaults and ranges, difficulty ' +
    `ladders).\n${flagUsage(FLAGS)}`,
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const args = parseFlags(argv, FLAGS);
    if (flag(args, 'json') !== undefined) {
      const out = taskFamilies.map((f) => ({
        id: f.id,
        title: f.title,
        description: f.description,
        knobs: f.knobs,
        defaultDifficulty: f.defaultDifficulty,
        levels: f.levels,
        leaky: f.leakyDescription ?? null,
      }));
      process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      return 0;
    }
    const lines: string[] = [];
    for (const f of taskFamilies) {
      lines.push(`${f.id} — ${f.title}`, `  ${f.description}`);
      if (f.knobs.length) lines.push('  knobs:', ...f.knobs.map(knobLine));
      else lines.push('  knobs: none (sample with --dataset FILE)');
      lines.push(
        `  levels: ${f.levels.length}${f.leakyDescription ? `; leaky variant: ${f.leakyDescription}` : ''}`,
        '',
      );
    }
    process.stdout.write(lines.join('\n'));
    return 0;
  },
};
