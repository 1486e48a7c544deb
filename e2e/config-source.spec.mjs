// "Why this value?": each setup field says where its value came from (src/rl/resolve-config.ts, shown
// by src/ui/components/setup/FieldSource.tsx). On the sort checkpoint, prompts_per_step comes from its
// recipe; typed over, it is "edited" with a "reset to recipe" button; the share link opened afresh
// shows it "from the link"; the reset brings the recipe's value back.
//   npx vite build && npx playwright test e2e/config-source.spec.mjs
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { openPage, waitForPage, withPageDiagnostics } from './lib.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const source = async (page, path) => (await page.textContent(`[data-testid="source-${path}"] > span`))?.trim();

test(
  "a field's source goes from the recipe to edited to " + 'the link, and back to the recipe in one click',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const first = await openPage(browser, '/?task=sort&preset=dapo');
    let link;
    try {
      await withPageDiagnostics(testInfo, first, 'config-source-edit', async () => {
        const { page } = first;
        // The checkpoint index has loaded when the recipe's value shows.
        await waitForPage(page, () => document.querySelector('[data-testid="field-prompts_per_step"]')?.value === '64');
        assert.equal(await source(page, 'prompts_per_step'), 'recipe of sort-tiny');
        assert.equal(await source(page, 'difficulty.length'), 'recipe of sort-tiny');
        assert.equal(await source(page, 'learning_rate'), 'default');
        await page.click('[data-testid="advanced"] > summary');
        assert.equal(await source(page, 'epsilon_high'), 'preset dapo');
        assert.equal(
          await page.locator('[data-testid="reset-prompts_per_step"]').count(),
          0,
          'no reset button for an untouched field',
        );

        await page.fill('[data-testid="field-prompts_per_step"]', '16');
        assert.equal(await source(page, 'prompts_per_step'), 'edited');
        assert.equal((await page.textContent('[data-testid="reset-prompts_per_step"]'))?.trim(), 'reset to recipe');
        await waitForPage(page, () => new URL(location.href).searchParams.get('prompts_per_step') === '16');
        link = new URL(page.url());
      });
    } finally {
      await first.close();
    }

    const second = await openPage(browser, `${link.pathname}${link.search}`);
    try {
      await withPageDiagnostics(testInfo, second, 'config-source-link', async () => {
        const { page } = second;
        await waitForPage(page, () => document.querySelector('[data-testid="field-prompts_per_step"]')?.value === '16');
        assert.equal(await source(page, 'prompts_per_step'), 'from the link');
        assert.equal(await source(page, 'difficulty.length'), 'recipe of sort-tiny');
        await page.click('[data-testid="reset-prompts_per_step"]');
        assert.equal(await page.inputValue('[data-testid="field-prompts_per_step"]'), '64');
        assert.equal(await source(page, 'prompts_per_step'), 'recipe of sort-tiny');
        await waitForPage(page, () => !new URL(location.href).searchParams.has('prompts_per_step'));
        // Typed over, a value from the link becomes the person's own edit.
        await page.fill('[data-testid="field-learning_rate"]', '0.0003');
        assert.equal(await source(page, 'learning_rate'), 'edited');
      });
    } finally {
      await second.close();
    }
  },
);
