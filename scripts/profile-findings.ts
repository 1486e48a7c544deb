/**
 * Where a run's findings and search spend their time, one thread, no server: opening the run, reading each
 * step (files read and parsed into rows), each finding rule's measure, the judging, and a text search.
 *   node --import tsx scripts/profile-findings.ts DIR [QUERY]
 */
import { nodeRunFiles } from '../src/node/run-files.ts';
import { judgeRun, type StepMeasures } from '../src/runs/findings/find.ts';
import { findingRules } from '../src/runs/findings/registry.ts';
import { detectRuns, openRun } from '../src/runs/index.ts';

const [dir, query = 'satisfied'] = process.argv.slice(2);
if (!dir) throw new Error('usage: profile-findings.ts DIR [QUERY]');
const t = () => performance.now();
let t0 = t();
const files = nodeRunFiles(dir);
const { runs } = await detectRuns(files);
const run = await openRun(files, runs[0]!);
const open = t() - t0;
const perRule = new Map<string, number>();
const measures: StepMeasures[] = [];
let read = 0;
for (const step of run.index.steps) {
  t0 = t();
  const s = await run.readStep(step);
  read += t() - t0;
  const byKind: StepMeasures['byKind'] = {};
  for (const rule of findingRules) {
    t0 = t();
    byKind[rule.kind] = rule.measure(s, { name: run.index.name, index: run.index });
    perRule.set(rule.kind, (perRule.get(rule.kind) ?? 0) + t() - t0);
  }
  measures.push({ step, byKind });
}
t0 = t();
const findings = judgeRun(run.index, measures);
const judge = t() - t0;
const judgeByKind = findingRules.map((rule) => {
  const t1 = t();
  judgeRun(run.index, measures, [rule.kind]);
  return `${rule.kind} ${((t() - t1) / 1000).toFixed(2)} s`;
});
t0 = t();
const run2 = await openRun(files, runs[0]!);
const found = await run2.search({ text: query }, { limit: 200 });
const search = t() - t0;
const ms = (x: number) => `${(x / 1000).toFixed(2)} s`;
console.log(`${dir}: ${run.index.steps.length} steps; open ${ms(open)}, read steps ${ms(read)}, judge ${ms(judge)}`);
console.log(`  measure: ${[...perRule].map(([k, v]) => `${k} ${ms(v)}`).join(', ')}`);
console.log(`  judge: ${judgeByKind.join(', ')}`);
console.log(`  ${findings.length} findings; search "${query}" ${ms(search)} (${found.count} hits)`);
