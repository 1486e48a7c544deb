// Shared helpers for the e2e tests (e2e/*.spec.mjs, run by `playwright test`), the browser benchmark
// (bench/browser/driver.ts) and scripts/measure-demo.mjs.
//
// Under `playwright test` the server is playwright.config.ts's webServer, whose address the config puts
// in E2E_BASE_URL; the scripts start their own through `startServer()` / `serverUrl()`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closePages, visitorContext } from './visitor.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS_DIR = join(ROOT, 'test-results');

/** Debian's Chromium (playwright's own browsers cannot be downloaded here). Override with RLVR_CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.RLVR_CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Flags verified on this machine. `--enable-unsafe-webgpu` exposes WebGPU in headless mode (a SwiftShader
 * adapter when there is no GPU); the rest keep Chromium from reaching the network. `--enable-features=Vulkan`
 * is not needed: SwiftShader's WebGPU adapter appears without it.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The smallest real run, for tests that need a live run but not what it learns: a fresh nano model,
 * 2 prompts x 2 completions of at most 8 tokens, no held-out evaluation (a step takes about a second).
 */
export const NANO =
  'task=arithmetic&model=nano&prompts_per_step=2&num_generations=2&max_completion_length=8' +
  '&eval_every=0&difficulty.digits=1&difficulty.ops=%2B';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((ok, fail) => {
    const s = createNetServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => ok(port));
    });
  });
}

/**
 * Starts the app's server on 127.0.0.1 and a free port.
 * mode 'preview' (default) serves the production build in dist/ (built first if missing);
 * mode 'dev' runs Vite's dev server (no build needed). Both send COOP/COEP (vite.config.ts).
 * @param {{ mode?: 'preview' | 'dev', log?: boolean }} [opts]
 * @returns {Promise<{ url: string, mode: string, close: () => Promise<void>, unref: () => void }>}
 */
export async function startServer(opts = {}) {
  const mode = opts.mode ?? /** @type {'preview' | 'dev'} */ (process.env.E2E_SERVER === 'dev' ? 'dev' : 'preview');
  const vite = await import('vite');
  const port = await freePort();
  const common = {
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: /** @type {const} */ (opts.log ? 'info' : 'warn'),
  };
  if (mode === 'dev') {
    const server = await vite.createServer({
      ...common,
      server: { host: '127.0.0.1', port, strictPort: true, hmr: false },
    });
    await server.listen();
    return {
      url: `http://127.0.0.1:${port}`,
      mode,
      close: () => server.close(),
      unref: () => server.httpServer?.unref(),
    };
  }
  if (!existsSync(join(ROOT, 'dist', 'index.html'))) {
    console.log('# dist/ is missing: building the app first (vite build)');
    await vite.build({ ...common });
  }
  const server = await vite.preview({ ...common, preview: { host: '127.0.0.1', port, strictPort: true, open: false } });
  const http = /** @type {import('node:http').Server} */ (server.httpServer);
  return {
    url: `http://127.0.0.1:${port}`,
    mode,
    // close() alone waits for every open connection, and Chromium keeps some alive (or is still
    // streaming a response when it is killed): end them all so close() returns.
    close: () =>
      new Promise((ok) => {
        http.close(() => ok(undefined));
        http.closeAllConnections();
      }),
    unref: () => http.unref(),
  };
}

let ownServer = null;
/**
 * The server the runner started, or one started for this process. That one is unref'd: a listening
 * server would otherwise keep the process alive after its work is done ('beforeExit' never fires
 * while it listens), which is how a script that forgot to pass `base` to openPage used to hang.
 */
export async function serverUrl() {
  if (process.env.E2E_BASE_URL) return process.env.E2E_BASE_URL;
  if (!ownServer) {
    ownServer = await startServer();
    ownServer.unref();
  }
  return ownServer.url;
}

/** Launches headless Debian Chromium through playwright-core. */
export async function launchBrowser(extraArgs = []) {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: run \`node ` +
        `scripts/ensure-chromium.mjs\` (or apt-get install ` +
        '-y chromium as root)',
    );
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/**
 * Closes the browser, giving up after `ms` (Chromium busy in a WebGPU or WASM worker can take long to
 * answer); the caller then exits the process, which ends the browser with it. Returns whether it closed.
 * @param {import('playwright-core').Browser} browser
 */
export async function closeBrowser(browser, ms = 20_000) {
  let timer;
  const closed = await Promise.race([
    browser.close().then(
      () => true,
      () => false,
    ),
    new Promise((ok) => {
      timer = setTimeout(() => ok(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return closed;
}

/**
 * Opens `path` (relative to the server) as a fresh visitor and records every console message of the
 * page and its workers, page errors, and requests that left the server's origin (there must be none:
 * the app works offline). The app's service worker (src/pwa/service-worker.ts) is blocked unless
 * `serviceWorkers: 'allow'`: with it, later loads come from its cache, out of reach of `context.route`.
 * With `context`, the page opens as a new tab of that context (sharing its HTTP cache and storage) and
 * `close()` closes only the page. Otherwise, in a test, the page opens in the test worker's reused context
 * with the origin's storage cleared, where it can (`visitorContext`), and `close()` closes the pages of that
 * context; else (`serviceWorkers: 'allow'`, a script outside a test) in a new context that `close()` closes.
 * @param {import('playwright-core').Browser} browser
 * @param {string} path
 * @param {{ base?: string, viewport?: { width: number, height: number }, serviceWorkers?: 'allow' | 'block',
 *   context?: import('playwright-core').BrowserContext }} [opts]
 */
export async function openPage(
  browser,
  path,
  { base, viewport = { width: 1280, height: 800 }, serviceWorkers = 'block', context: shared } = {},
) {
  const origin = base ?? (await serverUrl());
  const reused = shared || serviceWorkers !== 'block' ? null : await visitorContext(browser, origin);
  const context = shared ?? reused?.context ?? (await browser.newContext({ viewport, serviceWorkers }));
  const page = reused?.page ?? (await context.newPage());
  if (reused) await page.setViewportSize(viewport);
  /** @type {{ source: string, type: string, text: string }[]} */
  const consoleMessages = [];
  /** @type {string[]} */
  const pageErrors = [];
  /** @type {string[]} */
  const externalRequests = [];
  page.on('console', (m) => consoleMessages.push({ source: 'page', type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
  page.on('worker', (w) =>
    w.on('console', (m) => consoleMessages.push({ source: `worker ${w.url()}`, type: m.type(), text: m.text() })),
  );
  const onRequest = (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) externalRequests.push(u);
  };
  (shared ? page : context).on('request', onRequest);
  await page.goto(new URL(path, origin).href, { waitUntil: 'load' });
  const close = async () => {
    if (shared) return page.close();
    if (!reused) return context.close();
    context.off('request', onRequest);
    await closePages(context);
  };
  return { page, context, consoleMessages, pageErrors, externalRequests, close };
}

/** Saves a full-page screenshot into test-results/<name>.png and returns its path. */
export async function screenshot(page, name) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Types `value` into a config field of the setup, the way a person does: "Advanced: every knob" is opened first
 * (src/ui/components/setup/AdvancedConfig.tsx), where most fields live.
 */
export async function setField(page, path, value) {
  if (!(await page.$eval('[data-testid="advanced"]', (d) => d.open)))
    await page.click('[data-testid="advanced"] > summary');
  await page.fill(`[data-testid="field-${path}"]`, value);
}

/**
 * Polls `fn` in the page until it returns a truthy value (a small stand-in for playwright-test's expect.poll).
 * @template T
 * @param {import('playwright-core').Page} page
 * @param {() => T} fn
 */
export async function waitForPage(page, fn, { timeout = 60_000, polling = 250 } = {}) {
  const handle = await page.waitForFunction(fn, undefined, { timeout, polling });
  return /** @type {Promise<T>} */ (handle.jsonValue());
}

let pythonSetup = null;
/**
 * scripts/setup-python.sh's answer (`{ status, stdout, stderr }`: exit 0 with the venv's python on the last
 * line of stdout, 3 without the wheels), asked once per test worker: the check imports torch, transformers
 * and trl, 10-40 s on a loaded machine, and the files that need the venv run in the same worker.
 */
export function setupPython() {
  if (pythonSetup) return pythonSetup;
  const { status, stdout, stderr } = spawnSync('bash', ['scripts/setup-python.sh'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  const answer = { status, stdout, stderr };
  // Kept when it is an answer (ready, or no wheels here); a failure or a timeout is asked again.
  if (status === 0 || status === 3) pythonSetup = answer;
  return answer;
}

/** Loads TypeScript sources from src/ in Node (through tsx, as scripts/rlvr.mjs does). */
let tsxRegistered = false;
export async function importTs(relPath) {
  if (!tsxRegistered) {
    const { register } = await import('tsx/esm/api');
    register();
    tsxRegistered = true;
  }
  return import(new URL(relPath, `file://${ROOT}/`).href);
}

/** Wall-clock of an async function, in seconds, for the timing lines the tests print. */
export async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - t0) / 1000 };
}

/**
 * A line about what a test measured: printed by the list reporter and kept as an annotation of the
 * test in test-results/e2e-report-{shared,alone}.json (scripts/e2e.mjs; a plain run: e2e-report.json).
 * @param {import('@playwright/test').TestInfo} testInfo
 * @param {string} message
 */
export function note(testInfo, message) {
  testInfo.annotations.push({ type: 'note', description: message });
  console.log(`  ${message}`);
}

/**
 * Runs `fn`; when it throws, screenshots the page as `<name>-FAILED`, reports the page's and its
 * workers' last console lines and page errors (plus `extra()`, when given), and rethrows.
 * @param {import('@playwright/test').TestInfo} testInfo
 */
export async function withPageDiagnostics(testInfo, p, name, fn, extra) {
  try {
    return await fn();
  } catch (e) {
    await screenshot(p.page, `${name}-FAILED`).catch(() => undefined);
    const tail = p.consoleMessages
      .slice(-25)
      .map((m) => `  [${m.source} ${m.type}] ${m.text.slice(0, 300)}`)
      .join('\n');
    const head = extra ? `${await extra().catch(() => '')}\n` : '';
    const report = `${head}last console messages:\n${tail}\npage errors: ${p.pageErrors.join('\n')}`;
    note(testInfo, report);
    await testInfo.attach(`${name}-console.txt`, { body: report, contentType: 'text/plain' }).catch(() => undefined);
    throw e;
  }
}

/**
 * The page's state, with each open record cut to its header (format, version, config, config changes,
 * provenance, metric keys): its steps, evaluations, rollouts and weights are megabytes that a round trip
 * through the DevTools protocol took 15-40 s to copy on a loaded machine, and no test reads them from
 * here (the page's own metrics, evals and scrubbed step are still in `recording`).
 */
export const stateWithoutRecords = (page) =>
  page.evaluate(() => {
    const s = window.__rlvr.state();
    const head = (r) =>
      r && {
        format: r.format,
        version: r.version,
        config: r.config,
        config_changes: r.config_changes,
        provenance: r.provenance,
        metric_keys: r.metric_keys,
      };
    return {
      ...s,
      recording: s.recording && { ...s.recording, record: head(s.recording.record) },
      recordedArms: s.recordedArms && {
        ...s.recordedArms,
        opened: s.recordedArms.opened.map((o) => ({ ...o, record: head(o.record) })),
      },
    };
  });

/** What the page shows of its run, for a failure message. */
export function pageRunState(page) {
  return page
    .evaluate(async () => {
      const s = window.__rlvr.state();
      // The worker's own view, unless it does not answer within 2 s.
      const worker = await Promise.race([
        window.__rlvr.status().catch((e) => `error ${e}`),
        new Promise((ok) => setTimeout(() => ok('no answer in 2 s'), 2000)),
      ]);
      return JSON.stringify({
        state: s.run.state,
        activity: s.run.activity,
        step: s.run.step,
        metrics: s.run.metrics.length,
        busy: s.busy,
        booted: s.booted,
        error: s.error,
        autosave: s.autosave,
        worker,
      });
    })
    .catch((e) => `(unreadable: ${e instanceof Error ? e.message : String(e)})`);
}
