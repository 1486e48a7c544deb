/**
 * Saved runs, kept in IndexedDB so a reload (or a crashed worker) resumes where it was: per run, the
 * worker's snapshot (weights, AdamW moments, counters, metrics) plus the setup form. Every run has its
 * own record, so two tabs never save over each other (tabs.ts says which run is whose).
 *
 * Layout of the one object store: `run:ID` holds a run's SavedRun, `meta:ID` a small RunMeta (listed
 * without reading any weights). `current` is the single record of earlier versions: it is moved to
 * its own `run:ID` the first time the saved runs are listed.
 */
import type { RunSnapshot } from '../../workers/protocol.ts';
import type { UrlSetup } from './url-state.ts';

const DB = 'rlvr-playground';
const STORE = 'runs';
const LEGACY_KEY = 'current';
const runKey = (id: string) => `run:${id}`;
const metaKey = (id: string) => `meta:${id}`;
/** Saved runs kept in this browser; beyond it the oldest not open in any tab are deleted (each holds a model's weights). */
export const MAX_SAVED_RUNS = 10;

export interface SavedRun {
  snapshot: RunSnapshot;
  setup: UrlSetup;
  /** experimentKey() of the setup's URL when it was saved. */
  experiment: string;
  /** The run's id (the key of its record); absent only in records of earlier versions. */
  runId?: string;
  /** The tab that last saved it (tabs.ts). */
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

function metaOf(run: SavedRun & { runId: string }): RunMeta {
  return { runId: run.runId, tabId: run.tabId ?? null, experiment: run.experiment, task: run.snapshot.config.task, step: run.snapshot.trainer.step, savedAt: run.snapshot.savedAt };
}

function open(): Promise<IDBDatabase> {
  return new Promise((ok, fail) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error ?? new Error('IndexedDB is unavailable'));
    req.onblocked = () => fail(new Error('IndexedDB is blocked by another tab'));
  });
}

/** One transaction on the store; `fn` issues its requests and returns what to resolve with once it commits. */
async function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => () => T): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((ok, fail) => {
      const t = db.transaction(STORE, mode);
      const result = fn(t.objectStore(STORE));
      t.oncomplete = () => ok(result());
      t.onerror = () => fail(t.error ?? new Error('IndexedDB transaction failed'));
      t.onabort = () => fail(t.error ?? new Error('IndexedDB transaction aborted (storage full?)'));
    });
  } finally {
    db.close();
  }
}

/** Saves (or replaces) one run's record and its listing, in one transaction. */
export function saveRun(run: SavedRun & { runId: string }): Promise<void> {
  return tx('readwrite', (s) => {
    s.put(run, runKey(run.runId));
    s.put(metaOf(run), metaKey(run.runId));
    return () => undefined;
  });
}

export function loadRun(runId: string): Promise<SavedRun | undefined> {
  return tx('readonly', (s) => {
    const r = s.get(runKey(runId));
    return () => r.result as SavedRun | undefined;
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
      const old = legacy.result as SavedRun | undefined;
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

/**
 * What a restored run says: the step it resumed at and, when the page had shown more steps than were
 * saved (a reload or a closed tab before the next save), exactly which steps were lost.
 */
export function restoredNote(step: number, savedAt: string, shown: number | null, copy = false): string {
  const when = new Date(savedAt);
  const at = Number.isNaN(when.getTime()) ? savedAt : when.toLocaleTimeString();
  let s = `Restored at step ${step} (saved ${at})${copy ? ": a copy of a run open in another tab, saved from now on as this tab's own" : ''}.`;
  if (shown !== null && shown > step) {
    const n = shown - step;
    const which = n === 1 ? `step ${step + 1}` : `steps ${step + 1}–${shown}`;
    s += ` ${n} step${n === 1 ? ' was' : 's were'} lost (${which}): the page went away before ${n === 1 ? 'it was' : 'they were'} saved. Training goes on from step ${step}.`;
  }
  return s;
}
