// Helpers of the offline specs (e2e/offline*.spec.mjs, docs/deploy.md): dist/ under /rlvr/ on a plain
// static server (`python3 -m http.server`, no COOP/COEP or CSP headers), started and stopped around each
// file, and the waits and failure records the tests share.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, pageRunState, ROOT } from './lib.mjs';

/** The build to serve; E2E_DIST points at another (e.g. one built with BASE_PATH=/rlvr/). */
export const DIST = process.env.E2E_DIST ? resolve(process.env.E2E_DIST) : join(ROOT, 'dist');
export const SUB = 'rlvr';
/** The default run, without the held-out evaluations (they only add time here). */
export const QUERY = '?eval_every=0';

/** @type {import('playwright-core').Browser} */
export let browser;
/** @type {{ origin: string, close: () => Promise<void>, log: () => string }} */
export let server;
export let served = '';

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/** `python3 -m http.server` on 127.0.0.1 and a free port, serving `dir`; resolves once it answers. */
export async function startStaticServer(dir) {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  const exited = new Promise((ok) => child.once('exit', (code) => ok(code)));
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${origin}/`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || i > 100)
      throw new Error(`python3 -m http.server did not start (exit ${child.exitCode}): ${log}`);
    await sleep(100);
  }
  return {
    origin,
    log: () => log,
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `fn` in the page, riding out navigations (the service worker's reload destroys the context). */
export async function until(page, fn, arg, { timeout = 60_000, what = 'condition' } = {}) {
  const t0 = Date.now();
  let last;
  while (Date.now() - t0 < timeout) {
    try {
      const v = await page.evaluate(fn, arg);
      if (v) return v;
      last = v;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e); // the page is navigating
    }
    await sleep(250);
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${String(last)})`);
}

/** Clicks "Step once" and waits for the metrics of that step. */
export async function stepOnce(page) {
  const n = await page.evaluate(() => window.__rlvr.state().run.metrics.length);
  const before = await pageRunState(page);
  await page.click('[data-testid="step-once"]');
  try {
    await page.waitForFunction(
      (want) => window.__rlvr.state().run.metrics.length >= want || window.__rlvr.state().error,
      n + 1,
      { timeout: 180_000, polling: 250 },
    );
  } catch (e) {
    throw new Error(
      `step ${n + 1} never came: before the click ${before}` +
        `; now ${await pageRunState(page)} (${e instanceof Error ? e.message : String(e)}` +
        ')',
    );
  }
  const s = await page.evaluate(() => window.__rlvr.state());
  assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
}

/**
 * Every failed request and every HTTP error response in the context (page, workers, service worker).
 * `cancelledByReload`: requests still open when a reload began (the service worker's own reload for
 * isolation, or the test's `page.reload`) that then ended net::ERR_ABORTED: a navigation cancels its
 * document's requests (a worker's script still loading, say), which is not a failure of the app.
 * Call `reloading()` just before the test's own reload; the first one, the service worker's, is
 * covered until `reloaded()` is called.
 */
export function watchFailures(context) {
  const failures = [];
  const cancelledByReload = [];
  const open = new Set();
  const cutOff = new Set();
  let firstLoad = true;
  context.on('request', (r) => open.add(r));
  context.on('requestfinished', (r) => open.delete(r));
  context.on('requestfailed', (r) => {
    open.delete(r);
    const why = r.failure()?.errorText ?? 'failed';
    const line = `${r.method()} ${r.url()}: ${why}`;
    (/ERR_ABORTED/.test(why) && (firstLoad || cutOff.has(r)) ? cancelledByReload : failures).push(line);
  });
  context.on('response', (r) => {
    if (r.status() >= 400) failures.push(`${r.request().method()} ${r.url()}: HTTP ${r.status()}`);
  });
  return {
    failures,
    cancelledByReload,
    reloaded: () => (firstLoad = false),
    reloading: () => {
      for (const r of open) cutOff.add(r);
    },
  };
}

/** Registers the file's hooks: the static server started before its tests and stopped after them. */
export function offlineHooks(test) {
  test.beforeAll(async ({ browser: b }) => {
    if (!existsSync(join(DIST, 'index.html')) || !existsSync(join(DIST, 'sw.js')))
      throw new Error('dist/ (with sw.js) is missing: run `npx vite build` first');
    served = mkdtempSync(join(tmpdir(), 'rlvr-static-'));
    cpSync(DIST, join(served, SUB), { recursive: true });
    server = await startStaticServer(served);
    browser = b;
  });
  test.afterAll(async () => {
    await server?.close();
    if (served) rmSync(served, { recursive: true, force: true });
  });
}
