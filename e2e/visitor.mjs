// One browser context per test worker, reused by the tests' pages as fresh visitors (e2e/lib.mjs openPage,
// visitorTabs): the origin's storage is cleared between tests, the HTTP cache kept, and with it Chromium's
// compiled code for ONNX Runtime's WebAssembly (docs/tests.md, "Fourth round").

/** @typedef {import('playwright-core').BrowserContext} BrowserContext */
/** @typedef {import('playwright-core').Page} Page */

/** Per browser (one per test worker): the context pages reuse (`visitorContext`). */
const visitorContexts = new WeakMap();

/**
 * The test worker's reused browser context, emptied for a new visitor; null outside a Playwright test, in the
 * `alone` project, and while any page of it is still open (a page a test keeps for the next one, or a second
 * visitor of the same test: those get a context of their own). Emptied: the origin's storage cleared
 * (IndexedDB, localStorage, Cache Storage, service workers, OPFS), and the context's routes, offline switch,
 * permissions and extra headers reset (init scripts cannot be: a test that adds one makes its own context).
 * The HTTP cache is kept, and it is why this exists: Chromium keeps V8's compiled code for ONNX Runtime's
 * .wasm beside it from about the third load on, and a page that finds it skips several CPU-seconds of
 * top-tier compilation in its first step (docs/tests.md, "Fourth round"). Returns the context and a blank page.
 * @param {import('playwright-core').Browser} browser
 * @param {string} origin
 * @returns {Promise<{ context: BrowserContext, page: Page } | null>}
 */
export async function visitorContext(browser, origin) {
  if (process.env.TEST_WORKER_INDEX === undefined) return null;
  // The `alone` project's figures (a first screen, a recording opened) are a first visit's: no warm cache there.
  const { test } = await import('@playwright/test');
  if (test.info().project.name === 'alone') return null;
  let context = visitorContexts.get(browser);
  if (context && context.pages().length > 0) return null;
  if (!context) {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    visitorContexts.set(browser, context);
  }
  // What a test may have set on the context itself goes too (lessons.spec.mjs routes measured.json).
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await context.setOffline(false);
  await context.clearPermissions();
  await context.setExtraHTTPHeaders({});
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', {
    origin: new URL(origin).origin,
    storageTypes: 'cookies,file_systems,indexeddb,local_storage,websql,service_workers,cache_storage',
  });
  await cdp.detach();
  return { context, page };
}

/** Closes every page of `context`: a reused context is handed back this way, never closed. */
export async function closePages(context) {
  await Promise.all(context.pages().map((p) => p.close()));
}

/**
 * A browser context for a test that opens its own tabs (`context.newPage()`), as a fresh visitor: the worker's
 * reused one (`visitorContext`) where it can be, else a new one. `close()` closes its pages, or the new context.
 * @param {import('playwright-core').Browser} browser
 * @returns {Promise<{ context: BrowserContext, close: () => Promise<void> }>}
 */
export async function visitorTabs(browser) {
  const origin = process.env.E2E_BASE_URL;
  const reused = origin ? await visitorContext(browser, origin) : null;
  if (!reused) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    return { context, close: () => context.close() };
  }
  await reused.page.close();
  const { context } = reused;
  return { context, close: () => closePages(context) };
}
