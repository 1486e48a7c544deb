/**
 * Page side of the service worker (src/pwa/service-worker.ts): registers it, reloads the page once
 * when that is what makes it cross-origin isolated, and reports what happened, so the status bar
 * can say why training runs on one WASM thread when it does. No React here: the caller passes a
 * function that receives each new state.
 */

import type { OfflineReply } from './sw-core.ts';

export type ServiceWorkerPhase =
  /** Dev server: it sends COOP/COEP itself; no worker, no offline cache. */
  | 'dev'
  /** This browser (or this context: plain http on a non-local host, a private window) has none. */
  | 'unsupported'
  | 'registering'
  /** Active and controlling the page; the app's files are cached. */
  | 'active'
  | 'failed';

export interface OfflineState {
  phase: ServiceWorkerPhase;
  /** `crossOriginIsolated` of this page: several WASM threads when true, one when false. */
  isolated: boolean;
  /** Why the page is not isolated, or what went wrong; '' when all is well. */
  note: string;
  /** A newer deploy is cached and waits for this version's tabs to close (or for `applyUpdate`). */
  updateReady: boolean;
}

/**
 * Set before the one reload; cleared once the page is isolated. Stops a reload loop in browsers that ignore the
 * worker's headers.
 */
const RELOAD_KEY = 'rlvr.coiReload';

function isolatedNow(): boolean {
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
}

function session(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage blocked
  }
}

let waiting: ServiceWorker | null = null;

/** Activates the waiting newer version and reloads into it (the status bar's "Reload to update"). */
export function applyUpdate(): void {
  if (!waiting) return;
  navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
  waiting.postMessage({ type: 'skip-waiting' });
}

/**
 * Registers `scriptUrl` (sw.js at the app's base) and calls `report` with each new state. Resolves
 * with the last state (or never, when it reloads the page).
 */
export async function registerServiceWorker(
  scriptUrl: string,
  report: (s: OfflineState) => void,
): Promise<OfflineState> {
  let state: OfflineState = { phase: 'registering', isolated: isolatedNow(), note: '', updateReady: false };
  const set = (patch: Partial<OfflineState>) => {
    state = { ...state, ...patch };
    report(state);
    return state;
  };
  const container = (globalThis.navigator as Navigator | undefined)?.serviceWorker;
  if (!container) {
    return set({
      phase: 'unsupported',
      note:
        'this browser offers no service workers here (they need https or localhost, and are off in some ' +
        'private windows), so neither the COOP/COEP headers nor the offline cache can be added',
    });
  }
  set({
    note: state.isolated
      ? ''
      : 'the service worker is caching the app for offline use; the page reloads once when it is done',
  });
  let reg: ServiceWorkerRegistration | undefined;
  try {
    reg = await container.register(scriptUrl);
  } catch (e) {
    return set({
      phase: 'failed',
      note: `the service worker could not be registered (${e instanceof Error ? e.message : String(e)})`,
    });
  }
  // Some blockers (browser automation, extensions) resolve with nothing instead of rejecting.
  if (!reg) return set({ phase: 'failed', note: 'the browser refused to register the service worker' });
  const r = reg;
  const watch = (w: ServiceWorker | null) => {
    if (!w) return;
    const check = () => {
      // "installed" with a controller present: a newer deploy waits behind the running one.
      if (w.state === 'installed' && container.controller) {
        waiting = w;
        set({ updateReady: true });
      }
    };
    w.addEventListener('statechange', check);
    check();
  };
  watch(r.waiting);
  r.addEventListener('updatefound', () => watch(r.installing));

  // A first install that fails (the network went away mid-download) leaves `ready` pending for
  // good; the page must hear that no reload is coming (a press waits for it: src/ui/state/pending-press.ts).
  const installing = r.installing;
  const failedInstall = new Promise<'failed'>((ok) => {
    if (!installing || container.controller) return;
    installing.addEventListener('statechange', () => {
      if (installing.state === 'redundant' && !r.active) ok('failed');
    });
  });
  if ((await Promise.race([container.ready.then(() => 'ready' as const), failedInstall])) === 'failed') {
    return set({
      phase: 'failed',
      note:
        'the service worker could not install (a file of the app failed to download), so the page is not ' +
        'isolated and not cached for offline use',
    });
  }
  const store = session();
  if (isolatedNow()) {
    store?.removeItem(RELOAD_KEY);
    return set({ phase: 'active', isolated: true, note: '' });
  }
  if (!container.controller && store && !store.getItem(RELOAD_KEY)) {
    // The worker is active but did not serve this page: one reload goes through it and gets the headers.
    store.setItem(RELOAD_KEY, '1');
    location.reload();
    return new Promise<OfflineState>(() => undefined);
  }
  return set({
    phase: 'active',
    note: container.controller
      ? 'the service worker serves this page, but the browser did not grant cross-origin isolation'
      : 'the service worker is installed but does not control this page (a forced reload bypasses it): reload the page',
  });
}

/**
 * Asks the service worker that controls this page (`coverage` or `keep-everything`, see
 * src/pwa/service-worker.ts); every reply goes to `onReply`, and the promise resolves with the last
 * one: the coverage for a question, `kept` or `failed` for keeping. Null without a controlling worker.
 */
export function askServiceWorker(
  type: 'coverage' | 'keep-everything',
  onReply: (m: OfflineReply) => void = () => undefined,
): Promise<OfflineReply | null> {
  const controller = (globalThis.navigator as Navigator | undefined)?.serviceWorker?.controller;
  if (!controller) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (e: MessageEvent<OfflineReply>) => {
      onReply(e.data);
      if (type === 'coverage' || e.data.type !== 'coverage') {
        channel.port1.close();
        resolve(e.data);
      }
    };
    controller.postMessage({ type }, [channel.port2]);
  });
}
