import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
// Debian's Chromium and its flags live in one place, shared with bench/browser/driver.ts and scripts/measure-demo.mjs.
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/lib.mjs';

/**
 * The e2e suite (`npm run test:e2e` = `vite build && playwright test`).
 *
 * The tests drive Debian's Chromium (`executablePath`): Playwright's own browser downloads cannot work
 * here, so `npx playwright install` is never needed. `webServer` serves the production build through
 * `vite preview`, which sends COOP/COEP (multi-threaded WASM) and the app's CSP (vite.config.ts);
 * E2E_SERVER=dev runs the dev server instead (no build needed).
 *
 * Two workers, three projects (docs/tests.md, "Two workers"). A file alone leaves much of this machine's
 * two cores unused (page loads, Python fixtures, a tab waiting for its worker's next step), so two files
 * side by side finish sooner than one after the other (measured there: 296 s -> 210 s, 496 s -> 439 s).
 * `shared` and then `shared-short` hold every file except those whose figures are compared against a goal
 * or time the device: `alone` (one worker), which `npm run test:e2e` (scripts/e2e.mjs) runs after the
 * two shared ones, with nothing beside it, so its figures stay those of a test alone on the machine.
 * Tests in one file still run in order in one worker (they share state).
 *
 *   npm run test:e2e                                 shared (+ shared-short) on two workers, then alone on one
 *   npx playwright test                              every e2e/*.spec.mjs (both projects at once)
 *   npx playwright test e2e/engine.spec.mjs          one file
 *   npx playwright test -g placement                 tests whose title matches
 *   RLVR_RELIABILITY_LONG=1 npx playwright test e2e/reliability   with the long soaks
 *
 * Screenshots and result files go to test-results/ (the tests write them there by name); traces of
 * failed tests go to test-results/playwright/<project>/ (open with `npx playwright show-trace <zip>`).
 */
const root = dirname(fileURLToPath(import.meta.url));
// One port per checkout, so two worktrees can run their suites side by side; E2E_PORT overrides it.
const port = Number(process.env.E2E_PORT || 4300 + (createHash('sha1').update(root).digest().readUInt16BE(0) % 600));
const baseURL = `http://127.0.0.1:${port}`;
const dev = process.env.E2E_SERVER === 'dev';
// e2e/lib.mjs's openPage/serverUrl read the server from here (workers inherit the runner's environment).
process.env.E2E_BASE_URL = baseURL;

/**
 * Files run with nothing beside them: their figures are reported against a goal (first screen, a
 * recording or a lesson's arms opened, the longest main-thread task and Pause while training) or are the
 * device's own timings (the Benchmark panel).
 */
const ALONE = [
  'app-start.spec.mjs',
  'responsive.spec.mjs',
  'recording.spec.mjs',
  'recording-lessons.spec.mjs',
  'bench-panel.spec.mjs',
];

/**
 * Short `shared` files (under 25 s each under load), queued after the others. Playwright hands files to
 * its two workers in project order, then name order; a long file near the end of the queue kept one
 * worker busy for up to 45 s after the other had run out (docs/tests.md, "Two workers"). With the short
 * ones last, the two finish within about one short file of each other.
 */
const SHORT = [
  'class-truth-data.spec.mjs',
  'config-source.spec.mjs',
  'findings.spec.mjs',
  'hf-export.spec.mjs',
  'lesson-texts.spec.mjs',
  'recording-bad-input.spec.mjs',
  'reliability-bad-input.spec.mjs',
  'reliability-long.spec.mjs',
  'view.spec.mjs',
  'viewer-analysis.spec.mjs',
  'viewer-records.spec.mjs',
  'viewer.spec.mjs',
  'visitor.spec.mjs',
];

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.mjs',
  workers: 2,
  fullyParallel: false,
  projects: [
    { name: 'shared', testIgnore: [...ALONE, ...SHORT], outputDir: 'test-results/playwright/shared' },
    { name: 'shared-short', testMatch: SHORT, outputDir: 'test-results/playwright/shared' },
    { name: 'alone', testMatch: ALONE, workers: 1, outputDir: 'test-results/playwright/alone' },
  ],
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Each test sets its own budget (test.setTimeout) from what it trains; this covers the rest.
  timeout: 120_000,
  expect: { timeout: 30_000 },
  // scripts/e2e.mjs names one report per project (E2E_REPORT); a plain run writes e2e-report.json.
  reporter: [['list'], ['json', { outputFile: process.env.E2E_REPORT || 'test-results/e2e-report.json' }]],
  use: {
    baseURL,
    // Traces of failed tests (actions, console, network, sources), without the screencast and DOM
    // snapshots: recording those on pages that redraw charts every step starves the training worker on
    // two busy cores (measured here: with them the pass@k test's worker missed its 120 s watchdog twice;
    // without them it finished in 50-80 s). Each test saves its own screenshots, -FAILED ones included.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false, sources: true },
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  webServer: {
    command: dev
      ? `node node_modules/vite/bin/vite.js --host 127.0.0.1 --port ${port} --strictPort`
      : `node node_modules/vite/bin/vite.js preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: baseURL,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
