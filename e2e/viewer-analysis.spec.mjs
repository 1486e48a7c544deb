// The run viewer's filters, histogram and aligned runs under `rlvr view` (a child process, as findings.spec.mjs
// starts it). A veRL dump written as veRL writes it (src/runs/verl-fixture.ts follows
// verl/trainer/ppo/ray_trainer.py `_dump_generations`, with a per-sample `acc` reward field) is opened from a
// link that filters by that reward function (`f.r.acc=1..`): the search runs, its count is the dump's rows
// with acc = 1, and its histogram's bars add up to it; a click on a bar keeps exactly that bar's rows. Then two
// arms of a shipped lesson recording (the same seed: the same prompts at each step) are aligned from the
// compare control, showing every prompt the step sampled, side by side.
//
// Needs dist/ (`npx vite build`); run with `npx playwright test e2e/viewer-analysis.spec.mjs`.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, openPage, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';
import { startView } from './viewer-lib.mjs';

const STEPS = 12;
const ROWS = 8;
const score = (s, i) => [0, 0.25, 0.5, 0.75, 1][(s * 3 + i) % 5];
const acc = (s, i) => ((s + i) % 3 === 0 ? 1 : 0);
const ARMS = ['random_20_.rlvr.gz', 'top_20_entropy.rlvr.gz'];

test('a reward function filter from the link, a histogram bar clicked, two runs aligned', async ({
  browser,
}, testInfo) => {
  test.setTimeout(60_000);
  const { verlDumpGenerations } = await importTs('src/runs/verl-fixture.ts');
  const dir = mkdtempSync(join(tmpdir(), 'rlvr-e2e-analysis-'));
  mkdirSync(join(dir, 'dump'));
  const rows = [];
  for (let s = 1; s <= STEPS; s++) {
    const idx = Array.from({ length: ROWS }, (_, i) => i);
    const d = verlDumpGenerations({
      step: s,
      inputs: idx.map((i) => `What is ${s} + ${i >> 1}?`),
      outputs: idx.map((i) => `The answer is ${s + (i >> 1) + (i % 2)}.`),
      gts: null,
      scores: idx.map((i) => score(s, i)),
      rewardExtraInfos: { acc: idx.map((i) => acc(s, i)) },
    });
    writeFileSync(join(dir, 'dump', d.name), d.text);
    for (const i of idx) rows.push({ step: s, row: i, score: score(s, i), acc: acc(s, i) });
  }
  const lesson = join(ROOT, 'public/records/lessons/forking-tokens/seed-11');
  for (const arm of ARMS) copyFileSync(join(lesson, arm), join(dir, arm));
  const view = await startView(dir);
  const p = await openPage(browser, '/?view=dump&f.r.acc=1..', { base: view.url });
  try {
    await withPageDiagnostics(testInfo, p, 'viewer-analysis', async () => {
      const { page } = p;
      const status = '[data-testid="viewer-search-status"]';
      const searched = (n) =>
        page.waitForFunction(
          ([sel, want]) => {
            const el = document.querySelector(sel);
            return el?.dataset.running === 'false' && el.dataset.count === String(want);
          },
          [status, n],
          { timeout: 30_000 },
        );
      // The link's filter fills the form and runs: the rows whose acc is 1.
      const correct = rows.filter((r) => r.acc === 1);
      await searched(correct.length);
      assert.equal(await page.inputValue('[data-testid="viewer-search-r-acc"]'), '1');
      const bars = await page.$$eval('[data-testid="viewer-histogram-bar"]', (els) =>
        els.map((e) => ({ min: Number(e.dataset.min), max: Number(e.dataset.max), count: Number(e.dataset.count) })),
      );
      const scores = [...new Set(correct.map((r) => r.score))].sort((a, b) => a - b);
      assert.deepEqual(
        bars,
        scores.map((v) => ({ min: v, max: v, count: correct.filter((r) => r.score === v).length })),
      );
      const histogram = page.locator('[data-testid="viewer-histogram"]');
      await histogram.screenshot({ path: await screenshot(page, 'viewer-analysis-histogram') });
      // A bar clicked: only its rows, and the link says so.
      const bar = bars[1];
      await page.click(`[data-testid="viewer-histogram-bar"][data-min="${bar.min}"]`);
      await searched(bar.count);
      const shown = await page.$$eval('[data-testid="viewer-hit"]', (els) =>
        els.map((e) => [Number(e.dataset.step), Number(e.dataset.row), Number(e.dataset.reward)]),
      );
      const want = correct.filter((r) => r.score === bar.min).map((r) => [r.step, r.row, r.score]);
      assert.deepEqual(shown, want);
      const link = new URL(page.url()).searchParams;
      assert.deepEqual([link.get('f.r.acc'), link.get('f.r')], ['1..', `${bar.min}..${bar.max}`]);

      // Two arms of one seed, aligned from the compare control at the open step.
      const { openRun, memoryRunFiles } = {
        ...(await importTs('src/runs/detect.ts')),
        ...(await importTs('src/runs/memory-files.ts')),
      };
      const bytes = new Uint8Array(readFileSync(join(lesson, ARMS[0])));
      const arm = await openRun(memoryRunFiles('x', { [ARMS[0]]: bytes }), {
        path: ARMS[0],
        name: ARMS[0],
        format: 'record',
      });
      const first = await arm.readStep(arm.index.steps[0]);
      const prompts = new Set(first.groups.map((g) => g.prompt));
      await page.click(`[data-testid="viewer-run"][data-name="${ARMS[0]}"] [data-testid="viewer-run-open"]`);
      await page.waitForFunction(
        (s) => document.querySelector('[data-testid="viewer-step"]')?.textContent?.startsWith(`step ${s} `),
        first.step,
      );
      await page.check(`[data-testid="viewer-run"][data-name="${ARMS[1]}"] [data-testid="viewer-compare"]`);
      await page.click('[data-testid="viewer-align-compared"]');
      const summary = page.locator('[data-testid="viewer-aligned-summary"]');
      await summary.waitFor({ timeout: 20_000 });
      assert.equal(await summary.getAttribute('data-shared'), String(prompts.size));
      assert.equal(await summary.getAttribute('data-step-b'), String(first.step));
      const aligned = await page.$$eval('[data-testid="viewer-aligned-prompt"]', (trs) =>
        trs.map((tr) => [
          tr.querySelector('th pre')?.textContent,
          tr.querySelectorAll('[data-testid="viewer-aligned-a"] li').length,
          tr.querySelectorAll('[data-testid="viewer-aligned-b"] li').length,
        ]),
      );
      assert.deepEqual(
        aligned.map((a) => a[0]),
        [...prompts],
      );
      const alignedView = page.locator('[data-testid="viewer-aligned"]');
      await alignedView.screenshot({ path: await screenshot(page, 'viewer-analysis-aligned') });
      for (const [prompt, a, b] of aligned) {
        const n = first.groups.filter((g) => g.prompt === prompt).reduce((k, g) => k + g.completions.length, 0);
        assert.deepEqual([a, b], [n, n], prompt);
      }
    });
  } finally {
    await p.close();
    view.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
