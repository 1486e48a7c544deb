#!/usr/bin/env node
// Runs the findings (src/runs/findings/) over every shipped recording (public/records/**/*.rlvr.gz) and the
// readers' fixtures (src/runs/fixtures), and prints how many of each kind each gives, to read and judge
// (docs/findings.md "False positives"). With --show, each finding's sentence and the start of its first
// rows' completions. Usage: node scripts/findings-false-positives.mjs [--show]
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const root = join(import.meta.dirname, '..');
const { openAllRuns } = await import(new URL('../src/runs/index.ts', import.meta.url).href);
const { nodeRunFiles } = await import(new URL('../src/node/run-files.ts', import.meta.url).href);
const { findRunFindings, findingKinds } = await import(new URL('../src/runs/findings/index.ts', import.meta.url).href);
const show = process.argv.includes('--show');

const walk = (dir) =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
// Each recording's folder is opened once (every record in it is a run); the fixtures folder likewise.
const folders = [
  ...new Set(
    walk(join(root, 'public/records'))
      .filter((p) => p.endsWith('.rlvr.gz'))
      .map(dirname),
  ),
];
folders.push(join(root, 'src/runs/fixtures'));
const totals = Object.fromEntries(findingKinds.map((k) => [k, 0]));
let runsSeen = 0;
for (const folder of folders.sort()) {
  const { runs } = await openAllRuns(nodeRunFiles(folder));
  // A folder's own records only (public/records itself holds the lessons' folders, each opened on its own),
  // and not the run with every finding planted on purpose (src/runs/findings/planted.ts).
  const clean = (r) => r.index.name !== 'planted-findings.jsonl';
  for (const run of runs.filter((r) => clean(r) && (folder.endsWith('fixtures') || !r.index.name.includes('/')))) {
    runsSeen++;
    const { findings } = await findRunFindings(run);
    const name = `${relative(root, folder)}/${run.index.name}`;
    const counts = findingKinds.filter((k) => findings.some((f) => f.kind === k));
    for (const f of findings) totals[f.kind]++;
    if (!findings.length) continue;
    console.log(`${name}: ${counts.map((k) => `${k} ${findings.filter((f) => f.kind === k).length}`).join(', ')}`);
    if (!show) continue;
    for (const f of findings) {
      console.log(`  [${f.kind} ${f.score.toFixed(2)}] ${f.text}`);
      if (!f.rows.length) continue;
      const step = await run.readStep(f.step);
      const rows = step.groups.flatMap((g) => g.completions).filter((c) => f.rows.includes(c.row));
      for (const c of rows.slice(0, 3))
        console.log(`    row ${c.row} (${c.reward}): ${JSON.stringify(c.completion.slice(0, 100))}`);
    }
  }
}
console.log(`${runsSeen} runs in ${folders.length} folders; findings per kind: ${JSON.stringify(totals)}`);
