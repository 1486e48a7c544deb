// A newcomer's first minutes, on the production build (playwright.config.ts's webServer serves it): every wait shows
// how
// far it is, Step once shows it is busy and does not queue clicks, Reset asks first and keeps the
// autosave, charts that cannot move say why, the narrow layout shows Start without scrolling, the
// guide and the theme toggle. Small configs keep it fast. Screenshots of the new panels go to
// docs/screenshots/ (the README and docs/using.md show them).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, openPage, ROOT, waitForPage, withPageDiagnostics } from './lib.mjs';

/** A small, fast run: 2 prompts × 4 samples per step, 4 held-out prompts, short completions. */
const SMALL = 'prompts_per_step=2&num_generations=4&eval_prompts=4&eval_every=10';
const DOCS = join(ROOT, 'docs', 'screenshots');

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
  mkdirSync(DOCS, { recursive: true });
});

const state = (page) => page.evaluate(() => window.__rlvr.state());
const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);

/** Records every text the status bar's activity shows (a wait can be shorter than a poll). */
async function recordActivity(page) {
  await page.evaluate(() => {
    window.__seen = [];
    const grab = () => {
      const t = document.querySelector('[data-testid="activity"]')?.textContent;
      if (t && window.__seen[window.__seen.length - 1] !== t) window.__seen.push(t);
    };
    new MutationObserver(grab).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const seen = (page) => page.evaluate(() => window.__seen);

async function startEnabled(page) {
  await page.waitForSelector('[data-testid="start"]:not([disabled])', { timeout: 20_000 });
}

test(
  'at 800×900 Start is visible without scrolling, few ' + 'tab stops before it; the guide and the theme',
  async ({}, testInfo) => {
    test.setTimeout(60_000);
    const p = await openPage(browser, '/', { viewport: { width: 800, height: 900 } });
    await withPageDiagnostics(testInfo, p, 'newcomer-layout', async () => {
      const { page } = p;
      // Before the checkpoints are known, Start waits (no run from placeholder defaults).
      const early = await page.evaluate(() => ({
        booted: window.__rlvr.state().booted,
        disabled: document.querySelector('[data-testid="start"]')?.disabled ?? true,
      }));
      if (!early.booted) assert.equal(early.disabled, true, 'Start is disabled until the defaults arrive');
      await startEnabled(page);
      assert.equal(await page.evaluate(() => window.scrollY), 0);
      const box = await page.locator('[data-testid="start"]').boundingBox();
      assert.ok(
        box && box.y >= 0 && box.y + box.height <= 900,
        `Start is inside the 900 px viewport (top at ${box?.y} px)`,
      );
      note(testInfo, `Start at y = ${Math.round(box.y)} px of 900`);
      // Keyboard: Tab from the top of the page reaches Start after a few stops (the setup form comes after).
      await page.evaluate(() => document.activeElement?.blur());
      let stops = 0;
      for (; stops < 12; stops++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'start')) break;
      }
      assert.ok(stops < 6, `Start is tab stop ${stops + 1}`);
      note(testInfo, `Start is tab stop ${stops + 1}`);
      // The backend's explanation is not in the header until asked for.
      const headerHeight = await page.evaluate(
        () => document.querySelector('.app-header').getBoundingClientRect().height,
      );
      assert.ok(headerHeight < 120, `the sticky header is ${headerHeight} px tall`);

      // First visit: the guide is open, with an example prompt and its reference completion.
      await page.waitForSelector('[data-testid="guide"]');
      assert.match(await text(page, 'guide-prompt'), /\S/);
      assert.match(await text(page, 'guide-reference'), /<answer>/);
      await page.screenshot({ path: join(DOCS, 'guide-narrow.png') });
      await page.click('[data-testid="guide-close"]');
      await page.waitForSelector('[data-testid="guide"]', { state: 'detached' });
      // Theme: toggled, remembered over a reload; the guide stays closed.
      const before = await page.evaluate(() => document.documentElement.dataset.theme);
      await page.click('[data-testid="theme-toggle"]');
      const afterToggle = await page.evaluate(() => document.documentElement.dataset.theme);
      assert.notEqual(afterToggle, before);
      await page.reload({ waitUntil: 'load' });
      await startEnabled(page);
      assert.equal(
        await page.evaluate(() => document.documentElement.dataset.theme),
        afterToggle,
        'the theme is remembered',
      );
      assert.equal(await page.$('[data-testid="guide"]'), null, 'a dismissed guide stays closed');
      await page.click('[data-testid="guide-open"]');
      await page.waitForSelector('[data-testid="guide"]');
      await page.evaluate(() => localStorage.setItem('rlvr-theme', 'dark'));
      await page.reload({ waitUntil: 'load' });
      await startEnabled(page);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
      await page.click('[data-testid="guide-open"]');
      await page.waitForSelector('[data-testid="guide"]');
      await page.screenshot({ path: join(DOCS, 'dark-narrow.png') });
      assert.deepEqual(p.pageErrors, []);
      assert.deepEqual(p.externalRequests, []);
    });
    await p.close();
  },
);

test('charts that cannot move say why: KL at beta = 0, clip/ratio/ESS on-policy', async ({}, testInfo) => {
  test.setTimeout(60_000);
  const p = await openPage(browser, '/', { viewport: { width: 1280, height: 900 } });
  await withPageDiagnostics(testInfo, p, 'newcomer-charts', async () => {
    const { page } = p;
    await startEnabled(page);
    await page.click('[data-testid="tab-charts"]');
    await page.waitForSelector('[data-testid="chart-kl-constant"]');
    assert.match(await text(page, 'chart-kl-constant'), /KL is off: beta = 0, so there is no reference policy/);
    for (const id of ['clip', 'ratio', 'ess'])
      assert.match(await text(page, `chart-${id}-constant`), /on-policy \(num_iterations = 1, minibatches = 1\)/);
    assert.equal(await page.$('[data-testid="chart-kl"] .recharts-surface'), null, 'no plot of rounding noise');
    // Charts are named images, not unnamed focusable SVGs.
    assert.equal(await page.$('svg.recharts-surface[tabindex]'), null);
    await page.evaluate(() => document.querySelector('[data-testid="chart-kl"]').scrollIntoView({ block: 'center' }));
    await page.locator('[data-testid="chart-kl"]').screenshot({ path: join(DOCS, 'chart-kl-off.png') });
    // A lesson's "Look at" chip opens the chart it names (a two-run lesson: Compare's chart, highlighted).
    await page.click('[data-testid="tab-lessons"]');
    await page.click('[data-testid="lesson-look-clip-higher"] button.chip >> text=Entropy');
    await waitForPage(page, () => window.__rlvr.state().view === 'compare', { timeout: 5_000 });
    await page.waitForSelector('[data-testid="compare-chart-entropy"].flash', { timeout: 5_000 });
    // With beta > 0 the KL chart is back.
    await page.goto(new URL('/?beta=0.04', page.url()).href);
    await startEnabled(page);
    await page.click('[data-testid="tab-charts"]');
    await page.waitForSelector('[data-testid="chart-kl"]');
    assert.equal(await page.$('[data-testid="chart-kl-constant"]'), null);
  });
  await p.close();
});

test(
  'step 0 evaluation and each step show their ' +
    'progress; Step once is busy and does not queue; ' +
    'Reset asks and keeps the autosave',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const p = await openPage(browser, `/?${SMALL}`, { viewport: { width: 1280, height: 900 } });
    await withPageDiagnostics(testInfo, p, 'newcomer-step', async () => {
      const { page } = p;
      await startEnabled(page);
      await recordActivity(page);
      await page.click('[data-testid="step-once"]');
      // Busy at once: the button says so, and every control that would queue work is disabled.
      await page.waitForSelector('[data-testid="step-once"][disabled]', { timeout: 5_000 });
      assert.match(await text(page, 'step-once'), /Stepping/);
      assert.equal(await page.isDisabled('[data-testid="start"]'), true);
      // Two more clicks while it runs (straight on the element: a disabled button ignores them).
      await page.$eval('[data-testid="step-once"]', (b) => b.click());
      await page.$eval('[data-testid="step-once"]', (b) => b.click());
      // The step-0 evaluation's count in the status bar.
      await page.waitForFunction(
        () =>
          /held-out pass@k/.test(document.querySelector('[data-testid="activity"]')?.textContent ?? '') &&
          !!document.querySelector('[data-testid="activity-progress"]'),
        undefined,
        { timeout: 120_000, polling: 50 },
      );
      await page.screenshot({
        path: join(DOCS, 'status-eval-progress.png'),
        clip: { x: 0, y: 0, width: 1280, height: 120 },
      });
      await waitForPage(
        page,
        () => window.__rlvr.state().run.metrics.length >= 1 && window.__rlvr.state().busy === null,
        {
          timeout: 240_000,
        },
      );
      assert.equal((await state(page)).run.metrics.length, 1, 'the first click ran one step');
      // A click kept while busy would run once the page is free again, ahead of any later press. So one
      // more press, once the page is free, and its step: two steps in all, not three or four.
      await page.click('[data-testid="step-once"]');
      await waitForPage(
        page,
        () => window.__rlvr.state().run.metrics.length >= 2 && window.__rlvr.state().busy === null,
        {
          timeout: 120_000,
        },
      );
      const s = await state(page);
      assert.equal(
        s.run.metrics.length,
        2,
        'the two clicks made while the first step ran were not kept: one more press, one more step',
      );
      assert.equal(s.run.step, 2);
      const texts = await seen(page);
      note(testInfo, `activity seen: ${texts.slice(0, 12).join(' | ')}`);
      const evalPct = texts.filter((x) => /held-out pass@k .*samples \d+\/\d+ \((\d+)%\)/.test(x));
      assert.ok(evalPct.length > 0, 'the step-0 held-out evaluation shows a percentage');
      assert.ok(
        evalPct.some((x) => Number(/\((\d+)%\)/.exec(x)[1]) < 100),
        'a percentage below 100 was shown during the evaluation',
      );
      assert.ok(
        texts.some((x) => /step 1: .*sampling, tokens \d+\/\d+ \(\d+%\)/.test(x)),
        'the step shows its sampling progress (tokens)',
      );
      assert.ok(
        !texts.some((x) => /step 1: .*\(100%\)$/.test(x) && !/tokens|minibatches/.test(x)),
        "the evaluation's 100% does not linger on the step",
      );

      // The autosave after the step, then Reset: it asks, Cancel keeps the run.
      await waitForPage(page, () => window.__rlvr.state().autosave?.step === 2, { timeout: 30_000 });
      await page.click('[data-testid="reset"]');
      await page.waitForSelector('[data-testid="confirm-reset"]');
      assert.match(await text(page, 'confirm-reset'), /autosave of step 2 is kept/);
      await page.screenshot({ path: join(DOCS, 'reset-confirm.png'), clip: { x: 0, y: 0, width: 1280, height: 260 } });
      await page.click('[data-testid="confirm-reset-no"]');
      assert.equal((await state(page)).run.step, 2, 'Cancel keeps the run');
      await page.click('[data-testid="reset"]');
      await page.click('[data-testid="confirm-reset-yes"]');
      await waitForPage(page, () => window.__rlvr.state().run.state === 'idle');
      assert.equal((await state(page)).run.step, 0);
      await page.waitForSelector('[data-testid="saved-run-banner"]');
      assert.match(await text(page, 'saved-run-banner'), /step 2/);
      // The autosave is still in IndexedDB: a reload resumes it.
      await page.reload({ waitUntil: 'load' });
      await waitForPage(
        page,
        () => window.__rlvr.state().run.step === 2 && window.__rlvr.state().run.metrics.length === 2,
        {
          timeout: 60_000,
        },
      );
      assert.deepEqual(p.pageErrors, []);
    });
    await p.close();
  },
);

test('the SFT warm start shows a progress bar and a percentage', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const p = await openPage(browser, `/?${SMALL}`, { viewport: { width: 1280, height: 900 } });
  await withPageDiagnostics(testInfo, p, 'newcomer-warm-start', async () => {
    const { page } = p;
    await startEnabled(page);
    await recordActivity(page);
    await page.fill('[data-testid="warm-start-steps"]', '10');
    await page.click('[data-testid="warm-start-run"]');
    await page.waitForSelector('[data-testid="warm-start"] progress', { timeout: 120_000 });
    await page.locator('[data-testid="warm-start"]').screenshot({ path: join(DOCS, 'warm-start-progress.png') });
    await page.waitForSelector('[data-testid="warm-start-result"]', { timeout: 200_000 });
    const texts = await seen(page);
    note(testInfo, `activity seen: ${texts.join(' | ')}`);
    assert.ok(
      texts.some(
        (x) => /SFT warm start .*SFT steps \d+\/10 \((\d+)%\)/.test(x) && Number(/\((\d+)%\)/.exec(x)[1]) < 100,
      ),
      'the status shows the warm start percentage while it runs',
    );
    assert.deepEqual(p.pageErrors, []);
  });
  await p.close();
});

test(
  'the pass@k explorer shows how far it is while it ' + 'computes: one line from 0 to 100% over both phases',
  async ({}, testInfo) => {
    test.setTimeout(180_000);
    const p = await openPage(browser, `/?${SMALL}`, { viewport: { width: 1280, height: 900 } });
    await withPageDiagnostics(testInfo, p, 'newcomer-passk', async () => {
      const { page } = p;
      await startEnabled(page);
      await page.click('[data-testid="tab-passk"]');
      await page.click('[data-testid="run-passk"]');
      await page.waitForSelector('[data-testid="run-passk"][aria-busy="true"]', { timeout: 60_000 });
      // Part-way through sampling: one line over both phases (src/ui/derive/passk-progress.ts), the base policy's
      // samples its first half.
      await page.waitForFunction(
        () => {
          const line = document.querySelector('[data-testid="passk-progress"]');
          const pct = Number(line?.getAttribute('data-percent'));
          const what = /^\s*\d+%: sampling with the (base checkpoint \(phase 1 of 2\)|current policy)/;
          return pct > 0 && pct < 100 && what.test(line?.textContent ?? '');
        },
        undefined,
        { timeout: 150_000, polling: 100 },
      );
      assert.match(await text(page, 'run-passk'), /^Computing… \d+%$/);
      note(testInfo, await text(page, 'passk-progress'));
      await page.locator('.passk').screenshot({ path: join(DOCS, 'passk-progress.png') });
    });
    await p.close();
  },
);
