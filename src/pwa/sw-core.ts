/**
 * The pure parts of the service worker (src/pwa/service-worker.ts): which headers it adds, which
 * cache it uses, which cached file answers a request. No service-worker globals, so the unit test
 * runs them in Node.
 */

/**
 * What a static host such as GitHub Pages cannot send: cross-origin isolation, without which there
 * is no SharedArrayBuffer and ONNX Runtime's WASM EP runs one thread. `require-corp` is enough
 * because the app loads nothing from other origins.
 */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Every cache this app owns starts with this; the rest is the build's version. */
export const CACHE_PREFIX = 'rlvr-';

export function cacheName(version: string): string {
  return `${CACHE_PREFIX}${version}`;
}

/** Caches left by earlier deploys (any other version of ours; never another app's). */
export function staleCaches(names: readonly string[], version: string): string[] {
  return names.filter((n) => n.startsWith(CACHE_PREFIX) && n !== cacheName(version));
}

/** A build file cached on first use (or all at once, on request), with its size for the page to state. */
export interface LaterFile {
  path: string;
  bytes: number;
}

/** The precache list the build writes into the service worker. */
export interface Precache {
  /** Content hash over every file and its path: a new deploy gets a new cache. */
  version: string;
  /**
   * Cached on install, before anyone asks: the app shell, the ONNX Runtime build and the default
   * run's checkpoint. Paths relative to the service worker's folder (the app's base), e.g. `ort/x.wasm`.
   */
  files: string[];
  /** The rest of the build (recordings, other checkpoints): cached when first fetched, or on "Keep everything". */
  later: LaterFile[];
}

const relativeInside = (f: unknown): f is string =>
  typeof f === 'string' && f.length > 0 && !f.startsWith('/') && !f.includes('..');

/** Checks the list the build injected; a clear message when it is not what the build writes. */
export function checkPrecache(p: unknown): Precache {
  const o = p as Partial<Precache> | null;
  if (!o || typeof o.version !== 'string' || !/^[0-9a-f]{8,64}$/.test(o.version))
    throw new Error('precache list: "version" must be a hex content hash');
  if (!Array.isArray(o.files) || !o.files.every(relativeInside)) {
    throw new Error('precache list: "files" must be relative paths inside the app folder');
  }
  const later = o.later ?? [];
  if (
    !Array.isArray(later) ||
    !later.every((f) => relativeInside(f?.path) && Number.isFinite(f.bytes) && f.bytes >= 0)
  ) {
    throw new Error('precache list: "later" must be {path, bytes} with relative paths inside the app folder');
  }
  return { version: o.version, files: o.files, later };
}

/** What the service worker answers on a page's MessagePort (src/pwa/register.ts asks). */
export type OfflineReply =
  | { type: 'coverage'; cachedBytes: number; totalBytes: number }
  | { type: 'kept'; cachedBytes: number; totalBytes: number }
  | { type: 'failed'; message: string };

/** Whether a path (relative to the app's base, no query) is a file of this build that is cached on first use. */
export function cachedOnFirstUse(precache: Precache, rel: string): boolean {
  return precache.later.some((f) => f.path === rel);
}

/** How much of the build the cache holds, from the paths it holds (relative to the app's base). */
export function offlineCoverage(
  precache: Precache,
  cached: ReadonlySet<string>,
): { cachedBytes: number; totalBytes: number; missing: LaterFile[] } {
  const missing = precache.later.filter((f) => !cached.has(f.path));
  const totalBytes = precache.later.reduce((a, f) => a + f.bytes, 0);
  return { cachedBytes: totalBytes - missing.reduce((a, f) => a + f.bytes, 0), totalBytes, missing };
}

/**
 * The URL to look up in the cache for a request, or null to leave the request to the network.
 * `scope` is the app's base URL (the service worker's folder, ending in '/'). Navigations to the
 * app's page, with any query (the run config lives in the URL), map to the cached `index.html`.
 * What `rlvr view` serves beside the page (`runs.json`, `runs/<name>/…`, `search.json`:
 * src/node/view-server.ts) is live data, never cached, and goes straight to the network: a search reads
 * thousands of step files, and each would otherwise wait on a cache lookup and a copy through the worker;
 * a server search's answer streams its progress, which a copy through the worker would hold back.
 */
export function cacheKey(requestUrl: string, scope: string, navigate: boolean): string | null {
  const url = new URL(requestUrl);
  const base = new URL(scope);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  const rel = url.pathname.slice(base.pathname.length);
  if (!navigate && (rel === 'runs.json' || rel === 'search.json' || rel.startsWith('runs/'))) return null;
  if (navigate && rel === '') return new URL('index.html', base).href;
  url.hash = '';
  if (navigate) url.search = '';
  return url.href;
}

/**
 * The response with the isolation headers added (and the CSP, when given: a static host cannot send
 * it, and a <meta> covers the page only, not its workers). Opaque and error responses stay as they
 * are: their headers cannot be read, and they carry nothing the page runs.
 */
export function withIsolation(res: Response, csp?: string): Response {
  if (res.type === 'opaque' || res.type === 'opaqueredirect' || res.status === 0) return res;
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries(ISOLATION_HEADERS)) headers.set(k, v);
  if (csp) headers.set('Content-Security-Policy', csp);
  // 204/304 must have no body; everything else streams through unchanged.
  const body = res.status === 204 || res.status === 304 ? null : res.body;
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}
