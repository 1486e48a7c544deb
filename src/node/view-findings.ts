/**
 * `rlvr view`'s findings near the files (`GET /runs/NAME/findings.json`, src/node/view-server.ts): the
 * run's steps are cut into shares of SHARE_STEPS and measured by worker threads, one per core
 * (src/node/findings-worker.ts), as a search's are (src/node/view-search.ts); the measures are put back in
 * step order and judged once here (src/runs/findings/find.ts judgeRun), so the findings are exactly those
 * of one pass over the run. The answer is kept per run until its files change (a live run's new steps).
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { findingToJson, judgeRun, type StepMeasures } from '../runs/findings/find.ts';
import type { RunIndex } from '../runs/types.ts';
import type { FromFindingsWorker, ToFindingsWorker } from './findings-worker.ts';
import type { CatalogRun } from './run-catalog.ts';
import { ThreadPool } from './thread-pool.ts';
import { SHARE_STEPS } from './view-search.ts';

/** How long idle threads are kept for the next run's findings. */
const IDLE_MS = 60_000;
const pool = new ThreadPool(new URL('./findings-worker.mjs', import.meta.url), IDLE_MS);
let nextJob = 1;

/** Ends the idle threads now (the server closing, a test's end). */
export function endFindingsThreads(): void {
  pool.end();
}

export type FindingJson = ReturnType<typeof findingToJson>;

/** Each run's findings, by the signature of its files when they were computed. */
const cache = new Map<string, { signature: string; findings: Promise<FindingJson[]> }>();

/** The run's findings, computed once per state of its files (concurrent callers share one computation). */
export function servedFindings(run: CatalogRun, index: RunIndex, threads?: number): Promise<FindingJson[]> {
  const key = `${run.folder.root}\u0000${run.segments.join('/')}\u0000${run.only ?? ''}`;
  const signature = run
    .listing()
    .map((f) => `${f.path}\u0000${f.size}`)
    .join('\n');
  const cached = cache.get(key);
  if (cached && cached.signature === signature) return cached.findings;
  const findings = measureServedRun(run, index.steps, threads).then((measures) =>
    judgeRun({ ...index, name: run.name }, measures).map(findingToJson),
  );
  cache.set(key, { signature, findings });
  findings.catch(() => cache.delete(key)); // a failure is tried again on the next request
  return findings;
}

/** Every step's measures, in step order, from shares measured by the worker threads. */
async function measureServedRun(run: CatalogRun, steps: number[], threads?: number): Promise<StepMeasures[]> {
  const shares: number[][] = [];
  for (let i = 0; i < steps.length; i += SHARE_STEPS) shares.push(steps.slice(i, i + SHARE_STEPS));
  if (!shares.length) return [];
  const job = nextJob++;
  const threadsUsed = pool.take(Math.max(1, Math.min(threads ?? availableParallelism(), shares.length)));
  const open: ToFindingsWorker = {
    type: 'open',
    job,
    run: {
      root: run.folder.root,
      segments: run.segments,
      only: run.only,
      name: run.found.name,
      found: run.found,
      listing: run.listing(),
    },
  };
  for (const w of threadsUsed) w.postMessage(open);
  const results: StepMeasures[][] = [];
  let next = 0;
  let answered = 0;
  return await new Promise<StepMeasures[]>((resolve, reject) => {
    const listeners = new Map<Worker, (m: FromFindingsWorker) => void>();
    const finish = (f: () => void) => {
      for (const w of threadsUsed) {
        w.off('message', listeners.get(w)!);
        w.off('error', onError);
        w.off('exit', onExit);
        w.postMessage({ type: 'cancel', job } satisfies ToFindingsWorker);
      }
      pool.done();
      f();
    };
    const onError = (e: Error) => finish(() => reject(e));
    const onExit = () => finish(() => reject(new Error('a findings thread ended before the run was measured')));
    const give = (w: Worker) => {
      if (next < shares.length) w.postMessage({ type: 'share', job, id: next, steps: shares[next++]! });
    };
    for (const w of threadsUsed) {
      const listener = (m: FromFindingsWorker) => {
        if (m.job !== job) return;
        if (m.type === 'error') return finish(() => reject(new Error(m.message)));
        results[m.id] = m.measures;
        if (++answered === shares.length) return finish(() => resolve(results.flat()));
        give(w);
      };
      listeners.set(w, listener);
      w.on('message', listener);
      w.on('error', onError);
      w.on('exit', onExit);
      give(w);
      give(w);
    }
  });
}
