/// <reference lib="webworker" />
/**
 * The app's service worker, built into `sw.js` at the app's base by scripts/vite-deploy.ts (a
 * classic script: every browser runs those; the build bundles sw-core.ts in).
 *
 * Two jobs:
 * - Cross-origin isolation on hosts that send no headers (GitHub Pages, `python3 -m http.server`):
 *   every same-origin response the page and its workers get passes through here and gains
 *   COOP/COEP, so after one reload the page is isolated and ONNX Runtime runs several WASM threads.
 * - Offline: on install it caches the app shell, ONNX Runtime's .wasm and the first run's checkpoint
 *   under the build's content hash, and answers from that cache first. The rest of the build (the
 *   recordings, the other checkpoints) is cached when first fetched, or all at once when the page asks
 *   ("Keep everything for offline use": a `keep-everything` message), so a first visit stays light.
 */
import {
  cacheKey,
  cacheName,
  cachedOnFirstUse,
  checkPrecache,
  offlineCoverage,
  staleCaches,
  withIsolation,
  type OfflineReply,
} from './sw-core.ts';

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

/** The build's files the cache holds now, relative to the app's base. */
async function cachedPaths(): Promise<Set<string>> {
  const keys = await (await caches.open(CACHE)).keys();
  return new Set(
    keys
      .map((r) => r.url)
      .filter((u) => u.startsWith(base))
      .map((u) => u.slice(base.length)),
  );
}

/** Fetches every build file the cache lacks, reporting after each; stops at the first failure, naming it. */
async function keepEverything(reply: (m: OfflineReply) => void): Promise<void> {
  const cache = await caches.open(CACHE);
  const { missing, cachedBytes, totalBytes } = offlineCoverage(precache, await cachedPaths());
  let done = cachedBytes;
  reply({ type: 'coverage', cachedBytes: done, totalBytes });
  for (const f of missing) {
    const url = new URL(f.path, base).href;
    const res = await fetch(new Request(url, { cache: 'no-cache' })).catch(() => null);
    if (!res?.ok) {
      reply({
        type: 'failed',
        message: `${f.path} could not be downloaded (${res ? `HTTP ${res.status}` : 'no network'})`,
      });
      return;
    }
    await cache.put(url, res);
    done += f.bytes;
    reply({ type: 'coverage', cachedBytes: done, totalBytes });
  }
  reply({ type: 'kept', cachedBytes: done, totalBytes });
}

sw.addEventListener('message', (event) => {
  const type = (event.data as { type?: unknown } | null)?.type;
  if (type === 'skip-waiting') void sw.skipWaiting();
  const port = event.ports[0];
  if (!port) return;
  const reply = (m: OfflineReply) => port.postMessage(m);
  if (type === 'coverage') {
    event.waitUntil(
      cachedPaths().then((c) => {
        const { cachedBytes, totalBytes } = offlineCoverage(precache, c);
        reply({ type: 'coverage', cachedBytes, totalBytes });
      }),
    );
  }
  if (type === 'keep-everything') event.waitUntil(keepEverything(reply));
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
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  if (hit) return withIsolation(hit, __RLVR_CSP__);
  try {
    const res = await fetch(req);
    // A recording or checkpoint fetched once stays for offline use (whole files only: not a range).
    if (res.status === 200 && cachedOnFirstUse(precache, key.slice(base.length))) await cache.put(key, res.clone());
    return withIsolation(res, __RLVR_CSP__);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return new Response(`${req.url} is not in the offline cache and the network failed (${why})`, {
      status: 503,
      statusText: 'Offline',
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
  }
}
