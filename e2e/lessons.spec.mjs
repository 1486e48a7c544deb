// Guided experiments end to end, on the production build served by `vite preview`
// (playwright.config.ts's webServer starts it; alone: `npx vite build && npx playwright test e2e/lessons.spec.mjs`).
//
// The gallery shows every lesson with its claim and measured outcome (public/lessons/measured.json,
// or "not measured yet"); each of the lessons opens from its card and its runs start in Compare with
// the lesson's configs (one-step budgets: one lesson is followed until every run has a first step, the
// others until their workers are initialised and training, each after "Run it live"); two lessons open
// from `?lesson=ID` (nothing starts before "Run it live" is pressed) and an
// unknown id shows the known ones. Timings go to test-results/lessons-e2e.json.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, note, openPage, RESULTS_DIR, ROOT, screenshot, serverUrl, withPageDiagnostics } from './lib.mjs';

const { lessons, perSeedVerdicts } = await importTs('src/lessons/index.ts');
const { getPreset } = await importTs('src/rl/presets.ts');
const { verdictBody } = await importTs('src/ui/derive/lesson-plan.ts');

/** What the build serves (copied from public/ at build time); absent until someone runs `rlvr lesson run`. */
const measuredFile = join(ROOT, 'dist', 'lessons', 'measured.json');
const realMeasured = existsSync(measuredFile) ? JSON.parse(readFileSync(measuredFile, 'utf8')) : {};
/** The lesson followed until each of its runs has finished a step (the cheapest pair: GRPO vs Dr. GRPO). */
const FULL = 'length-normalisation';
const SIDES = ['a', 'b', 'c'];

/** @type {import('playwright-core').Browser} */
let browser;
const timings = { lessons: {} };
const shots = [];
const pageErrors = [];
const externalRequests = [];

test.beforeAll(({ browser: b }) => {
  browser = b;
});
test.afterAll(async () => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'lessons-e2e.json'), JSON.stringify({ timings, screenshots: shots }, null, 2));
});

async function shot(page, name) {
  shots.push(`${name}.png`);
  await page.evaluate(() => window.scrollTo(0, 0));
  return screenshot(page, name);
}

async function open(path) {
  const p = await openPage(browser, path, { viewport: { width: 1280, height: 800 } });
  await p.page.waitForFunction(() => !!window.__rlvr, undefined, { timeout: 20_000 });
  return p;
}

async function closePage(p) {
  pageErrors.push(...p.pageErrors);
  externalRequests.push(...p.externalRequests);
  await p.close();
}

const compareState = (page) => page.evaluate(() => window.__rlvr.state().compare);

/** Each run of the lesson started with the lesson's config: preset ← run config, the lesson's task, one seed. */
function assertLessonConfigs(lesson, c, steps) {
  const sides = SIDES.slice(0, Math.min(lesson.runs.length, 3)).map((s) => c[s]);
  assert.equal(sides.length, lesson.runs.length, `${lesson.id}: one run per config`);
  if (lesson.runs.length < 3) assert.equal(c.c, null, `${lesson.id}: no third run`);
  const seed = realMeasured[lesson.id]?.seed ?? 1;
  lesson.runs.forEach((run, i) => {
    const side = sides[i];
    assert.equal(side.label, `${'ABC'[i]}: ${run.label}`);
    const cfg = side.config;
    assert.ok(cfg, `${lesson.id} ${run.label}: initialised`);
    assert.equal(cfg.task, lesson.task, `${lesson.id} ${run.label}: task`);
    assert.equal(cfg.seed, seed, `${lesson.id} ${run.label}: the measured seed`);
    for (const [k, v] of Object.entries(getPreset(run.preset).config))
      if (!(k in run.config)) assert.deepEqual(cfg[k], v, `${lesson.id} ${run.label}: preset ${run.preset} sets ${k}`);
    for (const [k, v] of Object.entries(run.config)) assert.deepEqual(cfg[k], v, `${lesson.id} ${run.label}: ${k}`);
    assert.ok(Object.keys(cfg.difficulty).length > 0, 'difficulty resolved from the checkpoint');
  });
  assert.equal(c.steps, steps, `${lesson.id}: step budget`);
}

/** withDiagnostics with the Compare runs' states in the failure report. */
const withDiagnostics = (testInfo, p, name, fn) =>
  withPageDiagnostics(testInfo, p, name, fn, async () => {
    const c = await p.page.evaluate(() => window.__rlvr.state().compare).catch(() => null);
    return `compare: ${
      c
        ? SIDES.filter((s) => c[s])
            .map((s) => `${s}: ${c[s].state} step ${c[s].step} ${c[s].error ?? ''}`)
            .join('; ')
        : '?'
    }`;
  });

/** Waits until every run of the lesson is initialised and training (or, with `steps`, has that many steps). */
async function waitForRuns(page, n, { steps = 0, timeout }) {
  await page.waitForFunction(
    ([n, steps]) => {
      const c = window.__rlvr.state().compare;
      const sides = [c.a, c.b, c.c].slice(0, n);
      if (sides.some((s) => !s || s.state === 'error' || s.error)) return true; // fail fast, with the error in the assertion below
      // A lesson that ships its recording shows it in Compare until Run it live replaces it with live runs.
      return sides.every(
        (s) =>
          s.config &&
          s.state !== 'recorded' &&
          (steps ? s.metrics.length >= steps : ['running', 'done'].includes(s.state) || s.metrics.length > 0),
      );
    },
    [n, steps],
    { timeout, polling: 250 },
  );
  const c = await compareState(page);
  for (const s of SIDES.slice(0, n)) assert.equal(c[s].error, null, `${c[s].label}: ${c[s].error}`);
  return c;
}

/** The charts the lesson says to look at are in Compare, highlighted. */
async function assertFocusCharts(page, lesson) {
  for (const m of lesson.lookAt) {
    const sel =
      m === 'difficulty'
        ? '[data-testid^="compare-chart-difficulty"][data-focus="true"]'
        : `[data-testid="compare-chart-${m}"][data-focus="true"]`;
    assert.ok(await page.$(sel), `${lesson.id}: the "${m}" chart is shown and highlighted`);
  }
  assert.equal(await page.getAttribute('[data-testid="lesson-banner"]', 'data-lesson'), lesson.id);
}

test('the gallery shows every lesson: claim, text, what to look at, and its measured outcome or "not measured yet"', async ({}, testInfo) => {
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
        assert.equal(await page.$$eval(`[data-testid="lesson-look-${l.id}"] li`, (els) => els.length), l.lookAt.length);
        const m = realMeasured[l.id];
        assert.equal(
          await page.getAttribute(`[data-testid="measured-${l.id}"]`, 'data-measured'),
          m ? 'true' : 'false',
          `${l.id}: measured or not`,
        );
        if (m) {
          assert.equal(await page.textContent(`[data-testid="measured-summary-${l.id}"]`), m.summary);
          // The verdict is the lesson's fixed rule applied to the same numbers: the page cannot claim more than they show.
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
            { label: 'GRPO + dynamic sampling', values: { frac_reward_zero_std: 0.41, 'accuracy/first_round': 0.36 } },
          ],
          summary:
            'on seed 1, after 60 steps on sat: (fixture) share of groups with zero reward variance: GRPO 0.438, GRPO + dynamic sampling 0.410',
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
});

/** Opens one lesson from its card (steps per run already set to 1) and checks its runs start. */
async function openFromGallery(testInfo, page, lesson) {
  const t0 = Date.now();
  await page.click('[data-testid="tab-lessons"]');
  await page.click(`[data-testid="lesson-run-live-${lesson.id}"]`);
  await page.waitForSelector('[data-testid="view-compare"]');
  const full = lesson.id === FULL;
  const c = await waitForRuns(page, lesson.runs.length, { steps: full ? 1 : 0, timeout: full ? 240_000 : 90_000 });
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
    await page.locator('[data-testid="compare-chart-completions/mean_length_wrong"]').scrollIntoViewIfNeeded(); // charts draw in view
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
    note(testInfo, `${lesson.id}: ${lesson.runs.length} runs initialised and training in ${seconds.toFixed(1)} s`);
  }
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
      await page.click('text=Stop and free the workers');
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await closePage(p);
  }
});

/** A lesson link opens the lesson and starts nothing until "Run it live" is pressed. */
async function runItLive(page, lessonId) {
  await page.waitForSelector(`[data-testid="lesson-banner"][data-lesson="${lessonId}"]`, { timeout: 30_000 });
  // The end of the link's opening: every lesson ships its recording, shown once read and decoded
  // (src/ui/state/recording.ts marks 'record-shown'); a run the link started would be on the page by then.
  await page.waitForFunction(() => performance.getEntriesByName('record-shown').length > 0, undefined, {
    timeout: 60_000,
    polling: 100,
  });
  const s = await page.evaluate(() => window.__rlvr.state());
  assert.equal(s.run.state, 'idle', 'the main run did not start before the press');
  // A lesson that ships its recording shows it in Compare (recorded sides); none trains before the press.
  assert.ok(
    !s.compare.running && ['idle', 'recorded'].includes(s.compare.a.state),
    'no Compare run started before the press',
  );
  await page.click('[data-testid="lesson-run-live"]');
}

test('?lesson=noisy-verifiers&steps=1 opens that lesson and starts its three runs when "Run it live" is pressed', async ({}, testInfo) => {
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
      note(testInfo, `three runs initialised and training ${((Date.now() - t0) / 1000).toFixed(1)} s after navigation`);
      await shot(page, 'lessons-url-three-runs');
      await page.click('text=Stop and free the workers');
    });
  } finally {
    await closePage(p);
  }
});

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

test('every lesson opens from its own URL (?lesson=ID&steps=1) and starts its runs with the lesson configs', async ({}, testInfo) => {
  // 12 lessons of 2-3 runs each: 20 s a lesson on this 2-core machine, twice that when it is loaded
  // (measured 17-39 s at load average 14); the limit only catches a hang.
  test.setTimeout(900_000);
  const problems = [];
  for (const lesson of lessons) {
    const t0 = Date.now();
    const p = await open(`/?lesson=${lesson.id}&steps=1`);
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
  assert.deepEqual(problems, [], 'every lesson opens from its URL and its runs start');
});

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
