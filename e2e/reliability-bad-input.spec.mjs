// Bad links and files in the browser (docs/reliability.md), on the production build: clear messages,
// the current run untouched (alone: `npx playwright test e2e/reliability-bad-input.spec.mjs`).
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { NANO } from './lib.mjs';
import { open, reliabilityHooks, state, text, withDiagnostics } from './reliability-lib.mjs';

reliabilityHooks(test, 'reliability-bad-input-e2e.json');

test('bad input from links and files: clear messages, the current run untouched', async ({}, testInfo) => {
  test.setTimeout(200_000);
  // A very long link (12 KB; servers refuse request lines over ~16 KB before the app sees them).
  const junk = Array.from({ length: 1200 }, (_, i) => `k${i}=1`).join('&');
  const p1 = await open(`/?${junk}`);
  try {
    await withDiagnostics(testInfo, p1, 'reliability-long-url', async () => {
      const notes = await text(p1.page, 'url-notes');
      assert.match(notes, /characters long \(at most 8,192\): it was ignored/);
      assert.equal(await p1.page.isDisabled('[data-testid="start"]'), false, 'the defaults are usable');
    });
  } finally {
    await p1.close();
  }
  // Bad values in a link: an unknown preset and key are named; out-of-range values are inline errors.
  const p2 = await open(`/?${NANO}&preset=ppo-xl&learning_rat=1&num_generations=1&temperature=hot`);
  try {
    await withDiagnostics(testInfo, p2, 'reliability-bad-link', async () => {
      const { page } = p2;
      const notes = await text(page, 'url-notes');
      assert.match(notes, /unknown preset "ppo-xl"/);
      assert.match(notes, /unknown setting "learning_rat"/);
      await page.waitForSelector('[data-testid="error-num_generations"]');
      assert.equal(await page.isDisabled('[data-testid="start"]'), true, 'nothing starts with invalid values');
    });
  } finally {
    await p2.close();
  }
  // Files, with a run in progress.
  const p3 = await open(`/?${NANO}`);
  try {
    await withDiagnostics(testInfo, p3, 'reliability-bad-files', async () => {
      const { page } = p3;
      await page.click('[data-testid="step-once"]');
      await page.waitForFunction(
        () => window.__rlvr.state().run.metrics.length === 1 && window.__rlvr.state().run.state === 'paused',
        undefined,
        { timeout: 150_000 },
      );
      await page.click('[data-testid="tab-share"]');
      const before = await state(page);
      const files = [
        ['config.json', '{"learning_rate": 0.1,', /not valid JSON/],
        ['config.json', '{"learning_rat": 0.1}', /learning_rat: unknown field/],
        ['config.json', '{"num_generations": 1000}', /num_generations: must be <= 64/],
        ['config.json', '{"preset": "ppo-xl"}', /unknown preset "ppo-xl"/],
        ['config.json', '[]', /must hold one JSON object/],
        [
          'big.json',
          `{"seed": 1, "x": "${'x'.repeat(300 * 1024)}"}`,
          /big\.json is 300 KB; a config file may be at most 256 KB/,
        ],
      ];
      for (const [name, body, message] of files) {
        await page.setInputFiles('[data-testid="load-config"]', [
          { name, mimeType: 'application/json', buffer: Buffer.from(body) },
        ]);
        await page.waitForSelector('[data-testid="error-banner"]', { timeout: 10_000 });
        const m = await text(page, 'error-message');
        assert.match(m, message);
        assert.match(m, /Nothing was changed\.$/);
        await page.click('[data-testid="dismiss-error"]');
      }
      // A checkpoint manifest over its size cap is refused before it is read.
      await page.setInputFiles('[data-testid="load-checkpoint"]', [
        { name: 'manifest.json', mimeType: 'application/json', buffer: Buffer.alloc(2 * 1024 * 1024, 32) },
        { name: 'w.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.alloc(16) },
      ]);
      await page.waitForSelector('[data-testid="error-banner"][data-kind="checkpoint"]', { timeout: 10_000 });
      assert.match(
        await text(page, 'error-message'),
        new RegExp(
          String.raw`manifest\.json is 2\.0 MB; a checkpoint manifest may be at most ` +
            String.raw`1\.0 MB, so it was not read\. The current model is unchanged\.`,
        ),
      );
      await page.click('[data-testid="dismiss-error"]');
      const after = await state(page);
      assert.deepEqual(after.setup, before.setup, 'the setup form is as it was');
      assert.deepEqual(after.run.config, before.run.config, 'the run config is as it was');
      assert.equal((await page.evaluate(() => window.__rlvr.status())).step, 1, 'the worker still has the same run');
      // And a good config file is applied (to the form; its live knobs to the run).
      await page.setInputFiles('[data-testid="load-config"]', [
        {
          name: 'good.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify({ learning_rate: 0.0007, model: undefined })),
        },
      ]);
      await page.waitForFunction(() => window.__rlvr.state().run.config?.learning_rate === 0.0007, undefined, {
        timeout: 10_000,
      });
      assert.deepEqual(p3.pageErrors, []);
    });
  } finally {
    await p3.close();
  }
});
