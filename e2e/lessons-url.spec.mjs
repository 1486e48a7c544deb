// Lessons opened from their links, end to end on the production build (alone:
// `npx vite build && npx playwright test e2e/lessons-url.spec.mjs`).
//
// Every lesson opens from `?lesson=ID` (nothing starts before "Run it live" is pressed), two of them
// followed further, and an unknown id shows the known ones. Timings go to test-results/lessons-url-e2e.json.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, screenshot } from './lib.mjs';
import {
  assertFocusCharts,
  assertLessonConfigs,
  browser,
  closePage,
  externalRequests,
  lessons,
  lessonsHooks,
  open,
  pageErrors,
  runItLive,
  shot,
  timings,
  waitForRuns,
  withDiagnostics,
} from './lessons-lib.mjs';

lessonsHooks(test, 'lessons-url-e2e.json');

test(
  '?lesson=noisy-verifiers&steps=1 opens that lesson ' + 'and starts its three runs when "Run it live" is ' + 'pressed',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const t0 = Date.now();
    const p = await open('/?lesson=noisy-verifiers&steps=1');
    try {
      await withDiagnostics(testInfo, p, 'lessons-url', async () => {
        const { page } = p;
        const lesson = lessons.find((l) => l.id === 'noisy-verifiers');
        await runItLive(page, lesson.id);
        await page.waitForSelector('[data-testid="view-compare"]', { timeout: 30_000 });
        const c = await waitForRuns(page, 3, { timeout: 100_000 });
        assertLessonConfigs(lesson, c, 1);
        assert.equal(c.c.config.noise_p_fn, 0.2);
        assert.equal(c.c.config.prompts_per_step, 22);
        assert.deepEqual(
          c.diff.map(([k]) => k).sort(),
          ['noise_p_fn', 'noise_p_fp', 'prompts_per_step'],
          'the three runs differ only in the noise and, for the compensated run, the prompts per step',
        );
        assert.equal(
          await page.$$eval('[data-testid="compare-diff"] thead th', (els) => els.length),
          4,
          'field, A, B, C',
        );
        assert.equal(new URL(page.url()).search, '?lesson=noisy-verifiers&steps=1');
        await assertFocusCharts(page, lesson);
        assert.equal(await page.$('[data-testid="url-notes"]'), null, 'no complaints about the link');
        timings.url = { 'noisy-verifiers': { startedSeconds: (Date.now() - t0) / 1000 } };
        note(
          testInfo,
          `three runs initialised and training ${((Date.now() - t0) / 1000).toFixed(1)} s after navigation`,
        );
        await shot(page, 'lessons-url-three-runs');
        await page.click('text=Stop and free the workers');
      });
    } finally {
      await closePage(p);
    }
  },
);

test("?lesson=sharpening opens with the lesson's own step budget and evaluates pass@k", async ({}, testInfo) => {
  test.setTimeout(120_000);
  const t0 = Date.now();
  const p = await open('/?lesson=sharpening');
  try {
    await withDiagnostics(testInfo, p, 'lessons-url-2', async () => {
      const { page } = p;
      const lesson = lessons.find((l) => l.id === 'sharpening');
      await runItLive(page, lesson.id);
      const c = await waitForRuns(page, 2, { timeout: 100_000 });
      assertLessonConfigs(lesson, c, lesson.steps);
      assert.ok(c.a.config.eval_every > 0, 'pass@k lessons evaluate held-out pass@k (step 0 = the base)');
      assert.equal(new URL(page.url()).search, '?lesson=sharpening');
      assert.equal(await page.inputValue('[data-testid="preset"]'), 'psr_only', 'the setup form shows run A');
      assert.equal(await page.inputValue('[data-testid="compare-preset-b"]'), 'nsr_only', "Compare's B shows run B");
      await assertFocusCharts(page, lesson);
      timings.url.sharpening = { startedSeconds: (Date.now() - t0) / 1000 };
      // Editing the setup leaves the lesson's URL for the plain config.
      await page.fill('[data-testid="field-learning_rate"]', '0.0003');
      await page.waitForFunction(() => !location.search.includes('lesson='));
      assert.match(new URL(page.url()).search, /learning_rate=0\.0003/);
      assert.match(new URL(page.url()).search, /preset=psr_only/);
      await page.click('text=Stop and free the workers');
    });
  } finally {
    await closePage(p);
  }
});

test(
  'every lesson opens from its own URL ' + '(?lesson=ID&steps=1) and starts its runs with the ' + 'lesson configs',
  async ({}, testInfo) => {
    // 12 lessons of 2-3 runs each: 20 s a lesson on this 2-core machine, twice that when it is loaded
    // (measured 17-39 s at load average 14); the limit only catches a hang.
    test.setTimeout(900_000);
    const problems = [];
    // One browser context, a new tab per lesson: each lesson still opens from its own URL in a fresh page
    // (fresh workers), and the tabs share the HTTP cache, so the model and the WASM are not fetched and
    // compiled again for every lesson.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    for (const lesson of lessons) {
      const t0 = Date.now();
      const p = await open(`/?lesson=${lesson.id}&steps=1`, context);
      try {
        const { page } = p;
        await runItLive(page, lesson.id);
        await page.waitForSelector('[data-testid="view-compare"]', { timeout: 30_000 });
        const c = await waitForRuns(page, lesson.runs.length, { timeout: 100_000 });
        assertLessonConfigs(lesson, c, 1);
        assert.deepEqual(p.pageErrors, []);
        note(
          testInfo,
          `${lesson.id}: ${lesson.runs.length} runs started from its URL in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
        );
      } catch (e) {
        problems.push(`${lesson.id}: ${e.message.split('\n')[0]}`);
        await screenshot(p.page, `lessons-url-${lesson.id}-FAILED`).catch(() => undefined);
      } finally {
        await closePage(p);
      }
    }
    await context.close();
    assert.deepEqual(problems, [], 'every lesson opens from its URL and its runs start');
  },
);

test('an unknown lesson id lists the known ones and keeps the rest of the link', async ({}, testInfo) => {
  test.setTimeout(60_000);
  const p = await open('/?lesson=bogus&preset=dapo&steps=7');
  try {
    await withDiagnostics(testInfo, p, 'lessons-unknown', async () => {
      const { page } = p;
      await page.waitForSelector('[data-testid="lesson-notice"]', { timeout: 20_000 });
      const notice = await page.textContent('[data-testid="lesson-notice"]');
      const notes = await page.textContent('[data-testid="url-notes"]');
      for (const l of lessons) {
        assert.ok(notice.includes(l.id), `the notice lists ${l.id}`);
        assert.ok(notes.includes(l.id), `the link notes list ${l.id}`);
      }
      assert.match(notice, /unknown lesson "bogus"/);
      assert.equal(await page.inputValue('[data-testid="preset"]'), 'dapo', 'the rest of the link still applies');
      assert.equal(await page.inputValue('[data-testid="step-budget"]'), '7');
      const s = await page.evaluate(() => window.__rlvr.state());
      assert.equal(s.lesson.active, null);
      assert.equal(s.compare.a.state, 'idle', 'nothing started');
      assert.equal(s.run.state, 'idle');
      assert.equal(page.workers().filter((w) => w.url().includes('trainer.worker')).length, 0, 'no trainer worker');
      await shot(page, 'lessons-unknown');
    });
  } finally {
    await closePage(p);
  }
});

test('no uncaught errors and nothing fetched from outside the app', async () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(externalRequests, []);
});
