// Helpers of the lesson specs (e2e/lessons*.spec.mjs): the lessons and their measured outcomes, pages
// opened on the production build, the checks of a lesson's runs in Compare, and what each file collects
// (timings, screenshots, page errors, requests that left the app), written to test-results/<file>.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importTs, openPage, RESULTS_DIR, ROOT, screenshot, stateWithoutRecords, withPageDiagnostics } from './lib.mjs';

export const { lessons, perSeedVerdicts } = await importTs('src/lessons/index.ts');
export const { getPreset } = await importTs('src/rl/presets.ts');
export const { verdictBody } = await importTs('src/ui/derive/lesson-plan.ts');

/** What the build serves (copied from public/ at build time); absent until someone runs `rlvr lesson run`. */
export const measuredFile = join(ROOT, 'dist', 'lessons', 'measured.json');
export const realMeasured = existsSync(measuredFile) ? JSON.parse(readFileSync(measuredFile, 'utf8')) : {};
/** The lesson followed until each of its runs has finished a step (the cheapest pair: GRPO vs Dr. GRPO). */
export const FULL = 'length-normalisation';
export const SIDES = ['a', 'b', 'c'];

/** @type {import('playwright-core').Browser} */
export let browser;
/** What the tests of one spec file collect; `lessonsHooks` empties them before the file and writes them after it. */
export const timings = { lessons: {} };
export const shots = [];
export const pageErrors = [];
export const externalRequests = [];

/**
 * Registers the file's hooks: the browser for `open`, and its timings and screenshots written to
 * test-results/`file`.
 */
export function lessonsHooks(test, file) {
  test.beforeAll(({ browser: b }) => {
    browser = b;
    for (const k of Object.keys(timings)) delete timings[k];
    timings.lessons = {};
    shots.length = 0;
    pageErrors.length = 0;
    externalRequests.length = 0;
  });
  test.afterAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, file), JSON.stringify({ timings, screenshots: shots }, null, 2));
  });
}

export async function shot(page, name) {
  shots.push(`${name}.png`);
  await page.evaluate(() => window.scrollTo(0, 0));
  return screenshot(page, name);
}

export async function open(path, context) {
  const p = await openPage(browser, path, { viewport: { width: 1280, height: 800 }, context });
  await p.page.waitForFunction(() => !!window.__rlvr, undefined, { timeout: 20_000 });
  return p;
}

export async function closePage(p) {
  pageErrors.push(...p.pageErrors);
  externalRequests.push(...p.externalRequests);
  await p.close();
}

export const compareState = (page) => page.evaluate(() => window.__rlvr.state().compare);

/** Each run of the lesson started with the lesson's config: preset ← run config, the lesson's task, one seed. */
export function assertLessonConfigs(lesson, c, steps) {
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
export const withDiagnostics = (testInfo, p, name, fn) =>
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

/**
 * Waits until every run of the lesson is initialised and training (or, with `steps`, has that many steps; with
 * `started`, until each is live and past idle: its worker asked for, its config set). With `lesson`, only runs
 * with that lesson's labels and config fields count: a lesson opened after another replaces its runs.
 */
export async function waitForRuns(page, n, { steps = 0, started = false, lesson = null, timeout }) {
  const expected = lesson?.runs.map((r, i) => ({ label: `${'ABC'[i]}: ${r.label}`, config: r.config })) ?? null;
  await page.waitForFunction(
    ([n, steps, started, expected]) => {
      const c = window.__rlvr.state().compare;
      const sides = [c.a, c.b, c.c].slice(0, n);
      // Key order aside (a difficulty is an object), as assertLessonConfigs compares.
      const canon = (v) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? `{${Object.keys(v)
              .sort()
              .map((k) => `${k}:${canon(v[k])}`)
              .join(',')}}`
          : JSON.stringify(v);
      const theLesson = (s, i) =>
        !expected ||
        (s.label === expected[i].label &&
          Object.entries(expected[i].config).every(([k, v]) => canon(s.config?.[k]) === canon(v)));
      if (!sides.every((s, i) => s && theLesson(s, i))) return false;
      // fail fast, with the error in the assertion below
      if (sides.some((s) => !s || s.state === 'error' || s.error)) return true;
      // A lesson that ships its recording shows it in Compare until Run it live replaces it with live runs.
      return sides.every(
        (s) =>
          s.config &&
          s.state !== 'recorded' &&
          (steps
            ? s.metrics.length >= steps
            : started
              ? s.state !== 'idle'
              : ['running', 'done'].includes(s.state) || s.metrics.length > 0),
      );
    },
    [n, steps, started, expected],
    { timeout, polling: 250 },
  );
  const c = await compareState(page);
  for (const s of SIDES.slice(0, n)) assert.equal(c[s].error, null, `${c[s].label}: ${c[s].error}`);
  return c;
}

/** The charts the lesson says to look at are in Compare, highlighted. */
export async function assertFocusCharts(page, lesson) {
  for (const m of lesson.lookAt) {
    const sel =
      m === 'difficulty'
        ? '[data-testid^="compare-chart-difficulty"][data-focus="true"]'
        : `[data-testid="compare-chart-${m}"][data-focus="true"]`;
    assert.ok(await page.$(sel), `${lesson.id}: the "${m}" chart is shown and highlighted`);
  }
  assert.equal(await page.getAttribute('[data-testid="lesson-banner"]', 'data-lesson'), lesson.id);
}

/** A lesson link opens the lesson and starts nothing until "Run it live" is pressed. */
export async function runItLive(page, lessonId) {
  await page.waitForSelector(`[data-testid="lesson-banner"][data-lesson="${lessonId}"]`, { timeout: 30_000 });
  // The end of the link's opening: every lesson ships its recording, shown once read and decoded
  // (src/ui/state/recording.ts marks 'record-shown'); a run the link started would be on the page by then.
  await page.waitForFunction(() => performance.getEntriesByName('record-shown').length > 0, undefined, {
    timeout: 60_000,
    polling: 100,
  });
  const s = await stateWithoutRecords(page); // the lesson's records are megabytes, and not read here
  assert.equal(s.run.state, 'idle', 'the main run did not start before the press');
  // A lesson that ships its recording shows it in Compare (recorded sides); none trains before the press.
  assert.ok(
    !s.compare.running && ['idle', 'recorded'].includes(s.compare.a.state),
    'no Compare run started before the press',
  );
  await page.click('[data-testid="lesson-run-live"]');
}
