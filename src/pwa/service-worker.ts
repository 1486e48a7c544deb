/// <reference lib="webworker" />
/**
 * The app's service worker, built into `sw.js` at the app's base by scripts/vite-deploy.ts (a
 * classic script: every browser runs those; the build bundles sw-core.ts in).
 *
 * Two jobs:
 * - Cross-origin isolation on hosts that send no headers (GitHub Pages, `python3 -m http.server`):
 *   every same-origin response the page and its workers get passes through here and gains
 *   COOP/COEP, so after one reload the page is isolated and ONNX Runtime runs several WASM threads.
 * - Offline: on install it caches every file of the build (app, ONNX Runtime's .wasm, the shipped
 *   checkpoints) under the build's content hash, and answers from that cache first.
 */
import { cacheKey, cacheName, checkPrecache, staleCaches, withIsolation } from './sw-core.ts';

/** Injected by the build: { version, files }. */
declare const __RLVR_PRECACHE__: unknown;
/** Injected by the build: the CSP of vite.config.ts. */
declare const __RLVR_CSP__: string;

const sw = self as unknown as ServiceWorkerGlobalScope;
const precache = checkPrecache(__RLVR_PRECACHE__);
const CACHE = cacheName(precache.version);
/** The app's base folder: sw.js sits at its root, and the precache paths are relative to it. */
const base = new URL('./', sw.location.href).href;

sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // 'no-cache' revalidates with the server, so a file the HTTP cache kept from the previous
      // deploy is not stored under this deploy's version.
      await cache.addAll(precache.files.map((f) => new Request(new URL(f, base).href, { cache: 'no-cache' })));
      // First install: take over at once, so the page's single reload makes it isolated. An update
      // waits until no tab runs the old version (whose lazily loaded files live in the old cache),
      // or until the page asks for it (the status bar's "Reload to update").
      if (!sw.registration.active) await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of staleCaches(await caches.keys(), precache.version)) await caches.delete(name);
    })(),
  );
});

sw.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === 'skip-waiting') void sw.skipWaiting();
});

sw.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  // Chromium issues these from DevTools; fetching them from a worker throws.
  if (req.cache === 'only-if-cached' && req.mode !== 'same-origin') return;
  const key = cacheKey(req.url, base, req.mode === 'navigate');
  if (key === null) return; // another origin or outside the app: the browser's own handling
  event.respondWith(answer(req, key));
});

async function answer(req: Request, key: string): Promise<Response> {
  const hit = await (await caches.open(CACHE)).match(key);
  if (hit) return withIsolation(hit, __RLVR_CSP__);
  try {
    return withIsolation(await fetch(req), __RLVR_CSP__);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return new Response(`${req.url} is not in the offline cache and the network failed (${why})`, {
      status: 503,
      statusText: 'Offline',
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
  }
}
