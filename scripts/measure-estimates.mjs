#!/usr/bin/env node
// How true the page's time estimate is (within 1.5x of the real time, 4 to 400 steps, once this
// device has a measured pace). In one browser context, as a returning visitor: a 3-step warm-up run measures
// the pace (kept in local storage); then for each N, a fresh page at /?steps=N reads the estimate beside
// Start ("N steps: about X s on this device"), presses Start, and times it from the click to "done". Prints
// estimate, real time and their ratio per N; writes bench/estimates-results.json.
// Usage: node scripts/measure-estimates.mjs [--steps 4,8,40] [--out FILE]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { closeBrowser, launchBrowser, openPage, ROOT, startServer } from '../e2e/lib.mjs';
import { arg, load1 } from './measure-lib.mjs';

const budgets = arg('steps', '4,8,40').split(',').map(Number);
const out = arg('out', join(ROOT, 'bench', 'estimates-results.json'));
if (budgets.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error(`measure-estimates: --steps takes whole numbers of at least 1 (got ${arg('steps')})`);
  process.exit(2);
}
const WAIT = { timeout: 900_000, polling: 200 };

/** Seconds from the words "about N s" / "about N min". */
const seconds = (text) => {
  const m = /about (\d+) (s|min)/.exec(text);
  return m ? Number(m[1]) * (m[2] === 'min' ? 60 : 1) : null;
};

async function run(context, base, steps, warmUp = false) {
  const p = await openPage(null, `/?steps=${steps}`, { base, context });
  const { page } = p;
  try {
    await page.waitForSelector('[data-testid="start"]:not([disabled])', { timeout: 120_000 });
    const said = (await page.locator('[data-testid="time-estimate"]').textContent()) ?? '';
    const t0 = Date.now();
    await page.click('[data-testid="start"]');
    await page.waitForFunction((n) => window.__rlvr.state().run.step >= n, steps, WAIT);
    const real = (Date.now() - t0) / 1000;
    return warmUp ? null : { steps, said, estimate: seconds(said), real: Math.round(real * 10) / 10 };
  } finally {
    await p.close();
  }
}

const server = await startServer({ mode: 'preview' });
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
const rows = [];
try {
  await run(context, server.url, 3, true);
  for (const n of budgets) {
    const r = { ...(await run(context, server.url, n)), load: load1() };
    r.ratio = r.estimate ? Math.round(100 * Math.max(r.real / r.estimate, r.estimate / r.real)) / 100 : null;
    rows.push(r);
    console.log(`${n} steps: the page said "${r.said}"; it took ${r.real} s (ratio ${r.ratio}, load ${r.load})`);
  }
} finally {
  await context.close();
  await closeBrowser(browser);
  await server.close();
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), rows }, null, 2));
