// Guided experiments end to end, on the production build served by `vite preview`
// (playwright.config.ts's webServer starts it; alone: `npx vite build && npx playwright test e2e/lessons.spec.mjs`).
//
// The gallery shows every lesson with its claim and measured outcome (public/lessons/measured.json,
// or "not measured yet"); each of the lessons opens from its card and its runs start in Compare with
// the lesson's configs (one-step budgets: one lesson is followed until every run has a first step, the
// others until their runs are live with the lesson's configs, each after "Run it live"). Lessons opened
// from their links, each until its runs train: lessons-url.spec.mjs. Timings go to test-results/lessons-e2e.json.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, RESULTS_DIR, screenshot, serverUrl } from './lib.mjs';
import {
  assertFocusCharts,
  assertLessonConfigs,
  closePage,
  externalRequests,
  FULL,
  lessons,
  lessonsHooks,
  open,
  pageErrors,
  perSeedVerdicts,
  realMeasured,
  shot,
  shots,
  SIDES,
  timings,
  verdictBody,
  waitForRuns,
  withDiagnostics,
} from './lessons-lib.mjs';

lessonsHooks(test, 'lessons-e2e.json');

test(
  'the gallery shows every lesson: claim, text, what ' +
    'to look at, and its measured outcome or "not ' +
    'measured yet"',
  async ({}, testInfo) => {
    test.setTimeout(90_000);
    const p = await open('/');
    const measuredRequests = [];
    p.page.on('request', (r) => r.url().includes('measured.json') && measuredRequests.push(r.url()));
    try {
      await withDiagnostics(testInfo, p, 'lessons-gallery', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-lessons"]');
        await page.waitForSelector('[data-testid="lessons-gallery"]');
        await page.waitForFunction(
          () =>
            document.querySelectorAll('[data-measured="loading"]').length === 0 &&
            document.querySelectorAll('[data-measured]').length > 0,
        );
        assert.equal(await page.$$eval('.lesson-card', (els) => els.length), lessons.length, 'a card per lesson');
        for (const l of lessons) {
          const card = `[data-testid="lesson-${l.id}"]`;
          assert.equal(await page.textContent(`${card} h3`), l.title);
          assert.equal(await page.textContent(`[data-testid="lesson-claim-${l.id}"]`), l.claim);
          assert.ok((await page.textContent(`${card} .lesson-text`)).includes(l.text.slice(0, 40)));
          assert.equal(
            await page.$$eval(`[data-testid="lesson-look-${l.id}"] li`, (els) => els.length),
            l.lookAt.length,
          );
          const m = realMeasured[l.id];
          assert.equal(
            await page.getAttribute(`[data-testid="measured-${l.id}"]`, 'data-measured'),
            m ? 'true' : 'false',
            `${l.id}: measured or not`,
          );
          if (m) {
            assert.equal(await page.textContent(`[data-testid="measured-summary-${l.id}"]`), m.summary);
            // The verdict is the lesson's fixed rule applied to the same numbers: the page cannot claim more than they
            // show.
            const verdict = l.verdict(m);
            assert.equal(
              await page.getAttribute(`[data-testid="measured-verdict-${l.id}"]`, 'data-shows'),
              String(verdict.shows),
            );
            const shownVerdict = await page.textContent(`[data-testid="measured-verdict-${l.id}"]`);
            assert.equal(
              shownVerdict,
              `${verdict.shows ? 'The effect shows.' : 'The effect does not show here.'} ${verdictBody(verdict)}`,
              `${l.id}: verdict, the headline once`,
            );
            assert.ok(!/^The effect shows\. Shows:/.test(shownVerdict), `${l.id}: the headline is not repeated`);
            // Several seeds: each seed's own verdict is listed beside the verdict on the mean.
            const seeds = perSeedVerdicts(l, m);
            assert.deepEqual(
              await page.$$eval(`[data-testid="measured-per-seed-${l.id}"] li`, (els) =>
                els.map((e) => e.getAttribute('data-shows')),
              ),
              seeds.map((x) => String(x.verdict.shows)),
              `${l.id}: per-seed verdicts`,
            );
          } else
            assert.match(
              await page.textContent(`[data-testid="measured-${l.id}"]`),
              new RegExp(`Not measured yet.*rlvr lesson run ${l.id}`),
            );
        }
        note(testInfo, `${lessons.length} lessons; measured: ${Object.keys(realMeasured).join(', ') || 'none yet'}`);
        const base = await serverUrl();
        assert.ok(
          measuredRequests.length >= 1 && measuredRequests.every((u) => u.startsWith(base)),
          `measured.json from the app's own origin: ${measuredRequests.join(', ')}`,
        );
        assert.deepEqual(p.externalRequests, []);
        await shot(page, 'lessons-gallery');

        // A recorded outcome shows its summary and numbers (served here as a fixture, whatever the build holds).
        const fixture = {
          'why-groups': {
            id: 'why-groups',
            steps: 60,
            seed: 1,
            date: '2025-01-02',
            runs: [
              { label: 'GRPO', values: { frac_reward_zero_std: 0.4375, 'accuracy/first_round': 0.3125 } },
              {
                label: 'GRPO + dynamic sampling',
                values: { frac_reward_zero_std: 0.41, 'accuracy/first_round': 0.36 },
              },
            ],
            summary:
              'on seed 1, after 60 steps on sat: (fixture) share ' +
              'of groups with zero reward variance: GRPO 0.438, ' +
              'GRPO + dynamic sampling 0.410',
          },
          sharpening: {
            id: 'sharpening',
            steps: 60,
            seed: 1,
            date: '2025-01-02',
            base_pass_at_k: { 1: 0.2, 16: 0.7 },
            runs: [
              { label: 'PSR only', values: {}, final_pass_at_k: { 1: 0.3, 16: 0.6 } },
              { label: 'NSR only', values: {}, final_pass_at_k: { 1: 0.25, 16: 0.75 } },
            ],
            summary: 'on seed 1, after 60 steps on sat: (fixture) held-out pass@1 / pass@16 ...',
          },
          broken: { nothing: true },
        };
        await p.context.route('**/lessons/measured.json', (route) =>
          route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fixture) }),
        );
        await page.reload({ waitUntil: 'load' });
        await page.click('[data-testid="tab-lessons"]');
        await page.waitForSelector('[data-testid="measured-why-groups"][data-measured="true"]');
        assert.equal(
          await page.textContent('[data-testid="measured-summary-why-groups"]'),
          fixture['why-groups'].summary,
        );
        const cells = await page.$$eval('[data-testid="measured-table-why-groups"] td', (els) =>
          els.map((e) => e.textContent),
        );
        assert.deepEqual(cells, ['0.438', '0.313', '0.410', '0.360']);
        const passk = await page.$$eval('[data-testid="measured-table-sharpening"] tbody tr', (rows) =>
          rows.map((r) => [...r.children].map((c) => c.textContent)),
        );
        assert.deepEqual(passk, [
          ['base policy', '0.200', '0.700'],
          ['PSR only', '0.300', '0.600'],
          ['NSR only', '0.250', '0.750'],
        ]);
        assert.equal(
          await page.getAttribute('[data-testid="measured-clip-higher"]', 'data-measured'),
          'false',
          'a lesson without an entry still says not measured',
        );
        assert.match(await page.textContent('[data-testid="measured-note"]'), /1 malformed entry/);
        shots.push('lessons-card-measured.png');
        // Clipped from a full-page shot: an element shot would scroll the card under the sticky header.
        await page.evaluate(() => window.scrollTo(0, 0));
        const box = await page.locator('[data-testid="lesson-why-groups"]').boundingBox();
        await page.screenshot({ path: join(RESULTS_DIR, 'lessons-card-measured.png'), fullPage: true, clip: box });
      });
    } finally {
      await closePage(p);
    }
  },
);

/** Opens one lesson from its card (steps per run already set to 1) and checks its runs start. */
async function openFromGallery(testInfo, page, lesson) {
  const t0 = Date.now();
  await page.click('[data-testid="tab-lessons"]');
  await page.click(`[data-testid="lesson-run-live-${lesson.id}"]`);
  await page.waitForSelector('[data-testid="view-compare"]');
  const clicked = (Date.now() - t0) / 1000;
  const full = lesson.id === FULL;
  // One lesson is followed to a first step; the others only until their runs are live with the lesson's
  // configs: that each of them then trains is what lessons-url.spec.mjs checks, lesson by lesson.
  const c = await waitForRuns(page, lesson.runs.length, {
    steps: full ? 1 : 0,
    started: !full,
    lesson,
    // Ceilings that catch a hang: under load the three sudoku runs of forking-tokens took up to 119 s.
    timeout: 240_000,
  });
  const seconds = (Date.now() - t0) / 1000;
  assertLessonConfigs(lesson, c, 1);
  assert.equal(new URL(page.url()).search, `?lesson=${lesson.id}&steps=1`, 'the URL names the lesson');
  await assertFocusCharts(page, lesson);
  if (full) {
    for (const s of SIDES.slice(0, lesson.runs.length)) {
      const m = c[s].metrics[0];
      assert.equal(m.step, 1, 'the first update is step 1');
      for (const key of lesson.lookAt) assert.ok(Number.isFinite(m[key]), `${c[s].label}: ${key} = ${m[key]}`);
    }
    // charts draw in view
    await page.locator('[data-testid="compare-chart-completions/mean_length_wrong"]').scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () =>
        Number(
          document
            .querySelector('[data-testid="compare-chart-completions/mean_length_wrong"]')
            ?.getAttribute('data-points'),
        ) >= 1,
    );
    assert.ok(
      c.diff.some(([k]) => k === 'loss_type'),
      'the config differences list loss_type',
    );
    await shot(page, 'lessons-compare');
    timings.lessons[lesson.id] = { firstStepSeconds: seconds, runs: lesson.runs.length };
    note(testInfo, `${lesson.id}: ${lesson.runs.length} runs initialised and one step each in ${seconds.toFixed(1)} s`);
  } else {
    timings.lessons[lesson.id] = {
      startedSeconds: seconds,
      runs: lesson.runs.length,
      states: SIDES.slice(0, lesson.runs.length).map((s) => `${c[s].state}@${c[s].step}`),
    };
    note(
      testInfo,
      `${lesson.id}: ${lesson.runs.length} runs started in ${seconds.toFixed(1)} s ` +
        `(Run it live pressed and Compare shown after ${clicked.toFixed(1)} s)`,
    );
  }
  // The checked runs are stopped before the next card: a card's buttons wait while any run is still
  // loading (src/ui/components/lessons/LessonsGallery.tsx), and under load three sudoku runs stayed
  // loading for over 90 s, which the next lesson's time then counted.
  await page.click('text=Stop and free the workers');
  await page.waitForFunction(() => {
    const c = window.__rlvr.state().compare;
    return [c.a, c.b, c.c].every((s) => s?.state !== 'loading');
  });
}

test('every lesson opens from its card and starts its runs with the lesson configs', async ({}, testInfo) => {
  // 4.3 min at load average 15 on this 2-core machine; the limit only catches a hang.
  test.setTimeout(600_000);
  const p = await open('/');
  try {
    await withDiagnostics(testInfo, p, 'lessons-open', async () => {
      const { page } = p;
      await page.click('[data-testid="tab-lessons"]');
      await page.fill('[data-testid="lesson-steps"]', '1');
      // The fully followed lesson first, then the rest in gallery order.
      const order = [lessons.find((l) => l.id === FULL), ...lessons.filter((l) => l.id !== FULL)];
      // Every lesson is tried; the failures are listed together at the end.
      const problems = [];
      for (const lesson of order) {
        try {
          await openFromGallery(testInfo, page, lesson);
        } catch (e) {
          problems.push(`${lesson.id}: ${e.message.split('\n')[0]}`);
          note(testInfo, `${lesson.id}: FAILED ${e.message.split('\n')[0]}`);
          await screenshot(page, `lessons-open-${lesson.id}-FAILED`).catch(() => undefined);
        }
      }
      assert.deepEqual(problems, [], 'every lesson opens and its runs start');
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await closePage(p);
  }
});

test('no uncaught errors and nothing fetched from outside the app', async () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(externalRequests, []);
});
