/**
 * The service worker's state for the status bar (src/pwa/register.ts does the work): whether this
 * page is cross-origin isolated, and if not, why; whether a newer deploy is ready.
 */
import { create } from 'zustand';
import { askServiceWorker, registerServiceWorker, type OfflineState } from '../../pwa/register.ts';
import type { OfflineReply } from '../../pwa/sw-core.ts';
// A failed install settles at once; this limit covers a worker that never answers.
import { PRESS_WAIT_LIMIT_MS } from './pending-press.ts';
import { session } from './session.ts';

const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;

/** How much of the build beyond the first visit's files is kept for offline use. */
export interface KeptForOffline {
  state: 'unknown' | 'partial' | 'keeping' | 'kept' | 'failed';
  cachedBytes: number;
  totalBytes: number;
  /** Why keeping stopped, when it failed. */
  message: string;
}

export const useOffline = create<OfflineState & { kept: KeptForOffline }>()(() => ({
  phase: import.meta.env.PROD ? 'registering' : 'dev',
  isolated,
  note: isolated || import.meta.env.PROD ? '' : 'the dev server did not send COOP/COEP headers',
  updateReady: false,
  kept: { state: 'unknown', cachedBytes: 0, totalBytes: 0, message: '' },
}));

function showReply(m: OfflineReply | null, keeping: boolean): void {
  if (!m) return;
  const kept = useOffline.getState().kept;
  if (m.type === 'failed') {
    useOffline.setState({ kept: { ...kept, state: 'failed', message: m.message } });
    return;
  }
  const all = m.cachedBytes >= m.totalBytes;
  const state = all ? 'kept' : keeping && m.type === 'coverage' ? 'keeping' : 'partial';
  useOffline.setState({ kept: { state, cachedBytes: m.cachedBytes, totalBytes: m.totalBytes, message: '' } });
}

/** Asks the service worker how much of the build it keeps (the status bar's "Keep everything" states the rest). */
export async function checkKeptForOffline(): Promise<void> {
  showReply(await askServiceWorker('coverage'), false);
}

/** "Keep everything for offline use": downloads what the cache lacks, with progress. */
export async function keepEverythingForOffline(): Promise<void> {
  useOffline.setState({ kept: { ...useOffline.getState().kept, state: 'keeping', message: '' } });
  showReply(await askServiceWorker('keep-everything', (m) => showReply(m, true)), false);
}

// Whether (and when) the page stops reloading itself for isolation: session.isolationSettled(Now).

/**
 * Production builds register sw.js (at the app's base, beside index.html). Not in dev: the dev
 * server sends COOP/COEP itself, and a cache would serve stale modules.
 */
export function startOfflineSupport(): void {
  if (!import.meta.env.PROD) return;
  const url = new URL(`${import.meta.env.BASE_URL}sw.js`, document.baseURI).href;
  const registered = registerServiceWorker(url, (s) => useOffline.setState(s)).then(
    (s) => (s.phase === 'active' ? checkKeptForOffline() : undefined),
    () => undefined,
  );
  if (isolated) return; // the service worker reloads only a page that is not isolated yet
  // A worker that never activates (an install that fails offline) must not hold a press forever.
  session.isolationSettledNow = false;
  session.isolationSettled = Promise.race([
    registered,
    new Promise<void>((ok) => setTimeout(ok, PRESS_WAIT_LIMIT_MS)),
  ]).then(() => void (session.isolationSettledNow = true));
}

/**
 * Resolves once the page will not reload itself for isolation (isolated already, or the service
 * worker registered without needing a reload, or failed). Never resolves on a page that is about to
 * reload: pending-press.ts carries a press across that reload.
 */
export function isolationSettled(): Promise<void> {
  return session.isolationSettled;
}

export function isIsolationSettled(): boolean {
  return session.isolationSettledNow;
}
