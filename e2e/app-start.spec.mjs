// The playground's first screen and a shared URL, on the production build (alone:
// `npx vite build && npx playwright test e2e/app-start.spec.mjs`). Screenshots go to test-results/.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage, waitForPage } from './lib.mjs';
import { appHooks, browser, FIRST_SCREEN_GOAL_MS, HANG_MS, shot, text, timings, withDiagnostics } from './app-lib.mjs';

appHooks(test, 'app-start-e2e.json');

test('first screen on the preview build (its time reported against 2 s)', async ({}, testInfo) => {
  const p = await openPage(browser, '/', { viewport: { width: 1280, height: 720 } });
  try {
    await p.page.waitForSelector('[data-testid="start"]', { timeout: HANG_MS });
    // Start waits for the shipped checkpoints' defaults (no run from placeholder values).
    await p.page.waitForSelector('[data-testid="start"]:not([disabled])', { timeout: HANG_MS });
    const ms = await waitForPage(p.page, () => window.__rlvrFirstScreen, { timeout: HANG_MS });
    const nav = await p.page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0];
      return { domContentLoaded: n.domContentLoadedEventEnd, load: n.loadEventEnd };
    });
    const fcp = await p.page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    );
    timings.firstScreenMs = Math.round(ms);
    timings.firstContentfulPaintMs = fcp === null ? null : Math.round(fcp);
    note(
      testInfo,
      `first screen (app mounted) ${Math.round(ms)} ms ` +
        `after navigation start (goal ${FIRST_SCREEN_GOAL_MS} ` +
        `ms); first contentful paint ${fcp === null ? '?' : Math.round(fcp)} ` +
        `ms; DOMContentLoaded ${Math.round(nav.domContentLoaded)} ` +
        'ms',
    );
    assert.ok(ms < HANG_MS, `first screen took ${Math.round(ms)} ms: a hang (goal ${FIRST_SCREEN_GOAL_MS} ms)`);
    assert.match(await text(p.page, 'step-count'), /^Step 0$/);
    assert.equal(await p.page.isDisabled('[data-testid="start"]'), false, 'Start is enabled with the default setup');
    assert.deepEqual(p.externalRequests, [], 'the app must not fetch anything from outside (offline)');
    // Keyboard: the view tabs follow the arrow keys.
    await p.page.focus('[data-testid="tab-charts"]');
    await p.page.keyboard.press('ArrowRight');
    assert.equal(await p.page.getAttribute('[data-testid="tab-rollouts"]', 'aria-selected'), 'true');
    assert.equal(await p.page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'tab-rollouts');
    await p.page.keyboard.press('ArrowLeft');
    assert.equal(await p.page.getAttribute('[data-testid="tab-charts"]', 'aria-selected'), 'true');
    await shot(p.page, 'app-first-screen');
  } finally {
    await p.close();
  }
});

test('a shared URL opens its config', async ({}, testInfo) => {
  test.setTimeout(60_000);
  const p = await openPage(browser, '/?v=1&preset=dapo&learning_rate=0.0005&difficulty.m=7&steps=50&bogus=1', {
    viewport: { width: 1280, height: 720 },
  });
  try {
    await withDiagnostics(testInfo, p, 'app-shared-url', async () => {
      const { page } = p;
      await page.waitForSelector('[data-testid="preset"]');
      assert.equal(await page.inputValue('[data-testid="preset"]'), 'dapo');
      assert.equal(await page.inputValue('[data-testid="field-learning_rate"]'), '0.0005');
      assert.equal(await page.inputValue('[data-testid="knob-m"]'), '7');
      assert.equal(await page.inputValue('[data-testid="step-budget"]'), '50');
      assert.match(await text(page, 'preset-explanation'), /clip-higher/);
      await page.click('summary');
      assert.equal(
        await page.inputValue('[data-testid="field-epsilon_high"]'),
        '0.28',
        "the preset's values show in the form",
      );
      assert.match(await text(page, 'url-notes'), /unknown setting "bogus"/);
      assert.equal(await page.isDisabled('[data-testid="start"]'), false);
      await shot(page, 'app-shared-url');
    });
  } finally {
    await p.close();
  }
});
