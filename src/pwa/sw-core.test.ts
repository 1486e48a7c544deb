import { describe, expect, it } from 'vitest';
import {
  cachedOnFirstUse,
  cacheKey,
  cacheName,
  checkPrecache,
  ISOLATION_HEADERS,
  offlineCoverage,
  staleCaches,
  withIsolation,
} from './sw-core.ts';

const scope = 'https://example.github.io/rlvr/';

describe('cacheKey', () => {
  it('maps navigations to the app page, with any query, to the cached index.html', () => {
    expect(cacheKey(`${scope}`, scope, true)).toBe(`${scope}index.html`);
    expect(cacheKey(`${scope}?task=sat&eval_every=0#x`, scope, true)).toBe(`${scope}index.html`);
    expect(cacheKey(`${scope}index.html?lesson=why-groups`, scope, true)).toBe(`${scope}index.html`);
  });
  it('keeps a file request as it is, without the fragment', () => {
    expect(cacheKey(`${scope}ort/ort-wasm-simd-threaded.asyncify.wasm`, scope, false)).toBe(
      `${scope}ort/ort-wasm-simd-threaded.asyncify.wasm`,
    );
    expect(cacheKey(`${scope}assets/a.js?v=1#f`, scope, false)).toBe(`${scope}assets/a.js?v=1`);
  });
  it('leaves what rlvr view serves beside the page (the runs) to the network: live data, never cached', () => {
    expect(cacheKey(`${scope}runs.json`, scope, false)).toBeNull();
    expect(cacheKey(`${scope}runs/trl-100/file/completions/completions_00002.parquet`, scope, false)).toBeNull();
    expect(cacheKey(`${scope}runs/trl-100/files.json`, scope, false)).toBeNull();
    expect(cacheKey(`${scope}search.json?run=trl-100&text=a`, scope, false)).toBeNull();
    // The app's own recordings are cached as before.
    expect(cacheKey(`${scope}records/sat-grpo.rlvr.gz`, scope, false)).toBe(`${scope}records/sat-grpo.rlvr.gz`);
  });
  it('leaves other origins and paths outside the app to the network', () => {
    expect(cacheKey('https://cdn.example.com/rlvr/x.js', scope, false)).toBeNull();
    expect(cacheKey('https://example.github.io/other/index.html', scope, true)).toBeNull();
    expect(cacheKey('https://example.github.io/rlvrx/', scope, true)).toBeNull();
  });
});

describe('withIsolation', () => {
  it('adds COOP/COEP/CORP and the CSP, keeping status, type and body', async () => {
    const res = withIsolation(
      new Response('hello', { status: 200, headers: { 'Content-Type': 'text/javascript', 'X-Keep': '1' } }),
      "default-src 'self'",
    );
    expect(res.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
    expect(res.headers.get('Cross-Origin-Embedder-Policy')).toBe('require-corp');
    expect(res.headers.get('Cross-Origin-Resource-Policy')).toBe('same-origin');
    expect(res.headers.get('Content-Security-Policy')).toBe("default-src 'self'");
    expect(res.headers.get('Content-Type')).toBe('text/javascript');
    expect(res.headers.get('X-Keep')).toBe('1');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
  });
  it('passes error statuses through with the headers, and sets no CSP when none is given', async () => {
    const res = withIsolation(new Response('missing', { status: 404, statusText: 'Not Found' }));
    expect(res.status).toBe(404);
    expect(res.statusText).toBe('Not Found');
    expect(res.headers.get('Content-Security-Policy')).toBeNull();
    for (const [k, v] of Object.entries(ISOLATION_HEADERS)) expect(res.headers.get(k)).toBe(v);
  });
  it('leaves a network error (status 0) alone', () => {
    const err = Response.error();
    expect(withIsolation(err)).toBe(err);
  });
});

describe('caches and the precache list', () => {
  it('names caches by version and finds only our stale ones', () => {
    expect(cacheName('abc123')).toBe('rlvr-abc123');
    expect(staleCaches(['rlvr-abc123', 'rlvr-old', 'someone-else', 'rlvr-'], 'abc123')).toEqual(['rlvr-old', 'rlvr-']);
  });
  it('accepts what the build writes and names what is wrong otherwise', () => {
    const ok = {
      version: '0123456789abcdef',
      files: ['index.html', 'ort/x.wasm'],
      later: [{ path: 'records/a.rlvr.gz', bytes: 3 }],
    };
    expect(checkPrecache(ok)).toEqual(ok);
    expect(checkPrecache({ version: '0123456789abcdef', files: ['index.html'] }).later).toEqual([]);
    expect(() => checkPrecache({ ...ok, later: [{ path: '../x', bytes: 1 }] })).toThrow(/"later" must be/);
    expect(() => checkPrecache({ ...ok, later: [{ path: 'x', bytes: -1 }] })).toThrow(/"later" must be/);
    expect(() => checkPrecache(null)).toThrow(/"version" must be a hex content hash/);
    expect(() => checkPrecache({ version: 'XYZ', files: [] })).toThrow(/"version"/);
    expect(() => checkPrecache({ version: '0123456789abcdef', files: ['/etc/passwd'] })).toThrow(
      /"files" must be relative paths/,
    );
    expect(() => checkPrecache({ version: '0123456789abcdef', files: ['a/../../b'] })).toThrow(/"files"/);
  });
});

describe('what is cached later, and how much is kept', () => {
  const p = checkPrecache({
    version: '0123456789abcdef',
    files: ['index.html'],
    later: [
      { path: 'records/a.rlvr.gz', bytes: 300 },
      { path: 'checkpoints/x/model.safetensors', bytes: 700 },
    ],
  });
  it("caches on first use only the build's later files", () => {
    expect(cachedOnFirstUse(p, 'records/a.rlvr.gz')).toBe(true);
    expect(cachedOnFirstUse(p, 'index.html')).toBe(false);
    expect(cachedOnFirstUse(p, 'runs.json')).toBe(false);
  });
  it('counts the kept bytes and lists what is missing', () => {
    expect(offlineCoverage(p, new Set(['index.html']))).toEqual({ cachedBytes: 0, totalBytes: 1000, missing: p.later });
    expect(offlineCoverage(p, new Set(['records/a.rlvr.gz']))).toEqual({
      cachedBytes: 300,
      totalBytes: 1000,
      missing: [p.later[1]],
    });
    expect(offlineCoverage(p, new Set(p.later.map((f) => f.path))).missing).toEqual([]);
  });
});
