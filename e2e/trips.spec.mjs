// What a teacher and a student trip on, end to end on the production build (alone:
// `npx vite build && npx playwright test e2e/trips.spec.mjs`). Tests share one page where they can and
// open the shipped recordings (public/records/) instead of training wherever the point is not training.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, note, openPage, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';

const measured = JSON.parse(readFileSync(join(ROOT, 'public/lessons/measured.json'), 'utf8'));
/** @type {import('@playwright/test').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const state = (page) => page.evaluate(() => window.__rlvr.state());
const lastMean = (metrics, key, window) => {
  const xs = metrics
    .slice(-window)
    .map((m) => m[key])
    .filter((x) => typeof x === 'number');
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};

/**
 * Times a Cancel in the page, from the click event to the cancelled message on screen (Playwright's own
 * round trips on this busy machine are not the page's answer): after the click, `window.__cancel` holds
 * `pressed` and `shown` (ms, the page's clock).
 */
async function armCancelTiming(page, button, cancelled) {
  await page.evaluate(
    ([button, cancelled]) => {
      window.__cancel = {};
      document.addEventListener(
        'click',
        (e) => {
          if (e.target.closest?.(`[data-testid="${button}"]`)) window.__cancel.pressed = e.timeStamp;
        },
        { capture: true },
      );
      new MutationObserver(() => {
        if (!window.__cancel.shown && document.querySelector(`[data-testid="${cancelled}"]`))
          window.__cancel.shown = performance.now();
      }).observe(document.body, { subtree: true, childList: true });
    },
    [button, cancelled],
  );
}

/** Opens `?lesson=ID` cold and waits until Compare draws its recorded arms. */
async function openLessonCold(p, id) {
  await p.page.goto(new URL(`/?lesson=${id}`, process.env.E2E_BASE_URL).href, { waitUntil: 'load' });
  await p.page.waitForFunction(
    (steps) => {
      const s = window.__rlvr?.state();
      const mean = s?.compare.overSeeds && !s.compare.overSeeds.pending;
      return (
        s?.booted &&
        mean &&
        s.compare.a.state === 'recorded' &&
        s.compare.a.metrics.length >= steps &&
        document.querySelector('[data-testid="lesson-banner-verdict"]')
      );
    },
    measured[id].steps,
    { timeout: 30_000 },
  );
}

test('a lesson draws what its verdict judges: the mean over its seeds, each seed faint, rollouts of a seed it names', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const { perSeedVerdicts, getLesson } = await importTs('src/lessons/index.ts');
  const p = await openPage(browser, '/');
  try {
    await withPageDiagnostics(testInfo, p, 'trips-why-groups', async () => {
      const m = measured['why-groups'];
      const t0 = Date.now();
      await openLessonCold(p, 'why-groups');
      note(
        testInfo,
        `?lesson=why-groups opened with its ${m.seeds.length} seeds' records in ${((Date.now() - t0) / 1000).toFixed(1)} s (page load included)`,
      );
      const s = await state(p.page);
      // The curves drawn are the ones the verdict judges: the banner's numbers come back from them.
      const gain =
        lastMean(s.compare.b.metrics, 'accuracy/first_round', 20) -
        lastMean(s.compare.a.metrics, 'accuracy/first_round', 20);
      const judged = m.runs[1].values['accuracy/first_round'] - m.runs[0].values['accuracy/first_round'];
      note(testInfo, `drawn first-round accuracy gain ${gain.toFixed(3)}, the verdict's ${judged.toFixed(3)}`);
      assert.ok(
        Math.abs(gain - judged) < 0.005,
        `the drawn curves give a gain of ${gain}, the verdict judged ${judged}`,
      );
      const zero = lastMean(s.compare.a.metrics, 'frac_reward_zero_std', 150);
      assert.ok(Math.abs(zero - m.runs[0].values.frac_reward_zero_std) < 0.005, `drawn zero-variance share ${zero}`);
      assert.equal(s.compare.a.seeds.length, m.seeds.length, 'each seed is drawn');
      // One faint line per arm and seed (charts draw once in view, at a bounded rate: waited for).
      await p.page.locator('[data-testid="compare-focus-charts"]').scrollIntoViewIfNeeded();
      await p.page.waitForFunction(
        (n) =>
          Number(document.querySelector('[data-testid="compare-chart-accuracy"]')?.getAttribute('data-seed-lines')) ===
          n,
        2 * m.seeds.length,
        { timeout: 10_000 },
      );
      // The scrubber and rollouts show a seed on which the effect shows, and the banner names it.
      const per = perSeedVerdicts(getLesson('why-groups'), m);
      const shown = s.recording.record.provenance.lesson.seed;
      assert.ok(per.find((x) => x.seed === shown).verdict.shows, `seed ${shown} shows the effect alone`);
      const banner = await p.page.textContent('[data-testid="lesson-banner"]');
      assert.match(banner, new RegExp(`mean over seeds ${m.seeds.join(', ')}`));
      assert.match(
        banner,
        new RegExp(`shows on ${per.filter((x) => x.verdict.shows).length} of the ${m.seeds.length} seeds alone`),
      );
      assert.match(banner, new RegExp(`rollouts show seed ${shown}, one on which it shows`));
      await p.page.locator('[data-testid="lesson-banner"]').scrollIntoViewIfNeeded();
      note(testInfo, `screenshot: ${await screenshot(p.page, 'trips-why-groups-cold')}`);

      // Sharpening shows on none of its seeds alone: the mean is drawn and the banner says so.
      const sh = measured.sharpening;
      await openLessonCold(p, 'sharpening');
      const t = await state(p.page);
      const lastEval = t.compare.a.evals.at(-1);
      const judged1 = sh.runs[0].final_pass_at_k['1'];
      assert.ok(
        Math.abs(lastEval.pass_at_k['1'] - judged1) < 0.005,
        `drawn final pass@1 ${lastEval.pass_at_k['1']}, measured mean ${judged1}`,
      );
      assert.match(await p.page.textContent('[data-testid="lesson-banner"]'), /shows on 0 of the 3 seeds alone/);
      await p.page.locator('[data-testid="compare-focus-charts"]').scrollIntoViewIfNeeded();
      await p.page.waitForFunction(
        () => Number(document.querySelector('[data-testid="compare-chart-eval"]')?.getAttribute('data-points')) > 0,
        undefined,
        { timeout: 10_000 },
      );
      note(testInfo, `screenshot: ${await screenshot(p.page, 'trips-sharpening-cold')}`);
    });
  } finally {
    await p.close();
  }
});

test('closing a lesson, or its recording, gives back the setup the person had before it, step budget text included', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const p = await openPage(browser, '/?preset=dr_grpo&steps=12&learning_rate=0.0003');
  const { page } = p;
  const setupOf = () =>
    page.evaluate(() => {
      const s = window.__rlvr.state().setup;
      return JSON.stringify({
        draft: { task: s.draft.task, presetId: s.draft.presetId, edits: s.draft.edits, knobs: s.draft.knobs },
        checkpoint: s.checkpoint,
        stepBudget: s.stepBudget,
      });
    });
  try {
    await withPageDiagnostics(testInfo, p, 'trips-lesson-close', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      const before = await setupOf();
      const estimate = await page.textContent('[data-testid="time-estimate"]');
      assert.match(estimate, /^12 steps/, "the status line names the setup's own budget");
      for (const close of ['lesson-close', 'recording-close']) {
        await page.click('[data-testid="tab-lessons"]');
        await page.click('[data-testid="lesson-open-why-groups"]');
        await page.waitForFunction(
          () => window.__rlvr.state().compare.a.state === 'recorded' && window.__rlvr.state().setup.stepBudget === 150,
          undefined,
          { timeout: 30_000 },
        );
        assert.notEqual(await setupOf(), before, 'the lesson put its setup in place');
        await page.click(`[data-testid="${close}"]`);
        await page.waitForFunction(() => !window.__rlvr.state().lesson.active, undefined, { timeout: 10_000 });
        assert.equal(await setupOf(), before, `after ${close}: the setup from before the lesson`);
        assert.equal(
          await page.textContent('[data-testid="time-estimate"]'),
          estimate,
          `after ${close}: the status line's step budget`,
        );
        assert.equal(
          await page.locator('[data-testid="recording-banner"]').count(),
          0,
          "the lesson's recording went with it",
        );
      }
    });
  } finally {
    await p.close();
  }
});

test('text says what happens: Open shows recordings, the banner and verdict come into view, the header says "recording"', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const p = await openPage(browser, '/');
  const { page } = p;
  try {
    await withPageDiagnostics(testInfo, p, 'trips-open-texts', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      await page.click('[data-testid="tab-lessons"]');
      const intro = await page.textContent('.lessons-intro');
      assert.doesNotMatch(intro, /Open\s+starts the runs/, 'Open does not start runs');
      assert.match(intro, /Open\s+shows the lesson’s recorded runs/);
      assert.match(intro, /nothing trains until you press Run it live/);
      // A card low in the gallery, opened with the page scrolled to it.
      const last = page.locator('[data-testid^="lesson-open-"]').last();
      const id = (await last.getAttribute('data-testid')).slice('lesson-open-'.length);
      await last.scrollIntoViewIfNeeded();
      const scrolledTo = await page.evaluate(() => window.scrollY);
      await last.click();
      await page.waitForSelector('[data-testid="lesson-banner-verdict"]', { timeout: 30_000 });
      // The banner and its verdict in view (the header is sticky: below it), whatever the scroll was.
      await page.waitForFunction(
        () => {
          const v = document.querySelector('[data-testid="lesson-banner-verdict"]').getBoundingClientRect();
          const header =
            document.querySelector('[data-testid="status-bar"]')?.closest('header')?.getBoundingClientRect().bottom ??
            0;
          return v.top >= header - 1 && v.bottom <= window.innerHeight;
        },
        undefined,
        { timeout: 5_000 },
      );
      note(
        testInfo,
        `lesson ${id} opened from a card with the page at scrollY ${scrolledTo}: banner and verdict in view`,
      );
      // The header over a recording says it is one.
      const rec = await page.evaluate(() => window.__rlvr.state().recording);
      assert.equal(await page.textContent('[data-testid="run-state"]'), 'recording (not training)');
      assert.equal(
        await page.textContent('[data-testid="step-count"]'),
        `Recorded step ${rec.step} of ${rec.steps.at(-1)}`,
      );
      await screenshot(page, 'trips-open-texts');
    });
  } finally {
    await p.close();
  }
});

test("pass@k: one line from 0 to 100% over both phases, a measured estimate, a Cancel that answers within 1 s, and a stopped worker ends the wait with the banner's message", async ({}, testInfo) => {
  test.setTimeout(300_000);
  const p = await openPage(browser, '/?eval_prompts=8&eval_every=0');
  const { page } = p;
  try {
    await withPageDiagnostics(testInfo, p, 'trips-passk', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      await page.click('[data-testid="tab-passk"]');
      const before = (await page.textContent('[data-testid="passk-estimate"]').catch(() => '')) ?? '';
      // Every change of the panel's wait, and of the estimate's text, as it happens.
      await page.evaluate(() => {
        window.__passkLog = [];
        window.__rlvr.subscribe((s) => {
          const w = s.passk.wait;
          const last = window.__passkLog.at(-1);
          if (w && (!last || last.fraction !== w.fraction))
            window.__passkLog.push({ t: performance.now(), fraction: w.fraction, what: w.what });
        });
        window.__estimates = [];
        new MutationObserver(() => {
          const e = document.querySelector('[data-testid="passk-estimate"]')?.textContent ?? '';
          if (e && window.__estimates.at(-1)?.text !== e) window.__estimates.push({ t: performance.now(), text: e });
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
        window.__pressedAt = performance.now();
      });
      await page.click('[data-testid="run-passk"]');
      await page.waitForFunction(
        () => {
          const s = window.__rlvr.state().passk;
          return !s.running && s.curve;
        },
        undefined,
        { timeout: 240_000 },
      );
      const { log, estimates, pressedAt, doneAt } = await page.evaluate(() => ({
        log: window.__passkLog,
        estimates: window.__estimates,
        pressedAt: window.__pressedAt,
        doneAt: performance.now(),
      }));
      // The curve: base and current for k = 1..64, each growing with k, and drawn.
      const c = (await state(page)).passk.curve;
      assert.equal(c.ks.length, 64);
      assert.equal(Object.keys(c.base).length, 64);
      assert.ok(c.base['64'] >= c.base['1'] && c.current['64'] >= c.current['1'], 'pass@k grows with k');
      await page.waitForSelector('[data-testid="passk-chart"]', { timeout: 10_000 });
      note(
        testInfo,
        `base pass@1 ${c.base['1'].toFixed(3)} pass@64 ${c.base['64'].toFixed(3)}; current pass@1 ${c.current['1'].toFixed(3)} pass@64 ${c.current['64'].toFixed(3)}`,
      );
      // One line over both phases: never backwards, through the middle (base → current), up to 100%.
      for (let i = 1; i < log.length; i++)
        assert.ok(
          log[i].fraction >= log[i - 1].fraction,
          `went back from ${log[i - 1].fraction} to ${log[i].fraction}`,
        );
      assert.ok(
        log.some((x) => x.what === 'passk-base') && log.some((x) => x.what === 'passk-current'),
        `both phases reported: ${JSON.stringify(log)}`,
      );
      assert.equal(log.at(-1).fraction, 1);
      const firstCurrent = log.find((x) => x.what === 'passk-current');
      assert.ok(
        firstCurrent.fraction > 0.5,
        `the current policy's phase starts past the middle (${firstCurrent.fraction})`,
      );
      // The estimate, measured: the first one from the rate, against the time it actually took.
      const measured = estimates.filter((e) => /left \(measured\)/.test(e.text));
      assert.ok(measured.length >= 2, `the estimate is updated from the measured rate: ${JSON.stringify(estimates)}`);
      const secs = (text) => {
        const m = /about (\d+) (s|min)/.exec(text);
        return m ? Number(m[1]) * (m[2] === 'min' ? 60 : 1) : NaN;
      };
      const actualLeft = (doneAt - measured[0].t) / 1000;
      note(
        testInfo,
        `pass@k (8 prompts × 64 samples, base and current): ${((doneAt - pressedAt) / 1000).toFixed(1)} s from the press; before pressing the page said "${before.trim()}"`,
      );
      note(
        testInfo,
        `first measured estimate "${measured[0].text}" at ${((measured[0].t - pressedAt) / 1000).toFixed(1)} s: ${actualLeft.toFixed(1)} s were actually left (ratio ${(secs(measured[0].text) / actualLeft).toFixed(2)})`,
      );
      const mid = measured.find((e) => e.t - pressedAt > (doneAt - pressedAt) / 2) ?? measured.at(-1);
      note(
        testInfo,
        `estimate at half time "${mid.text}": ${((doneAt - mid.t) / 1000).toFixed(1)} s were left (ratio ${(secs(mid.text) / ((doneAt - mid.t) / 1000)).toFixed(2)})`,
      );

      // Cancel: the panel answers at once; the worker stops before its next batch.
      await page.click('[data-testid="run-passk"]');
      await page.waitForFunction(() => (window.__rlvr.state().passk.wait?.fraction ?? 0) > 0.1, undefined, {
        timeout: 120_000,
      });
      // Timed in the page, from the click event to the cancelled state on screen (Playwright's own round
      // trips on this busy machine are not the page's answer).
      await armCancelTiming(page, 'passk-cancel', 'passk-cancelled');
      await page.evaluate(() => {
        window.__rlvr.subscribe((s) => {
          if (window.__cancel.pressed && !window.__cancel.free && !/pass@k/.test(s.run.activity))
            window.__cancel.free = performance.now();
        });
      });
      await page.click('[data-testid="passk-cancel"]');
      await page.waitForSelector('[data-testid="passk-cancelled"]', { timeout: 5_000 });
      await page.waitForFunction(() => window.__cancel.free, undefined, { timeout: 60_000 });
      const { pressed, shown, free } = await page.evaluate(() => window.__cancel);
      const shownMs = shown - pressed;
      const freeMs = free - pressed;
      note(
        testInfo,
        `Cancel: the panel said "Cancelled" ${shownMs.toFixed(0)} ms after the press; the worker had stopped sampling ${freeMs.toFixed(0)} ms after it`,
      );
      assert.ok(shownMs < 1000, `Cancel answered in ${shownMs} ms`);
      assert.equal(await page.locator('[data-testid="passk-progress"]').count(), 0);

      // A worker that stops answering mid-computation: the panel stops waiting, with the banner's message.
      await page.click('[data-testid="run-passk"]');
      await page.waitForFunction(() => (window.__rlvr.state().passk.wait?.fraction ?? 0) > 0.05, undefined, {
        timeout: 120_000,
      });
      await page.evaluate(() => window.__rlvr.setWatchdogMs(2000));
      const worker = page.workers().find((w) => w.url().includes('trainer.worker'));
      // The worker busy for a minute: it answers nothing (the evaluate's own answer may never come back
      // before the watchdog ends the worker, hence not awaited).
      worker
        .evaluate(() =>
          setTimeout(() => {
            const end = Date.now() + 60_000;
            while (Date.now() < end);
          }, 0),
        )
        .catch(() => undefined);
      await page.waitForSelector('[data-testid="error-banner"][data-kind="crash"]', { timeout: 30_000 });
      await page.waitForSelector('[data-testid="passk-error"]', { timeout: 5_000 });
      const banner = (await page.textContent('[data-testid="error-message"]')).trim();
      assert.ok(
        (await page.textContent('[data-testid="passk-error"]')).includes(banner),
        "the panel gives the banner's message",
      );
      assert.equal(await page.locator('[data-testid="passk-progress"]').count(), 0, 'no "Computing…" left behind');
      assert.equal(await page.evaluate(() => window.__rlvr.state().passk.running), false);
    });
  } finally {
    await p.close();
  }
});

test('the warm start: one line from 0 to 100% with a measured estimate, and a Cancel that answers within 1 s and leaves the model as it was', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const p = await openPage(
    browser,
    '/?task=arithmetic&model=nano&eval_every=0&difficulty.digits=1&difficulty.ops=%2B&prompts_per_step=2&num_generations=4',
  );
  const { page } = p;
  try {
    await withPageDiagnostics(testInfo, p, 'trips-warm-start', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      await page.fill('[data-testid="warm-start-steps"]', '5000');
      await page.evaluate(() => {
        window.__warm = { log: [] };
        window.__rlvr.subscribe((s) => {
          const w = s.warmStart.wait;
          if (w && window.__warm.log.at(-1)?.fraction !== w.fraction) window.__warm.log.push({ fraction: w.fraction });
        });
      });
      await page.click('[data-testid="warm-start-run"]');
      // A measured estimate on the line, once a few percent are done.
      await page.waitForSelector('[data-testid="warm-start-progress-left"]', { timeout: 180_000 });
      const line = (await page.textContent('[data-testid="warm-start-progress"]')).trim();
      assert.match(line, /^\d+%: SFT step \d+ of 5000 · about \d+ (s|min) left \(measured\)/);
      note(testInfo, `warm start line: "${line.replace(/Cancel$/, '').trim()}"`);
      await armCancelTiming(page, 'warm-start-cancel', 'warm-start-cancelled');
      await page.click('[data-testid="warm-start-cancel"]');
      await page.waitForSelector('[data-testid="warm-start-cancelled"]', { timeout: 5_000 });
      // The worker is free again once it has put the weights back: the button comes back.
      await page.waitForFunction(
        () => {
          const b = document.querySelector('[data-testid="warm-start-run"]');
          return b && !b.disabled;
        },
        undefined,
        { timeout: 60_000 },
      );
      const { log, pressed, shown, freeAt } = await page.evaluate(() => ({
        log: window.__warm.log,
        ...window.__cancel,
        freeAt: performance.now(),
      }));
      note(
        testInfo,
        `Cancel: "Cancelled" ${(shown - pressed).toFixed(0)} ms after the press; the worker free again by ${(freeAt - pressed).toFixed(0)} ms`,
      );
      assert.ok(shown - pressed < 1000, `Cancel answered in ${shown - pressed} ms`);
      for (let i = 1; i < log.length; i++) assert.ok(log[i].fraction >= log[i - 1].fraction, 'never backwards');
      const s = await state(page);
      assert.equal(s.warmStart.result, null, 'no result: the warm start did not finish');
      assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
      assert.equal(await page.locator('[data-testid="warm-start-progress"]').count(), 0);
      // The run is unchanged and usable: RL steps from it.
      await page.click('[data-testid="step-once"]');
      await page.waitForFunction(
        () => window.__rlvr.state().metrics.length >= 1 || window.__rlvr.state().error,
        undefined,
        {
          timeout: 120_000,
        },
      );
      assert.equal((await state(page)).error, null);
    });
  } finally {
    await p.close();
  }
});

test('Keep & share: "Export for TRL" downloads exactly the project `rlvr export --format trl` writes for the same config, and shows its README\'s commands', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const p = await openPage(browser, '/?preset=dapo&task=countdown&learning_rate=0.0002&steps=7');
  const { page } = p;
  try {
    await withPageDiagnostics(testInfo, p, 'trips-trl-export', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      await page.click('[data-testid="tab-share"]');
      const dir = mkdtempSync(join(tmpdir(), 'rlvr-trl-e2e-'));
      const [dl] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        page.getByRole('button', { name: 'Export for TRL', exact: true }).click(),
      ]);
      const zip = join(dir, dl.suggestedFilename());
      await dl.saveAs(zip);
      execFileSync('python3', ['-m', 'zipfile', '-e', zip, join(dir, 'page')]);
      // The CLI on the config the page exported (the page's resolved run config, as run_config.json carries it).
      execFileSync(
        'node',
        [
          'scripts/rlvr.mjs',
          'export',
          '--format',
          'trl',
          '--config',
          join(dir, 'page', 'run_config.json'),
          '--out',
          join(dir, 'cli'),
        ],
        { cwd: ROOT, stdio: 'pipe' },
      );
      const pageFiles = readdirSync(join(dir, 'page')).sort();
      const cliFiles = readdirSync(join(dir, 'cli')).sort();
      assert.deepEqual(pageFiles, cliFiles, 'the same files');
      for (const f of cliFiles)
        assert.equal(
          readFileSync(join(dir, 'page', f), 'utf8'),
          readFileSync(join(dir, 'cli', f), 'utf8'),
          `${f}: the same text`,
        );
      const config = JSON.parse(readFileSync(join(dir, 'page', 'run_config.json'), 'utf8'));
      assert.equal(config.task, 'countdown');
      assert.equal(config.learning_rate, 0.0002, "the setup's own config");
      note(
        testInfo,
        `Export for TRL: ${pageFiles.join(', ')}; identical to rlvr export --format trl on the same run_config.json`,
      );
      // The README's commands, in the page.
      const shown = await page.textContent('[data-testid="trl-commands"]');
      assert.match(shown, /accelerate launch train_grpo\.py --model \.\/hf --steps 200 --output_dir grpo-out/);
      assert.match(shown, /npx rlvr export --format hf/);
    });
  } finally {
    await p.close();
  }
});

test('no small contradictions: a percentage from Start on, one numbering of held-out prompts, the std convention stated, TRL badges that say where a default differs', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const p = await openPage(browser, '/?steps=1&eval_every=0');
  const { page } = p;
  try {
    await withPageDiagnostics(testInfo, p, 'trips-contradictions', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      // TRL badges: learning_rate's default is not TRL's (the field table's trlDefault); beta's is.
      await page.locator('[data-testid="field-learning_rate"]').waitFor({ state: 'attached' });
      assert.equal((await page.textContent('[data-testid="trl-badge-learning_rate"]')).trim(), 'TRL · default differs');
      assert.match(
        await page.getAttribute('[data-testid="trl-badge-learning_rate"]', 'title'),
        /TRL's default is 0\.000001 and this playground's 0\.0001|TRL's default is 1e-6 and this playground's 0\.0001/,
      );
      assert.equal((await page.textContent('[data-testid="trl-badge-beta"]')).trim(), 'TRL');
      // The guide names its example "held-out prompt 1".
      assert.match(await page.textContent('body'), /held-out prompt 1: the evaluation uses it/);

      // From the press of Start to the first step, whenever the header says what it waits for, it gives a percentage.
      await page.evaluate(() => {
        window.__header = [];
        new MutationObserver(() => {
          const a = document.querySelector('[data-testid="activity"]');
          if (a && window.__rlvr.state().run.step < 1)
            window.__header.push({
              text: a.textContent,
              pct: /\d+%/.test(document.querySelector('[data-testid="activity-progress"]')?.textContent ?? ''),
            });
        }).observe(document.querySelector('[data-testid="status-bar"]'), {
          subtree: true,
          childList: true,
          characterData: true,
        });
      });
      await page.click('[data-testid="start"]');
      await page.waitForFunction(
        () => window.__rlvr.state().run.step >= 1 && window.__rlvr.state().run.state !== 'running',
        undefined,
        { timeout: 180_000 },
      );
      const header = await page.evaluate(() => window.__header);
      assert.ok(header.length > 0, 'the header said what it waited for');
      const bare = header.filter((h) => !h.pct);
      assert.deepEqual(bare, [], `header lines without a percentage: ${JSON.stringify(bare.slice(0, 3))}`);
      note(
        testInfo,
        `the header's waits from Start to step 1: ${[...new Set(header.map((h) => h.text.replace(/\d+/g, 'N')))].slice(0, 6).join(' | ')}`,
      );

      // Try the policy on the guide's example: the same name.
      await page.click('[data-testid="tab-try"]');
      await page.click('[data-testid="try-run"]');
      await page.waitForSelector('[data-testid="try-result"]', { timeout: 120_000 });
      assert.match(await page.textContent('[data-testid="try-result"]'), /This is held-out prompt 1:/);

      // The advantage derivation says which standard deviation it uses (on a shipped recording's step).
      const r = await openPage(browser, '/?run=records/sat-grpo-30.rlvr.gz');
      try {
        await r.page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
        await r.page.click('[data-testid="tab-rollouts"]');
        await r.page.locator('[data-testid^="open-rollout-"]').first().click();
        await r.page.locator('[data-testid="token"][data-index="0"]').first().click();
        await r.page.waitForSelector('[data-testid="obj-advantage-derivation"]', { timeout: 10_000 });
        assert.match(
          await r.page.textContent('[data-testid="obj-std-convention"]'),
          /divided by n − 1 = \d+ for this group, not by n, as torch\.std and TRL/,
        );
      } finally {
        await r.close();
      }
    });
  } finally {
    await p.close();
  }
});

test('the default run without a step budget has a time line, and the held-out chart says what its band means for a dip', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const p = await openPage(browser, '/');
  try {
    await withPageDiagnostics(testInfo, p, 'trips-time-line', async () => {
      await p.page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      assert.equal(
        await p.page.evaluate(() => window.__rlvr.state().setup.stepBudget),
        0,
        'the default run has no step budget',
      );
      const line = await p.page.textContent('[data-testid="time-estimate"]', { timeout: 10_000 });
      assert.match(line, /^no step budget/);
      assert.match(line, /per step/);
      note(testInfo, `before Start, without a step budget: "${line}"`);
      // A recorded run's held-out chart: the band's note names the largest dip and whether it is noise.
      await p.page.goto(new URL('/?run=records/recipes/sat-grpo-200-seed2.rlvr.gz', process.env.E2E_BASE_URL).href);
      await p.page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
      await p.page.click('[data-testid="tab-charts"]');
      const noteText = await p.page.textContent('[data-testid="chart-eval-band-note"]', { timeout: 10_000 });
      assert.match(noteText, /The band is pass@1 ± one standard error/);
      assert.match(
        noteText,
        /The dip from step \d+ to \d+ \([\d.]+ → [\d.]+\) is (within|larger than) two standard errors/,
      );
      note(testInfo, `band note: ${noteText}`);
    });
  } finally {
    await p.close();
  }
});

test('a reload brings back what was on screen: "Restored at step N" with Resume, rollouts that say they were not kept, the last pass@k result', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const p = await openPage(browser, '/?eval_every=0&eval_prompts=2&prompts_per_step=4&num_generations=4');
  const { page } = p;
  try {
    await withPageDiagnostics(testInfo, p, 'trips-reload', async () => {
      await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
      await page.click('[data-testid="start"]');
      await page.waitForFunction(() => window.__rlvr.state().run.step >= 2, undefined, { timeout: 180_000 });
      await page.click('[data-testid="pause"]');
      await page.waitForFunction(
        () => {
          const s = window.__rlvr.state();
          return s.run.state === 'paused' && s.autosave?.step === s.run.step;
        },
        undefined,
        { timeout: 120_000 },
      );
      const step = await page.evaluate(() => window.__rlvr.state().run.step);
      await page.click('[data-testid="tab-passk"]');
      await page.click('[data-testid="run-passk"]');
      await page.waitForFunction(
        () => {
          const s = window.__rlvr.state().passk;
          return !s.running && s.curve;
        },
        undefined,
        { timeout: 180_000 },
      );
      const before = await page.evaluate(() => window.__rlvr.state().passk.curve);

      await page.reload({ waitUntil: 'load' });
      await page.waitForFunction(
        () => window.__rlvr?.bootDone() && window.__rlvr.state().run.state !== 'loading',
        undefined,
        { timeout: 60_000 },
      );
      await page.waitForSelector('[data-testid="restored-notice"]', { timeout: 30_000 });
      assert.match(
        await page.textContent('[data-testid="restored-message"]'),
        new RegExp(`^Restored at step ${step} `),
      );
      // The pass@k result is back, and says from when.
      await page.click('[data-testid="tab-passk"]');
      await page.waitForSelector('[data-testid="passk-chart"]', { timeout: 10_000 });
      assert.equal(Number(await page.getAttribute('[data-testid="passk-chart"]', 'data-step')), step);
      assert.deepEqual((await page.evaluate(() => window.__rlvr.state().passk.curve)).current, before.current);
      assert.match(
        await page.textContent('[data-testid="passk-restored"]'),
        new RegExp(`computed at step ${step} before the page was reloaded`),
      );
      // Rollouts: not "No rollouts yet: start training" at step N.
      await page.click('[data-testid="tab-rollouts"]');
      const rollouts = await page.textContent('[data-testid="rollouts-not-kept"]', { timeout: 10_000 });
      assert.match(rollouts, new RegExp(`at step ${step}, but the rollouts of steps 1–${step} were not kept`));
      // Resume, from the restore message.
      await page.click('[data-testid="restored-resume"]');
      await page.waitForFunction(() => ['running', 'done'].includes(window.__rlvr.state().run.state), undefined, {
        timeout: 60_000,
      });
      note(
        testInfo,
        `reloaded at step ${step}: "Restored at step ${step}", pass@k of step ${step} back, Resume trains on`,
      );
      await page.click('[data-testid="pause"]').catch(() => undefined);
    });
  } finally {
    await p.close();
  }
});
