// Helpers of the reliability specs (e2e/reliability*.spec.mjs, docs/reliability.md): pages opened with
// init scripts and every request that leaves the app blocked and recorded, the run's state, and the
// results each file writes to test-results/<file>.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH, RESULTS_DIR, serverUrl } from './lib.mjs';

export { withPageDiagnostics as withDiagnostics } from './lib.mjs';

export const LONG = process.env.RLVR_RELIABILITY_LONG === '1';
export const LONG_ONLY = 'long: npm run test:reliability (RLVR_RELIABILITY_LONG=1)';

export const SOAK_STEPS = Number(process.env.RLVR_SOAK_STEPS ?? 300);
/**
 * SwiftShader runs a nano step in ~1.8 s here: 100 steps take ~3 min (RLVR_WEBGPU_SOAK_STEPS=300 for the full 300 of
 * docs/reliability.md, ~9 min).
 */
export const WEBGPU_SOAK_STEPS = Number(process.env.RLVR_WEBGPU_SOAK_STEPS ?? 100);

/** @type {import('playwright-core').Browser} */
export let browser;
export let origin = '';
/** What the tests of one spec file measured; `reliabilityHooks` writes it out after the file. */
export const results = {};

/**
 * Registers the file's options and hooks: Chromium with --expose-gc (the soak collects garbage in the
 * worker before reading its heap), the browser and server for `open`, and the results written to
 * test-results/`file` after the file.
 */
export function reliabilityHooks(test, file) {
  test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'] } });
  test.beforeAll(async ({ browser: b }) => {
    origin = await serverUrl();
    browser = b;
  });
  test.afterAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, file), JSON.stringify(results, null, 2));
  });
}

/**
 * A fresh context and page like lib.mjs's openPage, but with init scripts installed before the first
 * navigation (storage faults, CSP listeners) and every non-origin request blocked and recorded.
 */
export async function open(path, { init = [], workerInit = [], viewport = { width: 1280, height: 800 } } = {}) {
  // The service worker is blocked as in e2e/lib.mjs openPage: its cache would bypass the routes below.
  const context = await browser.newContext({ viewport, acceptDownloads: true, serviceWorkers: 'block' });
  const blocked = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    blocked.push(u);
    return route.abort('blockedbyclient');
  });
  const external = [];
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) external.push(u);
  });
  for (const fn of init) await context.addInitScript(fn);
  const page = await context.newPage();
  const consoleMessages = [];
  const pageErrors = [];
  page.on('console', (m) => consoleMessages.push({ source: 'page', type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
  page.on('worker', (w) =>
    w.on('console', (m) => consoleMessages.push({ source: `worker ${w.url()}`, type: m.type(), text: m.text() })),
  );
  // Init scripts do not reach workers: a fault the trainer worker must see too (it writes the saved run
  // itself, workers/run-saver.ts) is injected as it starts, long before its first save (after a step).
  page.on('worker', (w) => {
    for (const fn of workerInit) void w.evaluate(fn).catch(() => undefined);
  });
  const response = await page.goto(new URL(path, origin).href, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="start"]', { timeout: 30_000 });
  // The setup (and Start) appear once the shipped checkpoints' defaults are known.
  await page.waitForSelector('[data-testid="setup"]', { timeout: 30_000 });
  return { context, page, response, blocked, external, consoleMessages, pageErrors, close: () => context.close() };
}

export const state = (page) => page.evaluate(() => window.__rlvr.state());
export const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);
export const trainerWorker = (page) => page.workers().find((w) => w.url().includes('trainer.worker'));
/** Metrics without wall-clock timings (those differ between any two runs). */
export const strip = (m) =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('time/') && !k.startsWith('tokens_per_second')));

/** CSP violations reported to the page (securitypolicyviolation events), installed before any script. */
export function listenForCsp() {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
  );
}
export const cspConsole = (p) =>
  p.consoleMessages.filter((m) => /Content[- ]Security[- ]Policy|Refused to/i.test(m.text));
