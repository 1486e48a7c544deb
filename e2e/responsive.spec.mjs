// The page stays responsive while two runs train side by side: Compare, and a two-run lesson.
// (alone: `npx vite build && npx playwright test e2e/responsive.spec.mjs`)
//
// Chromium's long-task observer (installed before the app's own scripts) records every main-thread
// task over 50 ms. Once both runs are training, the test waits for several event batches with both
// runs stepping (each run's first steps charted), clicks Pause and times how long the page takes to
// show it. The goal is no main-thread task over 200 ms while training, and Pause answered (every run
// shown pausing or paused) within 1 s. Both are reported against their goals (the longest task on this
// 2-core machine, idle: 67-85 ms since the charts mount before the first step; 217-308 ms when the
// first steps' draw mounted them) and asserted only against a freeze: FREEZE_GUARD_MS (10 s) for a
// task, PAUSE_HANG_MS (30 s) for Pause. A loaded machine (two training workers already take both
// cores) stretches a draw past 200 ms and a Pause past 1 s without a freeze, while the freeze this
// test was written for stopped the page for minutes. RLVR_LONG_TASK_BUDGET_MS=200 and
// RLVR_PAUSE_BUDGET_MS=1000 hold a run to the goals themselves. The figures go to
// test-results/responsive-e2e.json.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, openPage, RESULTS_DIR, screenshot, withPageDiagnostics } from './lib.mjs';

/** The goal (ms): what the figures are reported against. */
const LONGEST_TASK_MS = 200;
/** What the test asserts (ms): a freeze guard on this 2-core machine, or the goal where the environment asks for it. */
const FREEZE_GUARD_MS = Number(process.env.RLVR_LONG_TASK_BUDGET_MS || 10_000);
/** Pause's goal (ms), reported against. */
const PAUSE_MS = 1000;
/** What the test asserts for Pause (ms): a hang, or the goal where the environment asks for it. */
const PAUSE_HANG_MS = Number(process.env.RLVR_PAUSE_BUDGET_MS || 30_000);
/**
 * Limits that only catch a hang: two runs' first steps on a loaded 2-core machine (load average 16)
 * took the Compare test past its former 180 s.
 */
const HANG_WAIT_MS = 400_000;
const HANG_TEST_MS = 900_000;
/** Steps each run finishes before Pause is pressed: enough event batches with charts to draw. */
const STEPS_BEFORE_PAUSE = 2;

/** @type {import('playwright-core').Browser} */
let browser;
const figures = {};

test.beforeAll(({ browser: b }) => {
  browser = b;
});
test.afterAll(() => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'responsive-e2e.json'), JSON.stringify(figures, null, 2));
});

/**
 * Runs in the page before any of its scripts: every long task, with when it started; and Pause's
 * latency as the page lived it: from the click's input event (its timeStamp: when the browser
 * received it, however long the page then took to run its handler) to the DOM showing every run
 * pausing or paused.
 */
function installObservers() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  const shown = () => {
    const text = document.querySelector('[data-testid="compare-status"]')?.textContent ?? '';
    const states = [...text.matchAll(/[ABC]: (\w+) step/g)].map((m) => m[1]);
    return states.length >= 2 && states.every((s) => s === 'pausing' || s === 'paused' || s === 'done');
  };
  document.addEventListener(
    'click',
    (e) => {
      if (!/^Pause (both|all)$/.test(e.target?.closest?.('button')?.textContent ?? '')) return;
      window.__pauseClick = e.timeStamp;
      const mo = new MutationObserver(() => {
        if (!shown()) return;
        window.__pauseShown = performance.now();
        mo.disconnect();
      });
      mo.observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    true,
  );
}

async function open(path) {
  const p = await openPage(browser, 'about:blank');
  await p.page.addInitScript(installObservers);
  await p.page.goto(new URL(path, process.env.E2E_BASE_URL).href, { waitUntil: 'load' });
  await p.page.waitForFunction(() => !!window.__rlvr && window.__rlvr.state().booted, undefined, { timeout: 30_000 });
  return p;
}

const compareSummary = async (page) => {
  const c = await page.evaluate(() => window.__rlvr.state().compare).catch(() => null);
  return c
    ? `compare: ${['a', 'b', 'c']
        .filter((s) => c[s])
        .map((s) => `${s}: ${c[s].state} step ${c[s].step} ${c[s].error ?? ''}`)
        .join('; ')}`
    : 'compare: ?';
};

/**
 * With Compare's runs started: waits until both train, marks the start of the measured window, waits
 * for `steps` steps of each, presses Pause and times it. Returns the figures.
 */
async function measureWhileTraining(page, { steps, timeout }) {
  await page.waitForFunction(
    () => {
      const c = window.__rlvr.state().compare;
      const sides = [c.a, c.b];
      if (sides.some((s) => s.error)) return true;
      return sides.every((s) => s.state === 'running');
    },
    undefined,
    { timeout, polling: 100 },
  );
  const c0 = await page.evaluate(() => window.__rlvr.state().compare);
  assert.equal(c0.a.error ?? c0.b.error, null, 'both runs started');
  // The charts in view, as a teacher watching them would have them (only charts on screen redraw).
  await page.locator('[data-testid^="compare-chart-"]').first().scrollIntoViewIfNeeded();
  const windowStart = await page.evaluate(() => (window.__windowStart = performance.now()));
  await page.waitForFunction(
    (n) => {
      const c = window.__rlvr.state().compare;
      return [c.a, c.b].every((s) => s.metrics.length >= n) || [c.a, c.b].some((s) => s.error);
    },
    steps,
    { timeout, polling: 250 },
  );
  // The click goes in as input events at the button's place (no waiting for the page to settle first).
  const pause = page.getByRole('button', { name: /^Pause (both|all)$/ });
  // In the middle of the window: at its top edge the sticky header would take the click.
  await pause.evaluate((el) => el.scrollIntoView({ block: 'center' }), undefined, { timeout: 60_000 });
  const box = await pause.boundingBox({ timeout: 60_000 });
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForFunction(() => window.__pauseShown !== undefined, undefined, { timeout: 120_000, polling: 100 });
  const pauseMs = Math.round(await page.evaluate(() => window.__pauseShown - window.__pauseClick));
  const windowEnd = await page.evaluate(() => performance.now());
  const tasks = await page.evaluate((from) => window.__longTasks.filter((t) => t.start >= from), windowStart);
  const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  const c = await page.evaluate(() => window.__rlvr.state().compare);
  return {
    windowSeconds: Number(((windowEnd - windowStart) / 1000).toFixed(1)),
    longestTaskMs: Math.round(longest),
    longTasksOver200: tasks.filter((t) => t.duration > LONGEST_TASK_MS).length,
    longTasksOver50: tasks.length,
    pauseMs,
    tasks: tasks.map((t) => `${((t.start - windowStart) / 1000).toFixed(1)}s:${Math.round(t.duration)}ms`).join(' '),
    stepsA: c.a.metrics.length,
    stepsB: c.b.metrics.length,
  };
}

function report(testInfo, name, f) {
  figures[name] = f;
  note(
    testInfo,
    `${name}: longest main-thread task ${f.longestTaskMs} ` +
      `ms (${f.longTasksOver200} over ${LONGEST_TASK_MS} ` +
      `ms, ${f.longTasksOver50} over 50 ms in ${f.windowSeconds} ` +
      `s of training, steps A ${f.stepsA} B ${f.stepsB}); ` +
      `Pause shown after ${f.pauseMs} ms (goal ${PAUSE_MS} ` +
      `ms); long tasks (start in the window: duration) ${f.tasks}`,
  );
}

function assertBudget(name, f) {
  assert.ok(
    f.longestTaskMs <= FREEZE_GUARD_MS,
    `${name}: the longest main-thread task while ` +
      `training was ${f.longestTaskMs} ms (asserted limit ` +
      `${FREEZE_GUARD_MS} ms; goal ${LONGEST_TASK_MS} ms)`,
  );
  assert.ok(
    f.pauseMs <= PAUSE_HANG_MS,
    `${name}: Pause was shown after ${f.pauseMs} ms (asserted limit ${PAUSE_HANG_MS} ms; goal ${PAUSE_MS} ms)`,
  );
}

test(
  'Compare: the page keeps answering while both runs ' +
    'train (longest main-thread task reported against ' +
    '200 ms), and Pause answers (reported against 1 s)',
  async ({}, testInfo) => {
    test.setTimeout(HANG_TEST_MS);
    const p = await open('/?backend=wasm');
    try {
      await withPageDiagnostics(
        testInfo,
        p,
        'responsive-compare',
        async () => {
          const { page } = p;
          await page.click('[data-testid="tab-compare"]');
          await page.fill('#compare-steps', '20');
          await page.click('[data-testid="compare-start"]');
          // The overlay charts are mounted (axes drawn) before the first step lands: the mount, the
          // costliest draw, used to come with the first steps and was the longest task while training.
          const first = await page.waitForFunction(
            () => {
              const c = window.__rlvr.state().compare;
              const charts = [
                ...document.querySelectorAll(
                  '[data-testid^="compare-chart-"]:not([data-testid="compare-chart-eval"]):not([data-constant="true"])',
                ),
              ];
              if (charts.length && charts.every((el) => el.querySelector('.recharts-wrapper')))
                return `mounted with ${charts.length} charts at steps A ${c.a.metrics.length} B ${c.b.metrics.length}`;
              return [c.a, c.b].some((x) => x.metrics.length > 0)
                ? `a step landed first (A ${c.a.metrics.length}, B ${c.b.metrics.length}` +
                    `) with ${charts.filter((el) => el.querySelector('.recharts-wrapper')).length} ` +
                    `of ${charts.length} charts mounted`
                : false;
            },
            undefined,
            { timeout: HANG_WAIT_MS, polling: 50 },
          );
          const firstText = await first.jsonValue();
          note(testInfo, `before the first step: ${firstText}`);
          assert.match(
            firstText,
            /^mounted with \d+ charts at steps A 0 B 0$/,
            'every overlay chart is mounted before the first step',
          );
          const f = await measureWhileTraining(page, { steps: STEPS_BEFORE_PAUSE, timeout: HANG_WAIT_MS });
          report(testInfo, 'compare', f);
          await screenshot(page, 'responsive-compare');
          assertBudget('Compare', f);
        },
        () => compareSummary(p.page),
      );
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
  'a two-run lesson: the page keeps answering while ' +
    'both runs train (longest main-thread task reported ' +
    'against 200 ms), and Pause answers (reported ' +
    'against 1 s)',
  async ({}, testInfo) => {
    test.setTimeout(HANG_TEST_MS);
    const p = await open('/?lesson=length-normalisation&steps=20&backend=wasm');
    try {
      await withPageDiagnostics(
        testInfo,
        p,
        'responsive-lesson',
        async () => {
          const { page } = p;
          // A lesson link trains nothing until "Run it live" (it opens the lesson's recording, if one ships).
          await page.click('[data-testid="lesson-run-live"]', { timeout: 30_000 });
          await page.waitForSelector('[data-testid="view-compare"]', { timeout: 30_000 });
          const f = await measureWhileTraining(page, { steps: STEPS_BEFORE_PAUSE, timeout: HANG_WAIT_MS });
          report(testInfo, 'lesson', f);
          await screenshot(page, 'responsive-lesson');
          assertBudget('The lesson', f);
        },
        () => compareSummary(p.page),
      );
    } finally {
      await p.page
        .getByRole('button', { name: 'Stop and free the workers' })
        .click({ timeout: 5_000 })
        .catch(() => undefined);
      await p.close();
    }
  },
);
