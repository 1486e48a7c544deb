// Helpers of the tab-runs specs (e2e/tab-runs*.spec.mjs): the smallest real runs, tabs of one context
// with their errors recorded, a run trained to its autosave, and a reload waited through.
import assert from 'node:assert/strict';
import { serverUrl } from './lib.mjs';

/** The smallest real runs: fresh nano models, no held-out evaluation. */
export const NANO = 'model=nano&prompts_per_step=2&num_generations=2&max_completion_length=8&eval_every=0';
export const ARITH = `task=arithmetic&${NANO}&difficulty.digits=1&difficulty.ops=%2B`;
export const SAT = `task=sat&${NANO}`;

/** @type {import('playwright-core').Browser} */
export let browser;
export let origin = '';

/** Registers the file's hook that hands its tests the browser and the server's address. */
export function tabRunsHooks(test) {
  test.beforeAll(async ({ browser: b }) => {
    origin = await serverUrl();
    browser = b;
  });
}

export const state = (page) => page.evaluate(() => window.__rlvr.state());
export const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`, { timeout: 30_000 });

/** A tab of `context` (the service worker blocked, as e2e/lib.mjs openPage does), with its errors recorded. */
export async function tab(context, path) {
  const page = await context.newPage();
  const consoleMessages = [];
  const pageErrors = [];
  page.on('console', (m) => consoleMessages.push({ source: 'page', type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
  await page.goto(new URL(path, origin).href, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
  return { page, context, consoleMessages, pageErrors };
}

/** Waits until the page's run is done with `steps` steps and its autosave has that step. */
export async function trained(page, steps) {
  await page.waitForFunction(
    (n) => {
      const s = window.__rlvr.state();
      return s.error || (s.run.state === 'done' && s.run.metrics.length === n && s.autosave?.step === n);
    },
    steps,
    { timeout: 240_000, polling: 250 },
  );
  const s = await state(page);
  assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
}

/** Reloads and waits until start-up is over (the tab's own run restored, or the saved runs offered). */
export async function reloaded(page) {
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(
    () => window.__rlvr?.bootDone() && window.__rlvr.state().run.state !== 'loading',
    undefined,
    { timeout: 60_000, polling: 100 },
  );
  return state(page);
}
