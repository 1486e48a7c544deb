/**
 * The saved runs' storage in IndexedDB, shared by the page (src/ui/state/persist.ts) and the trainer worker
 * (workers/run-saver.ts), which writes its own tab's run after its steps. It lives under workers/
 * because the page may import workers/ but the worker may not import the UI; the setup a record
 * carries is the page's (src/ui/derive/url-state.ts UrlSetup), opaque here.
 *
 * Layout of the one object store: `run:ID` holds a run's StoredRun, `meta:ID` a small RunMeta (listed
 * without reading any weights). `current` is the single record of earlier versions: it is moved to
 * its own `run:ID` the first time the saved runs are listed.
 */
import type { RunSnapshot } from './protocol.ts';

const DB = 'rlvr-playground';
const STORE = 'runs';
const LEGACY_KEY = 'current';
const runKey = (id: string) => `run:${id}`;
const metaKey = (id: string) => `meta:${id}`;
/**
 * Saved runs kept in this browser; beyond it the oldest not open in any tab are deleted (each holds a model's weights).
 */
export const MAX_SAVED_RUNS = 10;

export interface StoredRun<Setup = unknown> {
  snapshot: RunSnapshot;
  setup: Setup;
  /** experimentKey() of the setup's URL when it was saved. */
  experiment: string;
  /** The run's id (the key of its record); absent only in records of earlier versions. */
  runId?: string;
  /** The tab that last saved it (src/ui/state/tabs.ts). */
  tabId?: string;
}

/** What the saved-runs offer shows of a record, without its weights. */
export interface RunMeta {
  runId: string;
  tabId: string | null;
  experiment: string;
  task: string;
  step: number;
  savedAt: string;
}

export const newRunId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

export function metaOf(run: StoredRun & { runId: string }): RunMeta {
  return {
    runId: run.runId,
    tabId: run.tabId ?? null,
    experiment: run.experiment,
    task: run.snapshot.config.task,
    step: run.snapshot.trainer.step,
    savedAt: run.snapshot.savedAt,
  };
}

/**
 * One connection per page or worker, opened on first use and kept: opening the database for every
 * save took a large part of each save's time under load. It is dropped (and opened again on next use)
 * when it fails, closes, or another connection asks for a version change.
 */
let connection: Promise<IDBDatabase> | null = null;

function open(): Promise<IDBDatabase> {
  connection ??= new Promise<IDBDatabase>((ok, fail) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => {
      const db = req.result;
      const drop = () => {
        db.close();
        connection = null;
      };
      db.onversionchange = drop;
      db.onclose = () => (connection = null);
      ok(db);
    };
    req.onerror = () => fail(req.error ?? new Error('IndexedDB is unavailable'));
    req.onblocked = () => fail(new Error('IndexedDB is blocked by another tab'));
  });
  const p = connection;
  p.catch(() => {
    if (connection === p) connection = null;
  });
  return p;
}

/**
 * Opens the connection ahead of the first save (the worker does when the page names its record): in a
 * worker busy training, each step of opening waits for the step under way, so a first save that had
 * to open it landed several steps late.
 */
export function openStore(): Promise<void> {
  return open().then(() => undefined);
}

/** One transaction on the store; `fn` issues its requests and returns what to resolve with once it commits. */
async function tx<T>(
  mode: IDBTransactionMode,
  fn: (s: IDBObjectStore) => () => T,
  durability: IDBTransactionDurability = 'default',
): Promise<T> {
  const db = await open();
  let t: IDBTransaction;
  try {
    t = db.transaction(STORE, mode, { durability });
  } catch (e) {
    connection = null; // closed under us: the next call opens it again
    throw e;
  }
  return new Promise<T>((ok, fail) => {
    let result: () => T;
    try {
      result = fn(t.objectStore(STORE));
    } catch (e) {
      t.abort();
      fail(e);
      return;
    }
    t.oncomplete = () => ok(result());
    t.onerror = () => fail(t.error ?? new Error('IndexedDB transaction failed'));
    t.onabort = () => fail(t.error ?? new Error('IndexedDB transaction aborted (storage full?)'));
  });
}

/**
 * Saves (or replaces) one run's record and its listing, in one transaction. Resolves, once committed,
 * with how long the two `put` calls held the calling thread (ms): they copy the record (its weights
 * included) synchronously, which in the worker is time the training loop waits. `onQueued` is called
 * as soon as the puts are issued and the commit asked for: transactions on the store commit in the
 * order they were made, so a later save may be issued before this one has committed. The commit is
 * 'relaxed' (no flush to disk before it completes): the record survives a reload, a closed tab and a
 * crashed worker at once, and a save is made after every step anyway, while a flushed commit took
 * about half a second per save on a busy machine, so the last committed save lagged several steps.
 */
export function saveRun(
  run: StoredRun & { runId: string },
  onQueued?: (putMs: number) => void,
): Promise<{ putMs: number }> {
  return tx(
    'readwrite',
    (s) => {
      const t0 = performance.now();
      s.put(run, runKey(run.runId));
      s.put(metaOf(run), metaKey(run.runId));
      // Commit now: left to auto-commit, the transaction would wait until this thread is free to see
      // the puts succeed, which in the worker is after the training step under way.
      s.transaction.commit?.();
      const putMs = performance.now() - t0;
      onQueued?.(putMs);
      return () => ({ putMs });
    },
    'relaxed',
  );
}

export function loadRun<Setup = unknown>(runId: string): Promise<StoredRun<Setup> | undefined> {
  return tx('readonly', (s) => {
    const r = s.get(runKey(runId));
    return () => r.result as StoredRun<Setup> | undefined;
  });
}

export function deleteRun(runId: string): Promise<void> {
  return tx('readwrite', (s) => {
    s.delete(runKey(runId));
    s.delete(metaKey(runId));
    return () => undefined;
  });
}

/**
 * Every saved run, the most recently saved first. A single-slot autosave of an earlier version is
 * first moved to a record of its own (keeping its run id, so the tab that saved it still owns it).
 */
export async function listRuns(): Promise<RunMeta[]> {
  await tx('readwrite', (s) => {
    const legacy = s.get(LEGACY_KEY);
    legacy.onsuccess = () => {
      const old = legacy.result as StoredRun | undefined;
      if (!old) return;
      const run = { ...old, runId: old.runId ?? newRunId() };
      // A tab still running an earlier version may have saved it again: the later save wins.
      const existing = s.get(metaKey(run.runId));
      existing.onsuccess = () => {
        const m = existing.result as RunMeta | undefined;
        if (!m || m.savedAt < run.snapshot.savedAt) {
          s.put(run, runKey(run.runId));
          s.put(metaOf(run), metaKey(run.runId));
        }
        s.delete(LEGACY_KEY);
      };
    };
    return () => undefined;
  });
  const metas = await tx('readonly', (s) => {
    const r = s.getAll(IDBKeyRange.bound('meta:', 'meta:\uffff'));
    return () => r.result as RunMeta[];
  });
  return newestFirst(metas);
}

export function newestFirst(metas: readonly RunMeta[]): RunMeta[] {
  return [...metas].sort((a, b) => (a.savedAt < b.savedAt ? 1 : a.savedAt > b.savedAt ? -1 : 0));
}

/**
 * The records to delete so that at most `max` remain: the oldest first, never one in `keep` (runs
 * open in a tab, this tab's own).
 */
export function runsToPrune(metas: readonly RunMeta[], keep: ReadonlySet<string>, max = MAX_SAVED_RUNS): string[] {
  const sorted = newestFirst(metas);
  let excess = sorted.length - max;
  const out: string[] = [];
  for (let i = sorted.length - 1; i >= 0 && excess > 0; i--) {
    if (keep.has(sorted[i]!.runId)) continue;
    out.push(sorted[i]!.runId);
    excess--;
  }
  return out;
}
