// The "Benchmark this device" panel (?bench=1) on the production build: a GRPO step of a fresh nano
// model timed on the WASM EP and on WebGPU through Chromium's SwiftShader adapter (forced with
// ?backend=webgpu), the adapter line, steps/s, the WebGPU/WASM ratio and the downloaded JSON.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, openPage, RESULTS_DIR, screenshot, waitForPage, withPageDiagnostics } from './lib.mjs';

const SMALL_RUN =
  'task=arithmetic&model=nano&prompts_per_step=2&num_generations=2&max_completion_length=8' +
  '&difficulty.digits=1&difficulty.ops=%2B';
const STEPS = 2;

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);

test(
  '?bench=1 opens the panel; a software-only adapter ' + 'is named and not measured unless forced',
  async ({}, testInfo) => {
    test.setTimeout(60_000);
    const p = await openPage(browser, `/?bench=1&${SMALL_RUN}`);
    try {
      await withPageDiagnostics(testInfo, p, 'bench-unforced', async () => {
        const { page } = p;
        await page.waitForSelector('[data-testid="bench-panel"]', { timeout: 20_000 });
        assert.equal(await page.getAttribute('[data-testid="tab-bench"]', 'aria-selected'), 'true');
        await waitForPage(
          page,
          () => !document.querySelector('[data-testid="bench-adapter"]')?.textContent?.includes('probing'),
          { timeout: 20_000 },
        );
        const adapter = await text(page, 'bench-adapter');
        note(testInfo, `adapter line: ${adapter}`);
        assert.match(adapter, /swiftshader/i, 'headless Chromium offers SwiftShader');
        assert.match(adapter, /software adapter/);
        assert.match(adapter, /\?backend=webgpu/, 'says how to measure it anyway');
        assert.equal(await page.isDisabled('[data-testid="bench-run-webgpu"]'), true);
        assert.equal(await page.isDisabled('[data-testid="bench-run"]'), false);
        assert.equal(await page.isDisabled('[data-testid="bench-download"]'), true, 'nothing to download yet');
        assert.deepEqual(p.pageErrors, []);
        // The bench keys are not settings: no "unknown setting" note about them.
        assert.equal(
          (await page.evaluate(() => window.__rlvr.state().urlNotes)).filter((n) => /bench/.test(n)).length,
          0,
        );
      });
    } finally {
      await p.close();
    }
  },
);

test('WASM and WebGPU (SwiftShader, forced): steps/s, adapter, ratio and the JSON download', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const p = await openPage(browser, `/?bench=1&bench_steps=${STEPS}&backend=webgpu&${SMALL_RUN}`);
  try {
    await withPageDiagnostics(testInfo, p, 'bench-run', async () => {
      const { page } = p;
      await page.waitForSelector('[data-testid="bench-panel"]', { timeout: 20_000 });
      await waitForPage(
        page,
        () => !document.querySelector('[data-testid="bench-adapter"]')?.textContent?.includes('probing'),
        { timeout: 20_000 },
      );
      assert.equal(
        await page.isDisabled('[data-testid="bench-run-webgpu"]'),
        false,
        'forced: the software adapter is measured',
      );
      // Record every progress line the panel shows while it runs.
      await page.evaluate(() => {
        const seen = new Set();
        window.__benchProgress = seen;
        new MutationObserver(() => {
          const el = document.querySelector('[data-testid="bench-progress"]');
          if (el?.textContent) seen.add(el.textContent);
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      const t0 = Date.now();
      await page.click('[data-testid="bench-run"]');
      await waitForPage(
        page,
        () => document.querySelector('[data-testid="bench-run"]')?.textContent === 'Benchmarking…',
        { timeout: 5_000 },
      );
      assert.equal(await page.isDisabled('[data-testid="bench-run"]'), true, 'busy: the button is disabled');
      assert.equal(await page.getAttribute('[data-testid="bench-panel"]', 'aria-busy'), 'true');
      await page.waitForSelector('[data-testid="bench-result"], [data-testid="bench-error"]', { timeout: 200_000 });
      const err = await page.$('[data-testid="bench-error"]');
      if (err) assert.fail(`the benchmark failed: ${await err.textContent()}`);
      note(testInfo, `benchmark of ${STEPS} steps on each backend in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      const progress = await page.evaluate(() => [...window.__benchProgress]);
      note(testInfo, `progress lines: ${progress.join(' | ')}`);
      for (const line of [
        'WASM: loading the model',
        'WASM: warm-up step 1 of 1',
        `WASM: step 1 of ${STEPS}`,
        `WASM: step ${STEPS} of ${STEPS}`,
        `WebGPU: step ${STEPS} of ${STEPS}`,
      ]) {
        assert.ok(progress.includes(line), `progress shows "${line}"`);
      }
      assert.equal(await page.isDisabled('[data-testid="bench-run"]'), false, 'idle again');

      const sps = {};
      for (const k of ['wasm', 'webgpu']) {
        sps[k] = Number(await page.getAttribute(`[data-testid="bench-row-${k}"]`, 'data-steps-per-second'));
        assert.ok(Number.isFinite(sps[k]) && sps[k] > 0, `${k}: finite positive steps/s (got ${sps[k]})`);
      }
      assert.match(await text(page, 'bench-row-wasm'), /^WASM, \d+ threads?/);
      assert.match(await text(page, 'bench-row-webgpu'), /^WebGPU/);
      const ratio = Number(await page.getAttribute('[data-testid="bench-ratio"]', 'data-ratio'));
      assert.ok(Number.isFinite(ratio) && ratio > 0, `finite positive ratio (got ${ratio})`);
      assert.ok(Math.abs(ratio - sps.webgpu / sps.wasm) <= 0.01 * ratio, 'ratio = WebGPU steps/s ÷ WASM steps/s');
      assert.match(await text(page, 'bench-ratio'), /WebGPU\/WASM: [\d.]+×/);
      assert.match(await text(page, 'bench-adapter'), /swiftshader/i);
      note(testInfo, `WASM ${sps.wasm} steps/s, WebGPU (SwiftShader) ${sps.webgpu} steps/s, ratio ${ratio}`);
      await screenshot(page, 'bench-panel');

      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="bench-download"]')]);
      assert.match(dl.suggestedFilename(), /^rlvr-benchmark-.*\.json$/);
      const chunks = [];
      for await (const c of await dl.createReadStream()) chunks.push(c);
      const report = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(join(RESULTS_DIR, 'bench-panel.json'), JSON.stringify(report, null, 2));
      assert.equal(report.kind, 'rlvr-device-benchmark');
      assert.equal(report.browser.user_agent, await page.evaluate(() => navigator.userAgent));
      assert.equal(report.browser.hardware_concurrency, await page.evaluate(() => navigator.hardwareConcurrency));
      assert.equal(report.browser.cross_origin_isolated, true);
      assert.match(
        `${report.adapter.vendor} ${report.adapter.architecture} ${report.adapter.description}`,
        /swiftshader/i,
      );
      assert.equal(report.adapter.software, true);
      assert.equal(report.model.name.includes('nano'), true, report.model.name);
      assert.ok(report.model.parameters > 0 && report.model.parameters < 50_000);
      assert.deepEqual(report.batch, { prompts_per_step: 2, num_generations: 2, max_completion_length: 8, rows: 4 });
      assert.equal(report.warmup_steps, 1);
      assert.equal(report.measured_steps, STEPS);
      for (const k of ['wasm', 'webgpu']) {
        const r = report[k];
        assert.equal(r.step_seconds.length, STEPS);
        assert.equal(r.warmup_seconds.length, 1);
        assert.ok(r.step_seconds.every((s) => Number.isFinite(s) && s > 0));
        const sorted = [...r.step_seconds].sort((a, b) => a - b);
        assert.ok(
          Math.abs(r.median_step_seconds - (sorted[0] + sorted[1]) / 2) < 1e-3,
          `${k}: median of the measured steps`,
        );
        assert.equal(r.steps_per_second, sps[k], `${k}: JSON steps/s = shown steps/s`);
      }
      assert.equal(report.webgpu_over_wasm, ratio);
      assert.equal(report.webgpu_note, null);
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await p.close();
  }
});
