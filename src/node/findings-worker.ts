/**
 * One thread of `rlvr view`'s findings (src/node/view-findings.ts): it opens the run as a search thread
 * does (src/node/search-worker.ts: the served folder's path checks, the server's listing), measures each
 * share of steps it is sent with every finding rule (src/runs/findings/find.ts measureSteps) and sends the
 * measures back; the server judges the run from all of them. A cancel drops the job's later shares.
 */
import { parentPort } from 'node:worker_threads';
import { openRun } from '../runs/detect.ts';
import { measureSteps, type StepMeasures } from '../runs/findings/find.ts';
import type { OpenedRun, RunProblem } from '../runs/types.ts';
import { ServedFolder } from './served-folder.ts';
import type { SearchRunSpec } from './search-worker.ts';

export type ToFindingsWorker =
  | { type: 'open'; job: number; run: SearchRunSpec }
  | { type: 'share'; job: number; id: number; steps: number[] }
  | { type: 'cancel'; job: number };
export type FromFindingsWorker =
  | { type: 'share'; job: number; id: number; measures: StepMeasures[]; problems: RunProblem[] }
  | { type: 'error'; job: number; message: string };

const port = parentPort!;
const post = (m: FromFindingsWorker) => port.postMessage(m);
const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
const jobs = new Map<number, { run: Promise<OpenedRun>; abort: AbortController }>();
let queue = Promise.resolve();

async function open(spec: SearchRunSpec): Promise<OpenedRun> {
  const folder = await ServedFolder.open(spec.root);
  const files = folder.runFiles(spec.segments, spec.name, spec.only, true);
  return openRun({ name: files.name, read: files.read, list: async () => spec.listing }, spec.found);
}

port.on('message', (m: ToFindingsWorker) => {
  if (m.type === 'open') {
    const run = open(m.run);
    run.catch(() => undefined); // seen by the first share
    jobs.set(m.job, { run, abort: new AbortController() });
  } else if (m.type === 'cancel') {
    jobs.get(m.job)?.abort.abort();
    jobs.delete(m.job);
  } else {
    const job = jobs.get(m.job);
    if (!job) return;
    queue = queue.then(async () => {
      if (job.abort.signal.aborted) return;
      try {
        const r = await measureSteps(await job.run, m.steps, { signal: job.abort.signal });
        if (!r.cancelled) post({ type: 'share', job: m.job, id: m.id, measures: r.measures, problems: r.problems });
      } catch (e) {
        post({ type: 'error', job: m.job, message: why(e) });
      }
    });
  }
});
