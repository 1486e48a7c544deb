/**
 * The current run, kept in IndexedDB so a reload (or a crashed worker) resumes where it was:
 * the worker's snapshot (weights, AdamW moments, counters, metrics) plus the setup form.
 */
import type { RunSnapshot } from '../../workers/protocol.ts';
import type { UrlSetup } from './url-state.ts';

const DB = 'rlvr-playground';
const STORE = 'runs';
const KEY = 'current';

export interface SavedRun {
  snapshot: RunSnapshot;
  setup: UrlSetup;
  /** experimentKey() of the setup's URL when it was saved. */
  experiment: string;
  /** The run's id; a tab that autosaved it remembers the id (sessionStorage) and restores it on reload without asking. */
  runId?: string;
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

async function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((ok, fail) => {
      const t = db.transaction(STORE, mode);
      const r = fn(t.objectStore(STORE));
      t.oncomplete = () => ok(r.result as T);
      t.onerror = () => fail(t.error ?? new Error('IndexedDB transaction failed'));
      t.onabort = () => fail(t.error ?? new Error('IndexedDB transaction aborted (storage full?)'));
    });
  } finally {
    db.close();
  }
}

export const saveRun = (run: SavedRun) => tx<IDBValidKey>('readwrite', (s) => s.put(run, KEY));
export const loadRun = () => tx<SavedRun | undefined>('readonly', (s) => s.get(KEY));
export const clearRun = () => tx<undefined>('readwrite', (s) => s.delete(KEY));

/**
 * Which tab a saved run belongs to. A tab remembers (sessionStorage survives a reload but not a new
 * tab) the id of the run it last autosaved: reloading your own tab restores your run even when the
 * address bar is newer than the autosave, while a link opened elsewhere that names a different
 * experiment asks first.
 */
const TAB_RUN_KEY = 'rlvr.tabRun';

export const newRunId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

export function tabOwns(id: string | undefined): boolean {
  try {
    return !!id && globalThis.sessionStorage?.getItem(TAB_RUN_KEY) === id;
  } catch {
    return false; // storage blocked: every saved run counts as another tab's
  }
}

export function markTabOwner(id: string): void {
  try {
    globalThis.sessionStorage?.setItem(TAB_RUN_KEY, id);
  } catch {
    /* not remembered: a reload will ask before restoring */
  }
}
