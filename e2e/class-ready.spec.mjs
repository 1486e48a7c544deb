// Ready for a class: Compare's charts say why a quantity cannot move (the Charts tab's own notes), and
// every long piece of work says how long it will take on this device before it starts ("about N min",
// measured from the device's own steps) and while it runs.
// (alone: `npx vite build && npx playwright test e2e/class-ready.spec.mjs`)
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage, screenshot, waitForPage, withPageDiagnostics } from './lib.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

/** A small run, so its steps take seconds. */
const SMALL = '/?backend=wasm&task=arithmetic&prompts_per_step=2&num_generations=4';

async function open(path) {
  const p = await openPage(browser, path);
  await p.page.waitForFunction(() => !!window.__rlvr && window.__rlvr.state().booted, undefined, { timeout: 30_000 });
  return p;
}

const text = (page, testId) => page.textContent(`[data-testid="${testId}"]`);

test(
  "Compare's KL and clip charts carry the Charts " + "tab's notes (KL is off, on-policy) instead of a " + 'flat line',
  async ({}, testInfo) => {
    // Two runs' first step missed a 150 s wait at load average 17 on this 2-core machine: the limits
    // only catch a hang.
    test.setTimeout(480_000);
    // No held-out evaluation: the notes are about KL and clipping, and the two step-0 evaluations (32
    // prompts x 4 samples each) were most of this test's time.
    const p = await open(`${SMALL}&eval_every=0`);
    try {
      await withPageDiagnostics(testInfo, p, 'class-compare-notes', async () => {
        const { page } = p;
        // The Charts tab's notes for this setup (beta = 0; one pass, one minibatch).
        const klNote = (await text(page, 'chart-kl-constant')).trim();
        const clipNote = (await text(page, 'chart-clip-constant')).trim();
        assert.match(klNote, /^KL is off/);
        assert.match(clipNote, /^Updates are on-policy/);
        await page.click('[data-testid="tab-compare"]');
        await page.fill('#compare-steps', '1');
        await page.click('[data-testid="compare-start"]');
        await waitForPage(
          page,
          () => {
            const c = window.__rlvr.state().compare;
            return (c.a.metrics.length >= 1 && c.b.metrics.length >= 1) || c.a.error || c.b.error;
          },
          { timeout: 420_000, polling: 250 },
        );
        for (const [metric, charts] of [
          ['kl', klNote],
          ['clip_ratio/low_mean', clipNote],
          ['clip_ratio/high_mean', clipNote],
        ]) {
          const chart = page.locator(`[data-testid="compare-chart-${metric}"]`);
          await chart.scrollIntoViewIfNeeded();
          const noteEl = page.locator(`[data-testid="compare-chart-${metric}-constant"]`);
          await noteEl.waitFor({ timeout: 10_000 });
          const shown = (await noteEl.textContent()).trim();
          assert.ok(shown.startsWith(charts), `${metric}: Compare says "${shown}", the Charts tab "${charts}"`);
          assert.equal(await chart.getAttribute('data-constant'), 'true', `${metric}: one note for both runs`);
          assert.equal(
            await chart.locator('.recharts-line').count(),
            0,
            `${metric}: no flat line drawn under the note`,
          );
        }
        // The reward chart, which can move, is drawn.
        await page.locator('[data-testid="compare-chart-reward"]').scrollIntoViewIfNeeded();
        await page
          .locator('[data-testid="compare-chart-reward"] .recharts-line')
          .first()
          .waitFor({ state: 'attached', timeout: 10_000 });
        await screenshot(page, 'class-compare-notes');
        note(testInfo, `Compare's KL note: "${klNote.slice(0, 60)}…"; clip: "${clipNote.slice(0, 60)}…"`);
      });
    } finally {
      await p.page
        .getByRole('button', { name: 'Stop and free the workers' })
        .click({ timeout: 5_000 })
        .catch(() => undefined);
      await p.close();
    }
  },
);

test(
  'time estimates: "about N min on this device" ' +
    'before a run, Compare, a lesson and pass@k, ' +
    'measured from the first steps and updated while it ' +
    'runs',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await open(`${SMALL}&steps=30`);
    try {
      await withPageDiagnostics(testInfo, p, 'class-estimates', async () => {
        const { page } = p;
        // A device that has not trained yet says when it will know.
        assert.match(await text(page, 'time-estimate'), /30 steps: time known after the first steps on this device/);
        await page.click('[data-testid="start"]');
        // While it trains: the time left, from the run's own steps.
        const running = await waitForPage(
          page,
          () => {
            const t = document.querySelector('[data-testid="time-estimate"]')?.textContent ?? '';
            return /about \d+ (s|min) left on this device/.test(t) && t;
          },
          { timeout: 180_000, polling: 250 },
        );
        await page.click('[data-testid="pause"]');
        await waitForPage(page, () => ['paused', 'done'].includes(window.__rlvr.state().run.state), {
          timeout: 60_000,
        });
        const s = await page.evaluate(() => window.__rlvr.state());
        assert.ok(
          s.pace && s.pace.sampling > 0 && s.pace.backend === 'wasm',
          `a pace was measured: ${JSON.stringify(s.pace)}`,
        );
        // Before the rest of the budget: from the measured pace.
        const rest = await text(page, 'time-estimate');
        assert.match(rest, new RegExp(`^${30 - s.run.step} steps: about \\d+ (s|min) on this device$`));
        // Compare, before "Run both".
        await page.click('[data-testid="tab-compare"]');
        const compare = await text(page, 'compare-estimate');
        assert.match(compare, /^20 steps each: about \d+ (s|min) on this device$/);
        // pass@k, before pressing it.
        await page.click('[data-testid="tab-passk"]');
        const passk = await text(page, 'passk-estimate');
        assert.match(passk, /about \d+ (s|min) on this device/);
        // Every lesson, before "Open and run".
        await page.click('[data-testid="tab-lessons"]');
        await page.waitForSelector('[data-testid="lessons-gallery"]');
        const lessons = await page.$$eval('[data-testid^="lesson-estimate-"]', (els) =>
          els.map((e) => [e.getAttribute('data-testid'), e.textContent]),
        );
        assert.ok(lessons.length >= 2, 'an estimate on every lesson card');
        for (const [id, t] of lessons) assert.match(t, /^about \d+ (s|min) on this device$/, id);
        // The pace is the device's: kept across a reload.
        await page.reload();
        await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
        assert.ok((await page.evaluate(() => window.__rlvr.state().pace)) !== null, 'the pace survives a reload');
        await screenshot(page, 'class-estimates');
        note(
          testInfo,
          `while training: "${running}"; after ${s.run.step} ` +
            `steps: "${rest}"; Compare: "${compare}"; pass@k: "` +
            `${passk}"; lessons: ${lessons.map(([id, t]) => `${id.slice('lesson-estimate-'.length)} ${t}`).join('; ')}`,
        );
      });
    } finally {
      await p.close();
    }
  },
);
