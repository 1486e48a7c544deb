// The static deploy (docs/deploy.md): dist/ served by a plain static server that sends no
// COOP/COEP or CSP headers (`python3 -m http.server`, as GitHub Pages would serve it), under a
// sub-path (/rlvr/, as GitHub Pages serves a project). The app's service worker
// (src/pwa/service-worker.ts) must make the page cross-origin isolated after one reload, cache the
// whole build, and keep the app training with the network gone.
// Without the service worker, and a first visit whose Start is pressed before the isolation reload:
// offline-first-visit.spec.mjs.
//
// Needs dist/ (`npx vite build`); run with `npx playwright test e2e/offline.spec.mjs`. Self-contained:
// it starts and stops its own python3 server and ignores playwright.config.ts's webServer.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { importTs, note, openPage, screenshot, withPageDiagnostics } from './lib.mjs';
import { browser, DIST, offlineHooks, QUERY, server, stepOnce, SUB, until, watchFailures } from './offline-lib.mjs';

offlineHooks(test);

test('the static server sends no isolation headers (the premise)', async () => {
  const res = await fetch(`${server.origin}/${SUB}/`);
  assert.equal(res.status, 200);
  for (const h of ['cross-origin-opener-policy', 'cross-origin-embedder-policy', 'content-security-policy'])
    assert.equal(res.headers.get(h), null, `${h} must be absent`);
  assert.match(await res.text(), /<link rel="manifest" href="[^"]*manifest\.webmanifest"/);
});

test(
  'under /rlvr/ on a plain static server: isolated ' +
    'after one reload, 3 steps, then offline: reload ' +
    'and 3 more',
  async ({}, testInfo) => {
    test.setTimeout(600_000);
    const { listPrecache } = await importTs('scripts/vite-deploy.ts');
    const precache = listPrecache(DIST);
    const p = await openPage(browser, `/${SUB}/${QUERY}`, { base: server.origin, serviceWorkers: 'allow' });
    const { failures, cancelledByReload, reloaded, reloading } = watchFailures(p.context);
    const { page, context } = p;
    try {
      await withPageDiagnostics(
        testInfo,
        p,
        'offline-static',
        async () => {
          // The worker installs (caching the whole build), the page reloads once and comes back isolated.
          await until(
            page,
            () =>
              globalThis.crossOriginIsolated === true && navigator.serviceWorker.controller !== null && !!window.__rlvr,
            undefined,
            { timeout: 120_000, what: 'cross-origin isolation through the service worker' },
          );
          reloaded();
          const nav = await page.evaluate(() => ({
            type: performance.getEntriesByType('navigation')[0]?.type,
            url: location.href,
          }));
          note(
            testInfo,
            `isolated at ${nav.url} after a ${nav.type}` +
              (cancelledByReload.length
                ? `; the reload cancelled ${cancelledByReload.length} request(s) of the first load`
                : ''),
          );
          assert.equal(nav.type, 'reload', 'the page reloads itself once to come under the service worker');
          assert.equal(new URL(nav.url).pathname, `/${SUB}/`);
          assert.equal(await page.$('[data-testid="isolation-note"]'), null, 'no single-thread note once isolated');

          // The first visit cached the shell, ONNX Runtime (its WASM build) and the first run's checkpoint under
          // this build's version; anything else in the cache is a later file the page has already fetched.
          const cachedNow = async () =>
            page.evaluate(async () => {
              const names = (await caches.keys()).filter((n) => n.startsWith('rlvr-'));
              const out = {};
              for (const n of names) out[n] = (await (await caches.open(n)).keys()).map((r) => new URL(r.url).pathname);
              return out;
            });
          const cached = await cachedNow();
          const inCache = (f) => cached[`rlvr-${precache.version}`].includes(`/${SUB}/${f}`);
          assert.deepEqual(Object.keys(cached), [`rlvr-${precache.version}`]);
          assert.deepEqual(
            precache.files.filter((f) => !inCache(f)),
            [],
            'every first-visit file is cached',
          );
          const later = new Set(precache.later.map((f) => `/${SUB}/${f.path}`));
          const shell = new Set(precache.files.map((f) => `/${SUB}/${f}`));
          assert.deepEqual(
            cached[`rlvr-${precache.version}`].filter((u) => !shell.has(u) && !later.has(u)),
            [],
            'nothing outside the build is cached',
          );
          // ONNX Runtime's WebGPU build waits for first use: this browser trains on WASM (src/engine/ort-builds.ts).
          assert.ok(
            precache.later.some((f) => f.path === 'ort/ort-wasm-simd-threaded.asyncify.wasm'),
            'the WebGPU build is cached on first use',
          );
          for (const f of [
            'index.html',
            'ort/ort-wasm-simd-threaded.mjs',
            'ort/ort-wasm-simd-threaded.wasm',
            'checkpoints/sat-tiny/model.safetensors',
            'manifest.webmanifest',
            'icons/icon-512.png',
          ]) {
            assert.ok(precache.files.includes(f), `${f} is cached on the first visit`);
          }
          const { bytesOf } = await importTs('scripts/vite-deploy.ts');
          const shellBytes = bytesOf(DIST, precache.files);
          const laterBytes = precache.later.reduce((a, f) => a + f.bytes, 0);
          note(
            testInfo,
            `first visit caches ${precache.files.length} files, ` +
              `${(shellBytes / 1e6).toFixed(1)} MB (the whole ` +
              `build: ${precache.files.length + precache.later.length} ` +
              `files, ${((shellBytes + laterBytes) / 1e6).toFixed(1)} ` +
              'MB)',
          );

          // "Keep everything for offline use" states its size, then fetches the rest with progress.
          const keep = page.locator('[data-testid="keep-offline"] button');
          await keep.waitFor({ timeout: 30_000 });
          assert.match(await keep.textContent(), /^Keep everything for offline use \(\d+\.\d MB\)$/);
          await keep.click();
          await page.waitForSelector('[data-testid="keep-offline"][data-state="kept"]', { timeout: 120_000 });
          const all = (await cachedNow())[`rlvr-${precache.version}`];
          assert.deepEqual(
            [...later].filter((u) => !all.includes(u)),
            [],
            'every later file is kept',
          );

          // The web manifest (relative URLs: it works under any sub-path).
          const manifest = await page.evaluate(async () =>
            (await fetch(document.querySelector('link[rel="manifest"]').href)).json(),
          );
          assert.equal(manifest.display, 'standalone');
          assert.equal(manifest.start_url, './');
          assert.ok(
            ['192x192', '512x512'].every((s) => manifest.icons.some((i) => i.sizes === s && i.type === 'image/png')),
          );

          for (let i = 0; i < 3; i++) await stepOnce(page);
          let s = await page.evaluate(() => window.__rlvr.state());
          assert.equal(s.run.step, 3);
          assert.equal(s.run.metrics.length, 3);
          assert.equal(s.run.backend.kind, 'wasm');
          assert.equal(s.run.backend.crossOriginIsolated, true, 'the training worker is isolated too');
          const cores = await page.evaluate(() => navigator.hardwareConcurrency);
          // The tiny model on at most 2 cores gets one thread, else all it may have (src/engine/wasm-threads.ts).
          assert.equal(
            s.run.backend.threads,
            cores <= 2 ? 1 : Math.min(4, cores),
            'ONNX Runtime gets the thread count an isolated page gives this model',
          );
          assert.match(await page.textContent('[data-testid="step-count"]'), /^Step 3$/);
          note(
            testInfo,
            `online: ${s.run.backend.description}; 3 steps, ` +
              `rewards ${s.run.metrics.map((m) => m.reward.toFixed(3)).join(', ')}`,
          );
          await page.waitForFunction(() => window.__rlvr.state().autosave?.step === 3, undefined, { timeout: 60_000 });

          // Network gone: the reload is served from the cache, still isolated, and the run trains on.
          await context.setOffline(true);
          const cancelledBefore = cancelledByReload.length;
          reloading();
          await page.reload({ waitUntil: 'load' });
          await until(
            page,
            () => window.__rlvr?.state().run.step === 3 && window.__rlvr.state().run.metrics.length === 3,
            undefined,
            { timeout: 60_000, what: 'the run restored at step 3 (offline)' },
          );
          if (cancelledByReload.length > cancelledBefore)
            note(
              testInfo,
              `the offline reload cancelled ${cancelledByReload.length - cancelledBefore} ` +
                `request(s) still open: ${cancelledByReload.slice(cancelledBefore).join('; ')}`,
            );
          assert.equal(await page.evaluate(() => navigator.onLine), false, 'the browser is offline');
          assert.equal(await page.evaluate(() => globalThis.crossOriginIsolated), true, 'isolated offline too');
          for (let i = 0; i < 3; i++) await stepOnce(page);
          s = await page.evaluate(() => window.__rlvr.state());
          assert.equal(s.run.step, 6);
          assert.equal(s.run.metrics.length, 6);
          assert.ok(
            s.run.metrics.every((m) => Number.isFinite(m.loss)),
            'every step has a finite loss',
          );
          assert.equal(s.run.backend.crossOriginIsolated, true);
          assert.match(await page.textContent('[data-testid="step-count"]'), /^Step 6$/);
          const record = precache.later.find((f) => f.path.startsWith('records/lessons/'));
          const recordStatus = await page.evaluate(async (path) => (await fetch(path)).status, record.path);
          assert.equal(recordStatus, 200, `${record.path}, kept before going offline, is served offline`);
          note(
            testInfo,
            `offline: ${s.run.backend.description}; steps 4-6, rewards ${s.run.metrics
              .slice(3)
              .map((m) => m.reward.toFixed(3))
              .join(', ')}`,
          );
          await screenshot(page, 'offline-trained');

          assert.deepEqual(failures, [], 'no request failed, online or offline');
          assert.deepEqual(p.pageErrors, []);
          assert.deepEqual(p.externalRequests, []);
        },
        async () => `static server log tail:\n${server.log().slice(-1500)}\nfailed requests: ${failures.join('\n')}`,
      );
    } finally {
      await p.close();
    }
  },
);
