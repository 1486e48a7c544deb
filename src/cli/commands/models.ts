import { relative } from 'node:path';
import { recipeFor } from '../../rl/resolve-config.ts';
import { flag, flagUsage, parseFlags, type FlagTable } from '../args.ts';
import { shippedManifests } from '../shipped.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = { json: { help: 'print one JSON array instead of a Markdown table' } };

export const modelsCommand: Command = {
  name: 'models',
  summary: 'list the shipped base checkpoints, one row per (checkpoint, task), with base pass@k',
  help:
    'rlvr models [--json]\n  One row per (shipped checkpoint, task): manifest path, task id, model size, ' +
    'recorded base pass@k,\n  recipe (the RL setting rlvr train and the UI use unless told otherwise) and ' +
    'rl_gain (what GRPO with\n  that recipe measurably did: rlvr sweep --record-gain), or null where not ' +
    'measured.\n' +
    flagUsage(FLAGS),
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    const rows = shippedManifests().flatMap(({ path, manifest }) =>
      manifest.tasks.map((t) => ({
        manifest: relative(process.cwd(), path) || path,
        task: t.task,
        name: manifest.name,
        parameters: manifest.parameters,
        difficulty: t.difficulty,
        pass_at_k: t.pass_at_k,
        eval: t.eval,
        recipe: recipeFor(manifest, t.task),
        rl_gain: manifest.rl_gain ?? null,
      })),
    );
    if (flag(a, 'json')) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return 0;
    }
    if (!rows.length) {
      process.stdout.write('no shipped checkpoints found\n');
      return 0;
    }
    const lines = [
      '| checkpoint | task | parameters | RL difficulty | pass@1 (temperature 1) | pass@8 | GRPO gain ' +
        'with the recipe | manifest |',
      '|---|---|---|---|---|---|---|---|',
    ];
    for (const r of rows) {
      const g = r.rl_gain;
      const at = g && (g.temperature ?? 1) !== 1 ? ` at temperature ${g.temperature}` : '';
      const gain = g
        ? `${g.pass_at_1_before.toFixed(2)} → ${g.pass_at_1_after.toFixed(2)} in ${g.steps} steps (${g.seeds.length} ` +
          `seeds)${at}`
        : 'not measured';
      lines.push(
        `| ${r.name} | ${r.task} | ${r.parameters} | ${JSON.stringify(r.difficulty)} | ` +
          `${(r.pass_at_k['1'] ?? NaN).toFixed(3)} ` +
          `| ${(r.pass_at_k['8'] ?? NaN).toFixed(3)} | ${gain} | ${r.manifest} |`,
      );
    }
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};
