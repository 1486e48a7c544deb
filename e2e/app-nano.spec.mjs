// Fresh nano models in the playground, on the production build (alone:
// `npx vite build && npx playwright test e2e/app-nano.spec.mjs`): the forced-WebGPU (SwiftShader) path,
// and the SFT warm start followed by RL steps. Screenshots go to test-results/.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage } from './lib.mjs';
import { appHooks, browser, shot, state, text, timings, withDiagnostics } from './app-lib.mjs';

appHooks(test, 'app-nano-e2e.json');

test('forced WebGPU (SwiftShader) with a fresh nano model: a full step', async ({}, testInfo) => {
  test.setTimeout(600_000);
  const q =
    'task=arithmetic&backend=webgpu&model=nano&prompts_per_step=2&num_generations=2&max_completion_length=8' +
    '&eval_every=0&difficulty.digits=1&difficulty.ops=%2B&steps=1';
  const p = await openPage(browser, `/?${q}`, { viewport: { width: 1280, height: 720 } });
  try {
    await withDiagnostics(testInfo, p, 'app-webgpu', async () => {
      const { page } = p;
      const t0 = Date.now();
      await page.click('[data-testid="step-once"]');
      await page.waitForFunction(
        () => window.__rlvr.state().run.metrics.length >= 1 || window.__rlvr.state().error,
        undefined,
        { timeout: 580_000, polling: 1000 },
      );
      const s = await state(page);
      assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
      timings.webgpu = { firstStepSeconds: (Date.now() - t0) / 1000, backend: s.run.backend, model: s.run.model.name };
      note(
        testInfo,
        `${s.run.backend.description} (${s.run.backend.reason}` +
          `): first step in ${timings.webgpu.firstStepSeconds.toFixed(0)} ` +
          's',
      );
      assert.equal(s.run.backend.kind, 'webgpu');
      assert.match(await text(page, 'backend'), /WebGPU/);
      assert.equal(s.run.model.parameters < 50_000, true, 'the nano model');
      assert.equal(await text(page, 'step-count'), 'Step 1');
      assert.ok(Number.isFinite(s.run.metrics[0].loss));
      // A step budget of 1 (steps=1 in the URL): the progress bar is full and the run is done.
      await page.waitForFunction(() => window.__rlvr.state().run.state === 'done', undefined, { timeout: 10_000 });
      assert.equal(await page.getAttribute('[data-testid="progress"]', 'value'), '1');
      await shot(page, 'app-webgpu');
    });
  } finally {
    await p.close();
  }
});

test(
  'SFT warm start in the browser: a fresh nano model ' + 'learns the format, then RL steps from it',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const q =
      'task=arithmetic&model=nano&prompts_per_step=2&num_generations=4&max_completion_length=8' +
      '&eval_every=0&difficulty.digits=1&difficulty.ops=%2B&steps=1';
    const p = await openPage(browser, `/?${q}`, { viewport: { width: 1280, height: 900 } });
    try {
      await withDiagnostics(testInfo, p, 'app-warm-start', async () => {
        const { page } = p;
        await page.fill('[data-testid="warm-start-steps"]', '80');
        // Every measured estimate as it changes, to compare with the time that was actually left.
        await page.evaluate(() => {
          window.__estimates = [];
          new MutationObserver(() => {
            const e = document.querySelector('[data-testid="warm-start-progress-left"]')?.textContent ?? '';
            if (e && window.__estimates.at(-1)?.text !== e) window.__estimates.push({ t: performance.now(), text: e });
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        });
        await page.click('[data-testid="warm-start-run"]');
        await page.waitForSelector('[data-testid="warm-start-result"]', { timeout: 280_000 });
        const { estimates, doneAt } = await page.evaluate(() => ({
          estimates: window.__estimates,
          doneAt: performance.now(),
        }));
        if (estimates.length > 0) {
          const mid = estimates[Math.floor(estimates.length / 2)];
          const said = Number(/about (\d+) (s|min)/.exec(mid.text)?.[1] ?? NaN) * (/min/.test(mid.text) ? 60 : 1);
          note(
            testInfo,
            `warm start estimate "${mid.text.trim()}" with ${((doneAt - mid.t) / 1000).toFixed(1)} s actually left`,
          );
          assert.ok(Number.isFinite(said), mid.text);
        }
        const s = await state(page);
        assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
        const r = s.warmStart.result;
        note(
          testInfo,
          `warm start: ${r.steps} SFT steps in ${r.seconds.toFixed(1)} ` +
            `s, loss ${r.firstLoss.toFixed(3)} -> ${r.lastLoss.toFixed(3)}`,
        );
        assert.equal(r.steps, 80);
        assert.ok(r.lastLoss < r.firstLoss * 0.6, `SFT loss must fall: ${r.firstLoss} -> ${r.lastLoss}`);
        assert.match(await text(page, 'warm-start-result'), /80 SFT steps/);
        // RL starts from the warm-started weights; the warm start is refused once RL has begun.
        await page.click('[data-testid="step-once"]');
        await page.waitForFunction(
          () => window.__rlvr.state().run.metrics.length >= 1 || window.__rlvr.state().error,
          undefined,
          { timeout: 120_000, polling: 500 },
        );
        const after = await state(page);
        assert.equal(after.error, null, after.error && `${after.error.title}: ${after.error.message}`);
        assert.ok(Number.isFinite(after.run.metrics[0].loss));
        assert.equal(await page.isDisabled('[data-testid="warm-start-run"]'), true);
        await shot(page, 'app-warm-start');
      });
    } finally {
      await p.close();
    }
  },
);
