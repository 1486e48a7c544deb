/**
 * Where the viewer's runs come from, each behind the readers' contract (src/runs/types.ts): a folder
 * the person opened in the page, or a run `rlvr view` serves (GET runs.json, runs/<name>/files.json,
 * runs/<name>/file/<path>). Either way the reading happens in the run reader's worker
 * (workers/run-reader.worker.ts), one per source, so a huge or broken folder never holds the page or
 * touches the trainer worker; this module only turns that worker's calls back into OpenedRun objects.
 */
import * as Comlink from 'comlink';
import type {
  FoundRun,
  OpenedRun,
  RunFileEntry,
  RunFormat,
  RunIndex,
  RunProblem,
  RunQuery,
  RunSearchOptions,
} from '../../runs/types.ts';
import type { RunReaderApi, RunFilesSpec } from '../../../workers/run-reader-protocol.ts';
import { httpRunFiles } from '../../../workers/browser-run-files.ts';
import type { PickedFolder } from '../derive/folder-files.ts';
import type { Finding, FindingsOptions, FindingsResult } from '../../runs/findings/index.ts';
import { servedSearch } from './served-search.ts';
import type { RunHandle } from './viewer-state.ts';

export interface RunSource {
  /** The folder's name, or the run's name on the server (for messages). */
  readonly label: string;
  /** Every run under the root, and what was seen but not taken. */
  detect(): Promise<{ runs: FoundRun[]; problems: RunProblem[] }>;
  /** `firstStep`: the step shown first, read by the worker as soon as the index is (workers/run-reader-protocol.ts). */
  open(found: FoundRun, firstStep?: number): Promise<RunHandle>;
}

/** A run `rlvr view` lists in runs.json. */
export interface ServedRun {
  name: string;
  format: RunFormat;
  steps: number;
  /** What its readers could not read, each naming the file (src/node/run-catalog.ts); [] when nothing. */
  errors?: string[];
}

const startReader = () =>
  Comlink.wrap<RunReaderApi>(
    new Worker(new URL('../../../workers/run-reader.worker.ts', import.meta.url), {
      type: 'module',
      name: 'run reader',
    }),
  );

type Search = OpenedRun['search'];
type Findings = NonNullable<RunHandle['findings']>;

/**
 * Runs read in the worker; `search` and `findings`, where given, replace the worker's (a served run's, on the
 * server); `listing`, where given, is the root's files already asked for (the worker lists them itself if it fails).
 */
function workerSource(
  spec: RunFilesSpec,
  search?: Search,
  listing?: Promise<RunFileEntry[]>,
  findings?: Findings,
): RunSource {
  const api = startReader();
  return {
    label: spec.name,
    detect: async () => api.detectRuns(spec, await listing?.catch(() => undefined)),
    async open(found, firstStep) {
      const { id, index } = await api.openRun(spec, found, firstStep);
      const run: { index: RunIndex } & Omit<RunHandle, 'index'> = {
        index,
        readStep: (step) => api.readStep(id, step),
        search:
          search ??
          (async (query: RunQuery, options: RunSearchOptions = {}) => {
            const { signal, onProgress, limit, histogram, findingRows } = options;
            const searchId = await api.startSearch(
              id,
              query,
              { limit, histogram, findingRows },
              onProgress ? Comlink.proxy(onProgress) : undefined,
            );
            const cancel = () => void api.cancelSearch(searchId);
            if (signal?.aborted) cancel();
            signal?.addEventListener('abort', cancel, { once: true });
            try {
              return await api.searchResult(searchId);
            } finally {
              signal?.removeEventListener('abort', cancel);
            }
          }),
        async refresh() {
          run.index = await api.refresh(id);
          return run.index;
        },
        findings:
          findings ??
          (async (options: FindingsOptions = {}) => {
            const { signal, onProgress } = options;
            const findingsId = await api.startFindings(id, onProgress ? Comlink.proxy(onProgress) : undefined);
            const cancel = () => void api.cancelFindings(findingsId);
            if (signal?.aborted) cancel();
            signal?.addEventListener('abort', cancel, { once: true });
            try {
              return await api.findingsResult(findingsId);
            } finally {
              signal?.removeEventListener('abort', cancel);
            }
          }),
      };
      return run;
    },
  };
}

/** A folder picked or dropped: read offline, in the worker, from the File objects the browser gave. */
export function folderSource(folder: PickedFolder): RunSource {
  return workerSource({ kind: 'files', name: folder.name, files: folder.files });
}

const appUrl = (path: string) => new URL(path, document.baseURI).href;

/**
 * One run `rlvr view` serves, read over HTTP (with Range requests) in the worker; its search runs on the
 * server, near the files (served-search.ts).
 */
export function servedSource(name: string): RunSource {
  const base = appUrl(`runs/${encodeURIComponent(name)}/`);
  // The run's files.json is asked for now, while the worker starts (it would ask only once started: for a
  // link, about 0.4 s later), and beside runs.json, whose walk of the folder rlvr view then shares.
  const listing = httpRunFiles(name, base).list();
  listing.catch(() => undefined); // the worker lists again, and reports a failure
  return workerSource(
    { kind: 'http', name, base },
    (query, options) => servedSearch(document.baseURI, name, query, options),
    listing,
    (options) => servedFindings(base, options),
  );
}

/** A served run's findings, computed by `rlvr view` near the files (`GET /runs/NAME/findings.json`). */
async function servedFindings(base: string, options: FindingsOptions = {}): Promise<FindingsResult> {
  try {
    const res = await fetch(new URL('findings.json', base), { signal: options.signal, cache: 'no-store' });
    if (!res.ok) throw new Error((await res.text()).trim() || `the server answered ${res.status}`);
    const findings = (await res.json()) as Finding[];
    return { findings, stepsRead: 0, cancelled: false, problems: [] };
  } catch (e) {
    if (options.signal?.aborted) return { findings: [], stepsRead: 0, cancelled: true, problems: [] };
    throw e;
  }
}

/**
 * The runs `rlvr view` serves, or null when the page is not served by it.
 */
export async function listServedRuns(): Promise<ServedRun[] | null> {
  // Only `rlvr view` marks the page (src/node/view-server.ts VIEW_MARK): elsewhere runs.json is not asked for.
  if (!document.querySelector('meta[name="rlvr-view"]')) return null;
  let res: Response;
  try {
    res = await fetch(appUrl('runs.json'), { cache: 'no-store' });
  } catch {
    return null;
  }
  if (!res.ok || !/json/.test(res.headers.get('content-type') ?? '')) return null;
  const body: unknown = await res.json().catch(() => null);
  if (!Array.isArray(body)) return null;
  return body.filter((r): r is ServedRun => !!r && typeof r === 'object' && typeof (r as ServedRun).name === 'string');
}
