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
import { type Finding, type FindingsOptions, type FindingsResult, judgeRun } from '../../runs/findings/index.ts';
import { DEFAULT_SEARCH_LIMIT } from '../../runs/opened-run.ts';
import { measureShared, searchShared, type StepReader } from '../../runs/step-shares.ts';
import { servedSearch } from './served-search.ts';
import type { RunHandle } from './viewer-state.ts';
import { HandleDisposed } from './worker-handle.ts';
import { newReaderWorker } from './reader-worker.ts';

export interface RunSource {
  /** The folder's name, or the run's name on the server (for messages). */
  readonly label: string;
  /** Every run under the root, and what was seen but not taken. */
  detect(): Promise<{ runs: FoundRun[]; problems: RunProblem[] }>;
  /** `firstStep`: the step shown first, read by the worker as soon as the index is (workers/run-reader-protocol.ts). */
  open(found: FoundRun, firstStep?: number): Promise<RunHandle>;
  /**
   * Nothing more is opened from it: its reader worker ends now if no run of it is open, else with the last one's
   * dispose(). A second call does nothing.
   */
  dispose(): void;
}

/** A run `rlvr view` lists in runs.json. */
export interface ServedRun {
  name: string;
  format: RunFormat;
  steps: number;
  /** What its readers could not read, each naming the file (src/node/run-catalog.ts); [] when nothing. */
  errors?: string[];
}

/** A reader worker's opened run, as a reader of shares of its steps (src/runs/step-shares.ts). */
const stepReader = (api: Comlink.Remote<RunReaderApi>, id: number): StepReader => ({
  async search(steps, query, { limit, signal, histogram, findingRows }) {
    const searchId = await api.startSearch(id, query, { limit, steps, histogram, findingRows });
    const cancel = () => void api.cancelSearch(searchId);
    if (signal?.aborted) cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await api.searchResult(searchId);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  },
  measure: (steps) => api.measureSteps(id, steps),
});

/**
 * How often a shared search's or findings' progress goes on at most: each report is a redraw (at 100 ms the
 * page spent about 3 s of CPU redrawing during a 26 s TRL search, CPU the readers lacked).
 */
const PROGRESS_MS = 250;

/** `report`, passed on at most every PROGRESS_MS, the last one (every step done) always. */
function throttled<P extends { done: number; total: number }>(report?: (p: P) => void): ((p: P) => void) | undefined {
  if (!report) return undefined;
  let last = 0;
  return (p) => {
    const now = performance.now();
    if (p.done < p.total && now - last < PROGRESS_MS) return;
    last = now;
    report(p);
  };
}

/** How long the helper readers are kept after a search or findings, for the next one. */
const HELPERS_IDLE_MS = 60_000;

/**
 * The readers a folder's search and findings are shared over: the source's own and, beside it, one more
 * reader worker per further core, each with the run opened (started at the first search or findings, ended
 * HELPERS_IDLE_MS after the last). One reader searched a 1 GB folder in 27–34 s (docs/viewer.md).
 */
function sharedReaders(spec: RunFilesSpec, found: FoundRun, own: StepReader) {
  let helpers: { workers: Worker[]; readers: Promise<StepReader[]> } | null = null;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let using = 0;
  const end = () => {
    clearTimeout(idle);
    for (const w of helpers?.workers ?? []) w.terminate();
    helpers = null;
  };
  const start = () => {
    const count = Math.max(0, Math.min(15, (navigator.hardwareConcurrency || 1) - 1));
    const workers = Array.from({ length: count }, newReaderWorker);
    const readers = Promise.all(
      workers.map(async (w) => {
        const api = Comlink.wrap<RunReaderApi>(w);
        return stepReader(api, (await api.openRun(spec, found)).id);
      }),
    );
    return { workers, readers };
  };
  return {
    /** Runs `work` over the readers; the helpers are kept until it and any other are done, then a while more. */
    async use<T>(work: (readers: StepReader[]) => Promise<T>): Promise<T> {
      clearTimeout(idle);
      using++;
      try {
        helpers ??= start();
        const extra = await helpers.readers.catch(() => {
          end(); // a helper that cannot open the run: this one searches alone
          return [];
        });
        return await work([own, ...extra]);
      } finally {
        if (--using === 0 && helpers) idle = setTimeout(end, HELPERS_IDLE_MS);
      }
    },
    /** The run's steps changed (a refresh): the helpers, opened before, are ended and opened again when asked. */
    end,
  };
}

type Search = OpenedRun['search'];
type Findings = NonNullable<RunHandle['findings']>;

/**
 * One reader worker, held by its source until the source is disposed and by each run of it open in the page: it
 * ends when the last hold is let go.
 */
class ReaderWorker {
  private readonly worker = newReaderWorker();
  readonly api = Comlink.wrap<RunReaderApi>(this.worker);
  private holds = 1;

  /** Opens one run in the worker; its handle holds the worker until disposed. */
  async openRun(spec: RunFilesSpec, found: FoundRun, firstStep?: number): Promise<{ id: number; index: RunIndex }> {
    const opened = await this.api.openRun(spec, found, firstStep);
    this.holds++;
    return opened;
  }

  /** A hold let go (a run's, `id`, which is closed in the worker): the worker ends with the last one. */
  release(id?: number): void {
    if (--this.holds > 0) {
      if (id !== undefined) void this.api.closeRun(id).catch(() => undefined);
    } else this.worker.terminate();
  }
}

/**
 * A run opened in a reader worker: the handle (worker-handle.ts) the viewer keeps by the run's key
 * (viewer-handles.ts). dispose() ends its helper readers and frees it in the worker, which ends with the
 * last run of its folder; every call after it is refused.
 */
class ReaderRun implements RunHandle {
  private ended = false;
  private readonly shared: ReturnType<typeof sharedReaders>;
  readonly search: Search;
  readonly findings: Findings;

  constructor(
    private readonly reader: ReaderWorker,
    private readonly id: number,
    public index: RunIndex,
    spec: RunFilesSpec,
    found: FoundRun,
    search?: Search,
    findings?: Findings,
  ) {
    this.shared = sharedReaders(spec, found, stepReader(reader.api, id));
    const own = search ?? ((query, options) => this.searchHere(query, options));
    const find = findings ?? ((options) => this.findingsHere(options));
    this.search = async (query, options) => {
      this.live();
      return own(query, options);
    };
    this.findings = async (options) => {
      this.live();
      return find(options);
    };
  }

  get disposed(): boolean {
    return this.ended;
  }

  /** Refuses a call after dispose(). */
  private live(): void {
    if (this.ended) throw new HandleDisposed(`the run ${this.index.name}`);
  }

  async readStep(step: number) {
    this.live();
    return this.reader.api.readStep(this.id, step);
  }

  async refresh() {
    this.live();
    this.index = await this.reader.api.refresh(this.id);
    this.shared.end();
    return this.index;
  }

  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.shared.end();
    this.reader.release(this.id);
  }

  private searchHere(query: RunQuery, options: RunSearchOptions = {}) {
    return this.shared.use((readers) =>
      searchShared(options.steps ?? this.index.steps, query, readers, {
        limit: options.limit ?? DEFAULT_SEARCH_LIMIT,
        histogram: options.histogram,
        findingRows: options.findingRows,
        signal: options.signal,
        onProgress: throttled(options.onProgress),
      }),
    );
  }

  private findingsHere(options: FindingsOptions = {}): Promise<FindingsResult> {
    return this.shared.use(async (readers) => {
      const { measures, problems, cancelled } = await measureShared(this.index.steps, readers, {
        signal: options.signal,
        onProgress: throttled(options.onProgress),
      });
      const list = cancelled ? [] : judgeRun(this.index, measures);
      return { findings: list, stepsRead: measures.length, cancelled, problems };
    });
  }
}

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
  const reader = new ReaderWorker();
  let disposed = false;
  return {
    label: spec.name,
    detect: async () => reader.api.detectRuns(spec, await listing?.catch(() => undefined)),
    async open(found, firstStep) {
      if (disposed) throw new HandleDisposed(`the source ${spec.name}`);
      const { id, index } = await reader.openRun(spec, found, firstStep);
      return new ReaderRun(reader, id, index, spec, found, search, findings);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      reader.release();
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
