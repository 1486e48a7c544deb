#!/usr/bin/env node
// Writes public/records/index.json, the page's list of shipped run records (src/ui/state/recording.ts reads
// it), from the files under public/records/ (scripts/record-lessons.sh records them): the demo record,
// then each family's recipe run (public/records/recipes/T-grpo-200-seed2.rlvr.gz), then each lesson's records
// (public/records/lessons/ID/seed-S/ARM.rlvr.gz) with their lesson, arm and seed.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { lessons } = await import(new URL('../src/lessons/index.ts', import.meta.url).href);
const root = new URL('../public/', import.meta.url).pathname;
const safe = (label) => label.replace(/[^\w.+=-]+/g, '_');
const records = [];
if (existsSync(join(root, 'records/sat-grpo-30.rlvr.gz')))
  records.push({ file: 'records/sat-grpo-30.rlvr.gz', title: 'SAT, GRPO defaults, 30 steps (rlvr train --record)' });
// Each family's recipe run (scripts/record-lessons.sh recipes).
const recipesDir = join(root, 'records/recipes');
if (existsSync(recipesDir)) {
  for (const name of readdirSync(recipesDir).sort()) {
    const m = /^(\w+)-grpo-(\d+)-seed(\d+)\.rlvr\.gz$/.exec(name);
    if (m)
      records.push({
        file: `records/recipes/${name}`,
        title: `Recipe run: ${m[1]}, GRPO with its checkpoint's recipe, ${m[2]} steps, seed ${m[3]}`,
      });
  }
}
for (const l of lessons) {
  const dir = join(root, 'records/lessons', l.id);
  if (!existsSync(dir)) continue;
  for (const seedDir of readdirSync(dir).sort()) {
    const seed = Number(seedDir.replace(/^seed-/, ''));
    for (const run of l.runs) {
      const file = `records/lessons/${l.id}/${seedDir}/${safe(run.label)}.rlvr.gz`;
      if (existsSync(join(root, file)))
        records.push({
          file,
          title: `Lesson: ${l.title} — ${run.label}, seed ${seed}`,
          lesson: { id: l.id, arm: run.label, seed },
        });
    }
  }
}
writeFileSync(join(root, 'records/index.json'), JSON.stringify({ records }, null, 2) + '\n');
console.log(`public/records/index.json: ${records.length} record${records.length === 1 ? '' : 's'}`);
