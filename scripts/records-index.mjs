#!/usr/bin/env node
// Writes public/records/index.json, the page's list of shipped run records (src/ui/recording.ts reads
// it), from the files under public/records/ (scripts/record-lessons.sh records them): the demo record,
// then each lesson's records (public/records/lessons/ID/seed-S/ARM.rlvr.gz) with their lesson, arm and seed.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { lessons } = await import(new URL('../src/rl/lessons.ts', import.meta.url).href);
const root = new URL('../public/', import.meta.url).pathname;
const safe = (label) => label.replace(/[^\w.+=-]+/g, '_');
const records = [];
if (existsSync(join(root, 'records/sat-grpo-30.rlvr.gz'))) records.push({ file: 'records/sat-grpo-30.rlvr.gz', title: 'SAT, GRPO defaults, 30 steps (rlvr train --record)' });
for (const l of lessons) {
  const dir = join(root, 'records/lessons', l.id);
  if (!existsSync(dir)) continue;
  for (const seedDir of readdirSync(dir).sort()) {
    const seed = Number(seedDir.replace(/^seed-/, ''));
    for (const run of l.runs) {
      const file = `records/lessons/${l.id}/${seedDir}/${safe(run.label)}.rlvr.gz`;
      if (existsSync(join(root, file))) records.push({ file, title: `Lesson: ${l.title} — ${run.label}, seed ${seed}`, lesson: { id: l.id, arm: run.label, seed } });
    }
  }
}
writeFileSync(join(root, 'records/index.json'), JSON.stringify({ records }, null, 2) + '\n');
console.log(`public/records/index.json: ${records.length} record${records.length === 1 ? '' : 's'}`);
