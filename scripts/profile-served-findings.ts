/**
 * `rlvr view`'s findings of one run folder in-process (src/node/view-findings.ts), timed: the catalog's
 * index, then the findings measured over the worker threads and judged, cold (threads started by it).
 *   node --import tsx scripts/profile-served-findings.ts DIR [THREADS]
 */
import { detectRuns, openRun } from '../src/runs/index.ts';
import { RunCatalog } from '../src/node/run-catalog.ts';
import { ServedFolder } from '../src/node/served-folder.ts';
import { endFindingsThreads, servedFindings } from '../src/node/view-findings.ts';

const [dir, threads] = process.argv.slice(2);
if (!dir) throw new Error('usage: profile-served-findings.ts DIR [THREADS]');
let t0 = performance.now();
const catalog = new RunCatalog([await ServedFolder.open(dir)], { detectRuns, openRun });
const [run] = await catalog.runs(); // a look opens each run it lists (its index, runs.json's steps)
if (!run) throw new Error(`${dir}: no run`);
const index = catalog.index(run);
if (!index) throw new Error(`${dir}: ${run.name} could not be opened`);
const opened = performance.now() - t0;
t0 = performance.now();
const findings = await servedFindings(run, index, threads ? Number(threads) : undefined);
const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
console.log(`${dir}: index ${s(opened)}, findings ${s(performance.now() - t0)} (${findings.length})`);
endFindingsThreads();
