#!/usr/bin/env node
// Writes docs/lessons.md's list of measured lessons from `rlvr lessons --json` (public/lessons/measured.json
// and each lesson's fixed verdict rule), between <!-- lessons:start --> and <!-- lessons:end -->.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const rows = JSON.parse(
  execFileSync(process.execPath, [join(root, 'scripts/rlvr.mjs'), 'lessons', '--json'], {
    cwd: root,
    encoding: 'utf8',
  }),
);
const lines = rows.map((l) => {
  const m = l.measured;
  if (!m) return `- **${l.id}**: not measured yet (\`npx rlvr lesson run ${l.id} --seeds ${l.seeds.join(',')}\`).`;
  const seeds = m.seeds?.length > 1 ? `seeds ${m.seeds.join(', ')}, means` : `seed ${m.seed}`;
  const perSeed = l.verdict_per_seed.length
    ? ` Per seed, the effect shows on ${l.verdict_per_seed.filter((p) => p.verdict.shows).length} of ` +
      `${l.verdict_per_seed.length}.`
    : '';
  const measured = m.summary.replace(/^[^:]*:\s*/, '');
  return (
    `- **${l.id}** (${seeds}, ${m.steps} steps on ${l.task}; effect ` +
    `${l.verdict.shows ? 'shows' : 'does not show'}): ${l.verdict.text}` +
    `${perSeed} Measured: ${measured}${measured.endsWith('.') ? '' : '.'}`
  );
});
const shown = rows.filter((l) => l.verdict?.shows).length;
const block = [`${shown} of ${rows.length} lessons show their effect on the mean over their seeds.`, '', ...lines].join(
  '\n',
);
register();
const { writeDocBlock } = await import(new URL('../src/cli/doc-blocks.ts', import.meta.url).href);
writeDocBlock('lessons', block);
process.stdout.write(`docs/lessons.md: ${rows.length} lessons, ${shown} show their effect\n`);
