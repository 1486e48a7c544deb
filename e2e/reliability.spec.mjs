// Reliability and safety in the browser (docs/reliability.md), on the production build served by `vite preview`.
//
// In the main e2e run (`npm run test:e2e` runs every e2e/*.spec.mjs), a few minutes in all:
//   CSP, offline, non-finite steps, storage full / unavailable; bad links and files in
//   reliability-bad-input.spec.mjs.
// Only with RLVR_RELIABILITY_LONG=1 (`npm run test:reliability`), in reliability-long.spec.mjs:
//   the worker-kill resume with identical metrics, a 300-step soak on WASM, a WebGPU soak, and a lost
//   WebGPU device (SwiftShader) falling back to WASM.
//
// Alone: `npx playwright test e2e/reliability` (all three files; RLVR_RELIABILITY_LONG=1 for the long ones).
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { NANO, note, screenshot } from './lib.mjs';
import {
  cspConsole,
  listenForCsp,
  open,
  origin,
  reliabilityHooks,
  results,
  state,
  text,
  trainerWorker,
  withDiagnostics,
} from './reliability-lib.mjs';

reliabilityHooks(test, 'reliability-e2e.json');

test(
  'CSP without unsafe-eval on every file; the app ' + 'trains a step under it and reports no violation',
  async ({}, testInfo) => {
    test.setTimeout(180_000);
    // Two WASM threads asked for: the thread pool's module workers must run under the policy too (a tiny model on
    // 2 cores would otherwise get one, src/engine/wasm-threads.ts).
    const p = await open(`/?${NANO}&threads=2`, { init: [listenForCsp] });
    try {
      await withDiagnostics(testInfo, p, 'reliability-csp', async () => {
        const { page } = p;
        const csp = p.response.headers()['content-security-policy'];
        assert.ok(csp, 'the page is served with a Content-Security-Policy header');
        assert.doesNotMatch(csp, /'unsafe-eval'/);
        assert.doesNotMatch(csp, /'unsafe-inline'/);
        assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
        const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
        assert.equal(meta, csp, 'the built index.html carries the same policy as a <meta> (static hosts)');
        await page.click('[data-testid="step-once"]');
        await page.waitForFunction(
          () => window.__rlvr.state().run.metrics.length >= 1 || window.__rlvr.state().error,
          undefined,
          { timeout: 150_000, polling: 250 },
        );
        const s = await state(page);
        assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
        assert.ok(Number.isFinite(s.run.metrics[0].loss));
        // The worker and ORT's files carry the policy too (a worker's CSP comes from its own response).
        const worker = trainerWorker(page);
        assert.ok(worker, 'the trainer worker runs');
        // A WASM run loads ONNX Runtime's WASM build only, never the twice-as-large WebGPU one
        // (src/engine/ort-builds.ts).
        const ortFiles = (
          await worker.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname))
        ).filter((f) => f.startsWith('/ort/'));
        assert.deepEqual(
          [...new Set(ortFiles)].sort(),
          ['/ort/ort-wasm-simd-threaded.mjs', '/ort/ort-wasm-simd-threaded.wasm'],
          'the trainer worker fetched the WASM build of ONNX Runtime',
        );
        for (const url of [
          worker.url(),
          `${origin}/ort/ort-wasm-simd-threaded.mjs`,
          `${origin}/ort/ort-wasm-simd-threaded.wasm`,
          `${origin}/ort/ort-wasm-simd-threaded.asyncify.mjs`,
          `${origin}/ort/ort-wasm-simd-threaded.asyncify.wasm`,
        ]) {
          const r = await page.request.get(url);
          assert.equal(r.headers()['content-security-policy'], csp, `${url} is served with the CSP`);
        }
        assert.deepEqual(await page.evaluate(() => window.__csp), [], 'no CSP violation in the page');
        assert.deepEqual(cspConsole(p), [], 'no CSP violation reported on any console (page, worker, WASM threads)');
        assert.equal(s.run.backend.kind, 'wasm');
        assert.ok(s.run.backend.threads >= 2, 'WASM threads (module workers from the same origin) work under the CSP');
        // Controls: the policy is enforced, and the checks above would see a violation.
        const inline = await page.evaluate(async () => {
          const el = document.createElement('script');
          el.textContent = 'window.__inlineRan = true';
          document.head.appendChild(el);
          setTimeout('window.__stringTimerRan = true', 0); // string code: needs 'unsafe-eval'
          // Timers of one delay run in the order they were set: had the string timer been let through, it
          // would have run before this one.
          await new Promise((ok) => setTimeout(ok, 0));
          // The refusals are reported as securitypolicyviolation events, queued as tasks of their own.
          for (
            const t0 = performance.now();
            !window.__csp.some((v) => v.startsWith('script-src')) && performance.now() - t0 < 10_000;
          ) {
            await new Promise((ok) => setTimeout(ok, 20));
          }
          return {
            inline: window.__inlineRan === true,
            timer: window.__stringTimerRan === true,
            violations: window.__csp.slice(),
          };
        });
        assert.equal(inline.inline, false, 'an inline script is blocked');
        assert.equal(inline.timer, false, 'string-evaluated code is blocked');
        assert.ok(
          inline.violations.some((v) => v.startsWith('script-src')),
          `the violation is reported: ${inline.violations}`,
        );
        const workerViolations = await worker.evaluate(() => self.__rlvrTest.cspViolations());
        const inWorker = await worker.evaluate(async () => {
          setTimeout('self.__evalRan = true', 0);
          await new Promise((ok) => setTimeout(ok, 0)); // after the string timer, had it been let through
          return self.__evalRan === true;
        });
        assert.equal(inWorker, false, 'string-evaluated code is blocked in the worker too');
        assert.ok(
          workerViolations.length === 0,
          `no CSP violation in the trainer worker during training: ${workerViolations}`,
        );
        // The worker's listener hears of the refusal in a task of its own: wait for it (10 s at most).
        const after = await worker.evaluate(async () => {
          for (
            const t0 = performance.now();
            !self.__rlvrTest.cspViolations().some((v) => v.startsWith('script-src')) && performance.now() - t0 < 10_000;
          ) {
            await new Promise((ok) => setTimeout(ok, 20));
          }
          return self.__rlvrTest.cspViolations();
        });
        assert.ok(
          after.some((v) => v.startsWith('script-src')),
          `the worker's own listener sees a violation: ${after}`,
        );
        results.csp = { policy: csp };
        note(testInfo, `CSP: ${csp}`);
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'offline: no request leaves the app during load, ' + 'training, checkpoint download and exports',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await open(`/?${NANO}&steps=3&rollout_history_steps=3`, { init: [listenForCsp] });
    try {
      await withDiagnostics(testInfo, p, 'reliability-offline', async () => {
        const { page } = p;
        await page.click('[data-testid="start"]');
        await page.waitForFunction(() => window.__rlvr.state().run.state === 'done', undefined, {
          timeout: 200_000,
          polling: 250,
        });
        assert.equal((await state(page)).run.metrics.length, 3);
        await page.click('[data-testid="tab-share"]');
        const downloads = [];
        for (const id of ['save-checkpoint', 'export-csv', 'export-jsonl', 'export-rollouts']) {
          const n = id === 'save-checkpoint' ? 2 : 1; // weights + manifest
          const got = new Promise((ok) => {
            const seen = [];
            page.on('download', function onDl(d) {
              seen.push(d.suggestedFilename());
              if (seen.length === n) {
                page.off('download', onDl);
                ok(seen);
              }
            });
          });
          await page.click(`[data-testid="${id}"]`);
          downloads.push(...(await got));
        }
        assert.deepEqual(
          downloads.sort(),
          [
            'metrics.csv',
            'metrics.jsonl',
            'nano-random-0-step3.manifest.json',
            'nano-random-0-step3.safetensors',
            'rollouts.jsonl',
          ].sort(),
        );
        assert.deepEqual(p.blocked, [], `requests to other origins were attempted: ${p.blocked.join(', ')}`);
        assert.deepEqual(p.external, []);
        assert.deepEqual(p.pageErrors, []);
        // Controls: the page's CSP refuses an outside fetch before it is made (connect-src 'self')...
        await page.evaluate(() => fetch('https://example.invalid/probe').catch(() => 'blocked'));
        assert.ok(
          (await page.evaluate(() => window.__csp)).some((v) =>
            v.startsWith('connect-src https://example.invalid/probe'),
          ),
          'CSP refused the outside fetch',
        );
        // ...and a request CSP does not govern (a navigation) is caught by this test's net.
        const other = await p.context.newPage();
        await other.goto('https://example.invalid/navigation').catch(() => undefined);
        await other.close();
        assert.deepEqual(p.blocked, ['https://example.invalid/navigation']);
        note(testInfo, `downloads: ${downloads.join(', ')}; nothing requested outside ${origin}`);
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'non-finite steps: each is shown; three in a row ' + 'pause the run with an explanation and fixes',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await open(`/?${NANO}&steps=40&learning_rate=0.002`);
    try {
      await withDiagnostics(testInfo, p, 'reliability-nonfinite', async () => {
        const { page } = p;
        await page.click('[data-testid="step-once"]');
        await page.waitForFunction(
          () => window.__rlvr.state().run.metrics.length === 1 && window.__rlvr.state().run.state === 'paused',
          undefined,
          { timeout: 150_000 },
        );
        // TEST ONLY hook in the worker: the next steps get a NaN reward weight (a buggy reward function).
        await trainerWorker(page).evaluate(() => self.__rlvrTest.injectNonFinite(1));
        await page.click('[data-testid="step-once"]');
        await page.waitForSelector('[data-testid="skipped-notice"]', { timeout: 60_000 });
        assert.match(await text(page, 'skipped-notice'), /Step 2 was skipped: its loss or gradient was not finite/);
        assert.equal((await state(page)).run.metrics[1].skipped, 1);
        await page.click('[data-testid="step-once"]'); // a good step ends the streak (and the notice)
        await page.waitForSelector('[data-testid="skipped-notice"]', { state: 'detached', timeout: 60_000 });
        await trainerWorker(page).evaluate(() => self.__rlvrTest.injectNonFinite(10));
        await page.click('[data-testid="start"]');
        await page.waitForSelector('[data-testid="nonfinite-banner"]', { timeout: 120_000 });
        await page.waitForFunction(() => window.__rlvr.state().run.state === 'paused', undefined, { timeout: 30_000 });
        const s = await state(page);
        assert.equal(
          s.run.step,
          6,
          'paused right after the third skipped step in a row (steps 4, 5, 6), far from the budget of 40',
        );
        assert.deepEqual(
          s.run.metrics.map((m) => m.skipped),
          [0, 1, 0, 1, 1, 1],
        );
        const msg = await text(page, 'nonfinite-message');
        assert.match(msg, /3 steps in a row/);
        assert.match(msg, /learning_rate \(now 0\.002; try 0\.0002\)/);
        assert.match(msg, /max_grad_norm/);
        assert.equal(await page.$('[data-testid="error-banner"]'), null, 'shown once, as its own banner');
        await screenshot(page, 'reliability-nonfinite');
        // The one-click fixes go into the form (and, being live knobs, into the paused run).
        await page.click('[data-testid="nonfinite-lower-lr"]');
        await page.click('[data-testid="nonfinite-clip"]');
        await page.waitForFunction(
          () =>
            window.__rlvr.state().run.config?.learning_rate === 0.0002 &&
            window.__rlvr.state().run.config?.max_grad_norm === 0.5,
          undefined,
          { timeout: 10_000 },
        );
        await trainerWorker(page).evaluate(() => self.__rlvrTest.injectNonFinite(0));
        await page.click('[data-testid="step-once"]');
        await page.waitForFunction(() => window.__rlvr.state().run.metrics.length === 7, undefined, {
          timeout: 60_000,
        });
        assert.equal((await state(page)).run.metrics[6].skipped, 0, 'training goes on once the cause is gone');
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await p.close();
    }
  },
);

/** Storage faults, installed before the app's scripts. */
function quotaExceeded() {
  IDBObjectStore.prototype.put = () => {
    throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  };
}
function noIndexedDb() {
  Object.defineProperty(globalThis, 'indexedDB', {
    get() {
      throw new DOMException('IndexedDB is disabled in this private window (simulated).', 'SecurityError');
    },
  });
}

for (const [name, fault, expected] of [
  ['storage full (QuotaExceededError)', quotaExceeded, /storage is full/],
  ['storage unavailable (private mode)', noIndexedDb, /unavailable here, e\.g\. in a private window/],
]) {
  test(`${name}: the run continues and the page says autosave is off`, async ({}, testInfo) => {
    test.setTimeout(200_000);
    const p = await open(`/?${NANO}&steps=3`, { init: [fault], workerInit: [fault] });
    try {
      await withDiagnostics(testInfo, p, `reliability-${name.split(' ')[1]}`, async () => {
        const { page } = p;
        await page.evaluate(() => window.__rlvr.setAutosaveEvery(1));
        await page.click('[data-testid="start"]');
        await page.waitForSelector('[data-testid="autosave-off"]', { timeout: 150_000 });
        assert.match(await text(page, 'autosave-off'), /^Autosave is off: /);
        assert.match(await text(page, 'autosave-off'), expected);
        assert.match(await text(page, 'autosave-off'), /Training goes on|Training works/);
        await page.waitForFunction(() => window.__rlvr.state().run.state === 'done', undefined, { timeout: 120_000 });
        const s = await state(page);
        assert.equal(s.run.metrics.length, 3, 'every step ran');
        assert.equal(s.error, null, 'no error banner: the run was not interrupted');
        assert.equal(s.autosave, null, 'nothing claims to be saved');
        assert.deepEqual(p.pageErrors, []);
        await screenshot(page, `reliability-${name.split(' ')[1]}`);
      });
    } finally {
      await p.close();
    }
  });
}
