/**
 * The service worker's state for the status bar (src/pwa/register.ts does the work): whether this
 * page is cross-origin isolated, and if not, why; whether a newer deploy is ready.
 */
import { create } from 'zustand';
import { registerServiceWorker, type OfflineState } from '../pwa/register.ts';

const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;

export const useOffline = create<OfflineState>()(() => ({
  phase: import.meta.env.PROD ? 'registering' : 'dev',
  isolated,
  note: isolated || import.meta.env.PROD ? '' : 'the dev server did not send COOP/COEP headers',
  updateReady: false,
}));

/**
 * Production builds register sw.js (at the app's base, beside index.html). Not in dev: the dev
 * server sends COOP/COEP itself, and a cache would serve stale modules.
 */
export function startOfflineSupport(): void {
  if (!import.meta.env.PROD) return;
  const url = new URL(`${import.meta.env.BASE_URL}sw.js`, document.baseURI).href;
  void registerServiceWorker(url, (s) => useOffline.setState(s));
}
