// The sort checkpoint's recipe (64 prompts x 8 per step, temperature 0.7) runs in the browser on WASM:
// two steps of the real recipe complete without running out of memory, with the recipe's batch.
// Alone: `npx playwright test e2e/recipe-sort.spec.mjs`.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { openPage, withPageDiagnostics } from './lib.mjs';

let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

test('the sort recipe (512 rows per step) trains on WASM', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const p = await openPage(browser, '/?backend=wasm&task=sort&eval_every=0&steps=2');
  try {
    await withPageDiagnostics(testInfo, p, 'recipe-sort', async () => {
      const { page } = p;
      await page.click('[data-testid="start"]');
      await page.waitForFunction(() => window.__rlvr.state().run.state === 'done', undefined, {
        timeout: 280_000,
        polling: 500,
      });
      const s = await page.evaluate(() => window.__rlvr.state());
      assert.equal(s.run.step, 2);
      assert.equal(s.run.config.prompts_per_step, 64);
      assert.equal(s.run.config.temperature, 0.7);
      assert.equal(s.run.config.task, 'sort');
      assert.ok(s.run.metrics.length >= 2, 'two steps of metrics');
    });
  } finally {
    await p.close();
  }
});
