#!/usr/bin/env node
// Writes docs/measured.md's "RL on every family" table from the recipe sweeps (docs/sweeps/recipes/TASK/results.jsonl,
// made by scripts/measure-recipes.sh) and the shipped manifests' recipes. Families not measured yet
// are listed as such. The table sits between the markers <!-- rl-gains:start --> and <!-- rl-gains:end -->;
// the models table (<!-- models:start --> … <!-- models:end -->) is refreshed from `rlvr models` too.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const ckptDir = join(root, 'public/checkpoints');
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f2 = (x) => x.toFixed(2);
const spread = (xs) => (xs.length > 1 ? ` (${f2(Math.min(...xs))}–${f2(Math.max(...xs))})` : '');

const rows = [];
// A family's measurement (docs/sweeps/recipes/TASK) belongs to its default checkpoint, the first that
// lists it (as `rlvr train` and scripts/measure-recipes.sh pick); another checkpoint of the same
// family keeps its own in docs/sweeps/recipes/CHECKPOINT (countdown-tiny beside countdown-mini).
const defaultFor = new Map();
for (const dir of readdirSync(ckptDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()) {
  const mpath = join(ckptDir, dir, 'manifest.json');
  if (!existsSync(mpath)) continue;
  const m = JSON.parse(readFileSync(mpath, 'utf8'));
  for (const t of m.tasks) {
    if (!defaultFor.has(t.task)) defaultFor.set(t.task, dir);
    const recipe = { ...(m.recipe ?? {}), difficulty: m.recipe?.difficulty ?? t.difficulty };
    const knobs = Object.entries(recipe)
      .filter(([k]) => k !== 'difficulty')
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    const knobText = knobs.length ? `, ${knobs.map((k) => `\`${k}\``).join(', ')}` : '';
    const recipeText = `\`${JSON.stringify(recipe.difficulty)}\`${knobText}`;
    const results = join(root, 'docs/sweeps/recipes', defaultFor.get(t.task) === dir ? t.task : dir, 'results.jsonl');
    const rs = existsSync(results)
      ? readFileSync(results, 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l))
          .filter((r) => r.sets.length === 0 && r.steps === 200)
          .sort((a, b) => a.seed - b.seed)
      : [];
    if (!rs.length) {
      rows.push(`| ${t.task} | ${m.name} | ${recipeText} | not measured yet | | | | |`);
      continue;
    }
    const a1 = rs.map((r) => r.pass_at_1_after);
    const a8 = rs.map((r) => r.pass_at_8_after);
    const gains = rs.map((r) => r.pass_at_1_after - r.pass_at_1_before);
    const ok = Math.min(...gains) >= 0.15 ? 'yes' : 'no';
    rows.push(
      `| ${t.task} | ${m.name} | ${recipeText} | ${f2(rs[0].pass_at_1_before)} → ${f2(mean(a1))}${spread(a1)} ` +
        `| ${f2(rs[0].pass_at_8_before)} → ${f2(mean(a8))}${spread(a8)} | ${(100 * mean(gains)).toFixed(1)} ` +
        `(min ${(100 * Math.min(...gains)).toFixed(1)}) | ${ok} | ${rs.map((r) => r.seed).join(', ')}; ` +
        `${Math.round(mean(rs.map((r) => r.wall_time_s)))} ` +
        's |',
    );
  }
}
const table = [
  '| family | checkpoint | recipe (difficulty, knobs) | pass@1 before → after (mean, range), at the ' +
    "recipe's temperature | pass@8 before → after | gain, points (mean, min) | ≥ 15 on every seed | seeds; " +
    'wall time per run |',
  '|---|---|---|---|---|---|---|---|',
  ...rows,
].join('\n');
register();
const { writeDocBlock } = await import(new URL('../src/cli/doc-blocks.ts', import.meta.url).href);
writeDocBlock('rl-gains', table);
// The models table (rlvr models) shows the same rl_gain per checkpoint.
writeDocBlock(
  'models',
  execFileSync(process.execPath, [join(root, 'scripts/rlvr.mjs'), 'models'], { cwd: root, encoding: 'utf8' }),
);
console.log(table);
