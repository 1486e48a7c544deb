// Helpers of the trips specs (e2e/trips*.spec.mjs): the measured lessons, the run's state, a timed
// Cancel, and a lesson opened cold.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

export const measured = JSON.parse(readFileSync(join(ROOT, 'public/lessons/measured.json'), 'utf8'));
/** @type {import('@playwright/test').Browser} */
export let browser;
/** Registers the file's hook that hands its tests the browser. */
export function tripsHooks(test) {
  test.beforeAll(({ browser: b }) => {
    browser = b;
  });
}

export { stateWithoutRecords as state } from './lib.mjs';
export const lastMean = (metrics, key, window) => {
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
export async function armCancelTiming(page, button, cancelled) {
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
export async function openLessonCold(p, id) {
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
