// Lessons with their shipped recordings, on the production build (alone:
// `npx vite build && npx playwright test e2e/recording-lessons.spec.mjs`).
//
// A lesson opens with its recording (from its card, time reported against 2 s, and from `?lesson=ID`)
// and trains only on "Run it live". Timings go to test-results/recording-lessons-e2e.json.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, screenshot } from './lib.mjs';
import {
  HANG_MS,
  LESSON,
  OPEN_GOAL_S,
  openLessonPage,
  readersReady,
  recordingHooks,
  state,
  timings,
} from './recording-lib.mjs';

recordingHooks(test, 'recording-lessons-e2e.json');

test(
  'a lesson opens from the Lessons tab (its time ' +
    "reported) with every arm's recorded curves, its " +
    'verdict and its rollouts, and trains nothing until ' +
    '"Run it live"',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    assert.ok(
      LESSON,
      'public/records/index.json lists every arm of at least one lesson on its measured seed ' +
        '(scripts/record-lessons.sh)',
    );
    const p = await openLessonPage('/');
    const { page } = p;
    try {
      // Every state the main run and Compare take from here on: nothing may train before "Run it live".
      await page.evaluate(() => {
        window.__e2eTrained = [];
        window.__rlvr.subscribe((s) => {
          if (s.run.state !== 'idle' || s.compare.running)
            window.__e2eTrained.push(`run ${s.run.state}, compare running ${s.compare.running}`);
        });
      });
      await page.click('[data-testid="tab-lessons"]');
      await page.waitForSelector(`[data-testid="lesson-open-${LESSON.id}"]`);
      // The precondition of the timing: the spare record readers (one per arm) are started once the page
      // has settled (src/ui/components/recording/RecordingBar.tsx, src/ui/state/record-readers.ts).
      await readersReady(page, LESSON.labels.length);
      const t0 = Date.now();
      await page.click(`[data-testid="lesson-open-${LESSON.id}"]`);
      // The lesson's banner scrolls into view on open (src/ui/components/lessons/LessonBanner.tsx), and a
      // chart draws once in view: the reward chart is brought into view when the recordings are in place.
      await page.waitForFunction(
        (n) =>
          document.querySelector('[data-testid="recording-banner"]') &&
          document.querySelector('[data-testid="compare-all-recorded"]') &&
          window.__rlvr.state().compare.a.metrics.length >= n,
        LESSON.measured.steps,
        { timeout: HANG_MS },
      );
      await page.locator('[data-testid="compare-chart-reward"]').scrollIntoViewIfNeeded();
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid="compare-chart-reward"]')?.getAttribute('data-points')) >= n,
        LESSON.measured.steps,
        { timeout: HANG_MS },
      );
      const seconds = (Date.now() - t0) / 1000;
      timings.lessonOpenSeconds = seconds;
      timings.lesson = LESSON.id;
      // The opening's phases (src/ui/state/recording.ts marks them): read and decoded, shown in the store; the rest is
      // drawing.
      timings.lessonOpenPhases = await page.evaluate(() => {
        const at = (n) => performance.getEntriesByName(n).at(-1)?.startTime ?? NaN;
        return {
          decodedMs: Math.round(at('record-decoded') - at('record-open')),
          shownMs: Math.round(at('record-shown') - at('record-open')),
          sinceShownMs: Math.round(performance.now() - at('record-shown')),
        };
      });
      note(testInfo, `phases: ${JSON.stringify(timings.lessonOpenPhases)}`);
      note(
        testInfo,
        `lesson ${LESSON.id} opened from its card with the ` +
          `recorded curves of its ${LESSON.labels.length} ` +
          `arms in ${seconds.toFixed(2)} s (goal ${OPEN_GOAL_S} ` +
          's, held to it by scripts/measure-page.mjs)',
      );
      const s = await state(page);
      const sides = [s.compare.a, s.compare.b, ...(s.compare.c ? [s.compare.c] : [])];
      assert.deepEqual(
        sides.map((x) => x.label),
        LESSON.labels,
        "Compare draws every arm, in the lesson's order",
      );
      // The seed shown first is one on which the effect shows (src/ui/derive/lesson-seeds.ts); the mean over
      // every seed replaces its curves once the other seeds are read (e2e/trips.spec.mjs checks the mean).
      const shownSeed = s.compare.overSeeds?.shownSeed ?? LESSON.seed;
      for (const x of sides) {
        assert.equal(x.state, 'recorded');
        assert.equal(x.metrics.length, LESSON.measured.steps, `${x.label}: every recorded step`);
        assert.equal(x.config.seed, shownSeed);
      }
      assert.ok(
        (await page.locator('[data-testid="compare-chart-reward"] .recharts-line').count()) >= LESSON.labels.length,
        'a line per arm',
      );
      assert.match(
        await page.textContent('[data-testid="lesson-banner"]'),
        s.compare.overSeeds
          ? /Showing its recorded runs \(A /
          : new RegExp(`Showing its recorded runs \\(seed ${LESSON.seed}:`),
      );
      // The verdict is the one measured.json gives for the same runs.
      const verdictText = await page.textContent('[data-testid="lesson-banner-verdict"]');
      const shows = await page.getAttribute('[data-testid="lesson-banner-verdict"]', 'data-shows');
      assert.ok(
        verdictText.startsWith(shows === 'true' ? 'The effect shows.' : 'The effect does not show here.'),
        verdictText,
      );
      assert.match(
        await page.textContent('[data-testid="recording-banner"]'),
        new RegExp(
          `Lesson ${LESSON.id}, ${LESSON.labels[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, seed ${shownSeed}`,
        ),
      );
      // Rollouts: the first arm's at the last recorded step, then the second arm's at the same step.
      await page.click('[data-testid="tab-rollouts"]');
      await page.waitForSelector('[data-testid="rollout-row"]', { timeout: 10_000 });
      await page.click('[data-testid="recording-arm-1"]');
      await page.waitForFunction(
        (arm) => window.__rlvr.state().recording?.record.provenance.lesson?.arm === arm,
        LESSON.labels[1],
      );
      await page.waitForSelector('[data-testid="rollout-row"]', { timeout: 10_000 });
      assert.equal((await state(page)).recording.record.provenance.lesson.seed, shownSeed);
      assert.equal(await page.locator('[data-testid="lesson-run-live"]').count(), 1, 'the banner offers Run it live');
      await page.click('[data-testid="tab-compare"]');
      assert.equal(
        await page.isDisabled('[data-testid="compare-start"]', { timeout: 5000 }),
        true,
        'Run both does not train recordings',
      );
      // Both arms opened and inspected, Compare drawn: any start the opening made would be in the log.
      assert.deepEqual(await page.evaluate(() => window.__e2eTrained), [], 'nothing trains before Run it live');
      assert.equal((await state(page)).run.state, 'idle');
      await screenshot(page, 'recording-lesson');
      assert.deepEqual(p.errors, []);
    } finally {
      await p.close();
    }
  },
);

test('?lesson=ID opens the lesson with its recording; "Run it live" then starts its runs', async ({}, testInfo) => {
  test.setTimeout(180_000);
  assert.ok(LESSON, 'a lesson ships with its recorded arms');
  const p = await openLessonPage(`/?lesson=${LESSON.id}&steps=1`);
  const { page } = p;
  try {
    await page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
    assert.equal((await state(page)).recording.record.provenance.lesson.id, LESSON.id);
    // What the link is for is on the first screen: a "look here" chart drawn without a scroll (the guide
    // stays closed for a link).
    const focus = page.locator('[data-focus="true"]').first();
    await focus.locator('.recharts-line path').first().waitFor({ state: 'attached', timeout: 30_000 });
    const box = await focus.boundingBox();
    const { innerHeight, scrollY } = await page.evaluate(() => ({ innerHeight, scrollY }));
    assert.equal(scrollY, 0);
    assert.ok(
      box && box.y >= 0 && box.y < innerHeight,
      `the lesson's chart starts at y = ${box?.y}, below ${innerHeight}`,
    );
    assert.equal(await page.locator('[data-testid="guide"]').count(), 0, 'no guide above the lesson');
    // The setup beside the recording is the recording's: its seed.
    const shownSeed = (await state(page)).recording.record.provenance.lesson.seed;
    assert.equal(await page.locator('[data-testid="field-seed"]').inputValue(), String(shownSeed));
    assert.equal(
      (await state(page)).compare.a.state,
      'recorded',
      'nothing started from the link: Compare shows the recordings',
    );
    await page.click('[data-testid="lesson-run-live"]');
    await page.waitForSelector('[data-testid="view-compare"]');
    await page.waitForFunction(
      () => ['a', 'b'].every((k) => !['idle', 'recorded'].includes(window.__rlvr.state().compare[k].state)),
      undefined,
      { timeout: 120_000 },
    );
    assert.equal(
      await page.locator('[data-testid="recording-banner"]').count(),
      0,
      'the page shows the live runs, not the recording',
    );
    note(testInfo, `Run it live started the runs of ${LESSON.id}`);
    await page.click('text=Stop and free the workers');
  } finally {
    await p.close();
  }
});

test(
  '"Run it live" pressed before the lesson\'s records ' + 'have arrived: the records never replace the live ' + 'runs',
  async ({}, testInfo) => {
    test.setTimeout(180_000);
    assert.ok(LESSON, 'a lesson ships with its recorded arms');
    const p = await openLessonPage(`/?lesson=${LESSON.id}&steps=3`);
    const { page } = p;
    try {
      // As soon as the banner offers it, before the records are read and decoded.
      await page.click('[data-testid="lesson-run-live"]', { timeout: 30_000 });
      await page.waitForFunction(
        () => ['a', 'b'].every((k) => window.__rlvr.state().compare[k].state === 'running'),
        undefined,
        { timeout: 120_000 },
      );
      // The records' arrival: openRecordedArms (src/ui/state/recording.ts) marks 'record-decoded' once every arm
      // is read and decoded, and drops them or shows them in the same task.
      await page.waitForFunction(() => performance.getEntriesByName('record-decoded').length > 0, undefined, {
        timeout: 60_000,
        polling: 100,
      });
      const s = await page.evaluate(() => {
        const c = window.__rlvr.state().compare;
        return {
          running: c.running,
          states: [c.a.state, c.b.state],
          steps: c.steps,
          recording: window.__rlvr.state().recording?.showing ?? null,
        };
      });
      assert.equal(s.running, true, 'Compare is still training');
      assert.ok(
        s.states.every((x) => x !== 'recorded'),
        `live sides, not recordings: ${s.states}`,
      );
      assert.equal(s.steps, 3, "the link's step budget, not the recording's 150");
      assert.notEqual(s.recording, true, 'the page shows the live runs');
      note(testInfo, `sides ${s.states.join(', ')} once the records had arrived`);
      await page.click('text=Stop and free the workers');
    } finally {
      await p.close();
    }
  },
);
