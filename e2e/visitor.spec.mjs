// The reused browser context of e2e/visitor.mjs hands each test a fresh visitor: what one test leaves in it
// (storage of every kind, a route, the offline switch) is gone for the next, and only the HTTP cache stays.
// The two tests run in order in one worker, on a browser of their own: a page another file left open in the
// worker's browser would keep its reused context from them. Alone: `npx playwright test e2e/visitor.spec.mjs`.
import assert from 'node:assert/strict';
import { chromium, test } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, openPage } from './lib.mjs';

test.describe.configure({ mode: 'serial' });

let browser = null;
test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
test.afterAll(async () => {
  await browser?.close();
});

/** The context the first test used: the second must get the same one, or it proves nothing. */
let first = null;

test('a test leaves storage, a route and the offline switch behind', async () => {
  const p = await openPage(browser, '/');
  first = p.context;
  await p.page.evaluate(async () => {
    localStorage.setItem('visitor-left', '1');
    await new Promise((ok, fail) => {
      const req = indexedDB.open('visitor-left', 1);
      req.onupgradeneeded = () => req.result.createObjectStore('s');
      req.onsuccess = () => {
        req.result.close();
        ok();
      };
      req.onerror = () => fail(req.error);
    });
    const cache = await caches.open('visitor-left');
    await cache.put('/visitor-left', new Response('left'));
  });
  await p.context.route('**/manifest.webmanifest', (route) => route.fulfill({ status: 200, body: 'routed' }));
  // What it leaves is really there before it goes (else the next test's "none of it" proves nothing).
  const left = await p.page.evaluate(async () => ({
    local: localStorage.getItem('visitor-left'),
    database: (await indexedDB.databases()).some((d) => d.name === 'visitor-left'),
    cache: (await caches.keys()).includes('visitor-left'),
    routed: (await (await fetch('/manifest.webmanifest')).text()) === 'routed',
  }));
  assert.deepEqual(left, { local: '1', database: true, cache: true, routed: true });
  await p.context.setOffline(true);
  const offline = await p.page.evaluate(() =>
    fetch('/index.html', { cache: 'no-store' }).then(
      () => false,
      () => true,
    ),
  );
  assert.equal(offline, true, 'the page is offline when the test ends');
  await p.close();
});

test('the next test finds none of it in the same context', async () => {
  assert.ok(first, 'needs the first test');
  const p = await openPage(browser, '/');
  try {
    assert.equal(p.context, first, 'the worker reused its context');
    const seen = await p.page.evaluate(async () => ({
      local: localStorage.getItem('visitor-left'),
      database: (await indexedDB.databases()).some((d) => d.name === 'visitor-left'),
      cache: (await caches.keys()).includes('visitor-left'),
      manifest: (await (await fetch('/manifest.webmanifest')).text()) !== 'routed',
    }));
    // The page loaded at all: the offline switch is off again.
    assert.deepEqual(seen, { local: null, database: false, cache: false, manifest: true });
  } finally {
    await p.close();
  }
});
