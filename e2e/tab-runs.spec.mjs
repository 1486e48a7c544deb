// Saved runs are per tab (src/ui/state/tabs.ts, src/ui/state/persist.ts): two tabs of one browser never save over
// each other, a new tab is offered the saved runs instead of silently taking one, two tabs on the same
// experiment are told so, and a reload mid-training says at which step it resumed and which steps
// (if any) were lost. Real Chromium tabs (pages of one context share IndexedDB, Web Locks and
// BroadcastChannel; each has its own sessionStorage), on the production build served by `vite preview`.
//
// Alone: `npx vite build && npx playwright test e2e/tab-runs.spec.mjs`.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, pageRunState, screenshot, serverUrl, withPageDiagnostics } from './lib.mjs';

/** The smallest real runs: fresh nano models, no held-out evaluation. */
const NANO = 'model=nano&prompts_per_step=2&num_generations=2&max_completion_length=8&eval_every=0';
const ARITH = `task=arithmetic&${NANO}&difficulty.digits=1&difficulty.ops=%2B`;
const SAT = `task=sat&${NANO}`;

/** @type {import('playwright-core').Browser} */
let browser;
let origin = '';

test.beforeAll(async ({ browser: b }) => {
  origin = await serverUrl();
  browser = b;
});

const state = (page) => page.evaluate(() => window.__rlvr.state());
const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`, { timeout: 30_000 });

/** A tab of `context` (the service worker blocked, as e2e/lib.mjs openPage does), with its errors recorded. */
async function tab(context, path) {
  const page = await context.newPage();
  const consoleMessages = [];
  const pageErrors = [];
  page.on('console', (m) => consoleMessages.push({ source: 'page', type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
  await page.goto(new URL(path, origin).href, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
  return { page, context, consoleMessages, pageErrors };
}

/** Waits until the page's run is done with `steps` steps and its autosave has that step. */
async function trained(page, steps) {
  await page.waitForFunction(
    (n) => {
      const s = window.__rlvr.state();
      return s.error || (s.run.state === 'done' && s.metrics.length === n && s.autosave?.step === n);
    },
    steps,
    { timeout: 240_000, polling: 250 },
  );
  const s = await state(page);
  assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
}

/** Reloads and waits until start-up is over (the tab's own run restored, or the saved runs offered). */
async function reloaded(page) {
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(
    () => window.__rlvr?.bootDone() && window.__rlvr.state().run.state !== 'loading',
    undefined,
    { timeout: 60_000, polling: 100 },
  );
  return state(page);
}

test('two tabs, two experiments: each reload restores its own run, and a new tab is offered both', async ({}, testInfo) => {
  test.setTimeout(600_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  const a = await tab(context, `/?${SAT}&steps=7`);
  const b = await tab(context, `/?${ARITH}&steps=3`);
  try {
    await withPageDiagnostics(testInfo, a, 'tabs-two-experiments', async () => {
      // A trains 7 steps, then B 3: B's is the last save in this browser, as in the class where A's run was lost.
      await a.page.click('[data-testid="start"]');
      await trained(a.page, 7);
      await b.page.click('[data-testid="start"]');
      await trained(b.page, 3);
      const beforeA = await state(a.page);
      const beforeB = await state(b.page);

      // Tab A reloads: its own sat run at step 7, no question asked; B's run is not offered over it.
      let s = await reloaded(a.page);
      assert.equal(
        s.run.step,
        7,
        `tab A restored its own run (step ${s.run.step}, state ${s.run.state}, offers ${JSON.stringify(s.savedRuns)})`,
      );
      assert.equal(s.run.config.task, 'sat');
      assert.deepEqual(
        s.metrics.map((m) => m.reward),
        beforeA.metrics.map((m) => m.reward),
        "tab A's metrics are its own",
      );
      assert.equal(await a.page.$('[data-testid="saved-run-banner"]'), null, 'no conflict banner in tab A');
      assert.match(await text(a.page, 'restored-message'), /^Restored at step 7 /);
      // Tab B reloads: its own arithmetic run at step 3.
      s = await reloaded(b.page);
      assert.equal(s.run.step, 3, 'tab B restored its own run');
      assert.equal(s.run.config.task, 'arithmetic');
      assert.deepEqual(
        s.metrics.map((m) => m.reward),
        beforeB.metrics.map((m) => m.reward),
      );
      assert.equal(await b.page.$('[data-testid="saved-run-banner"]'), null);

      // A new tab (no run of its own) on the bare address: offered both, the most recent first; nothing is taken.
      const c = await tab(context, '/');
      await c.page.waitForSelector('[data-testid="saved-run-banner"]', { timeout: 30_000 });
      s = await state(c.page);
      assert.equal(s.run.state, 'idle', 'the new tab restored nothing by itself');
      assert.equal(s.run.step, 0);
      // Which of the two was saved last depends on when each tab's worker saved after its reload (each
      // saves its restored run), so the order is not asserted here, only that both are offered.
      assert.deepEqual(
        s.savedRuns.map((o) => [o.task, o.step, o.openElsewhere]).sort(),
        [
          ['arithmetic', 3, true],
          ['sat', 7, true],
        ],
        'both saved runs, each open in its tab',
      );
      const satIndex = s.savedRuns.findIndex((o) => o.task === 'sat');
      assert.match(await text(c.page, `saved-run-${1 - satIndex}`), /arithmetic, step 3, .*open in another tab/);
      await screenshot(c.page, 'tabs-offered');
      // Restoring A's run (open in tab A) makes a copy: training it in C leaves A's record alone.
      await c.page.click(`[data-testid="restore-saved-${satIndex}"]`);
      await c.page.waitForFunction(
        () => window.__rlvr.state().run.step === 7 && window.__rlvr.state().run.state === 'paused',
        undefined,
        { timeout: 60_000 },
      );
      assert.match(await text(c.page, 'restored-message'), /Restored at step 7 .*a copy of a run open in another tab/);
      await c.page.click('[data-testid="step-once"]');
      await c.page.waitForFunction(() => window.__rlvr.state().autosave?.step === 8, undefined, { timeout: 120_000 });
      s = await reloaded(a.page);
      assert.equal(s.run.step, 7, "tab A's run is still at step 7 after tab C trained its copy to step 8");
      s = await reloaded(c.page);
      assert.equal(s.run.step, 8, 'and tab C reloads into its own copy');
      assert.deepEqual([...a.pageErrors, ...b.pageErrors, ...c.pageErrors], []);
      note(
        testInfo,
        'A (sat) 7 steps and B (arithmetic) 3 steps, trained together; each reload restored its own; a new tab was offered both and copied A',
      );
    });
  } finally {
    await context.close();
  }
});

test('two tabs on the same experiment are each told about the other, and neither overwrites the other', async ({}, testInfo) => {
  test.setTimeout(600_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  const a = await tab(context, `/?${ARITH}&steps=4`);
  const b = await tab(context, `/?${ARITH}&steps=4`);
  try {
    await withPageDiagnostics(testInfo, a, 'tabs-same-experiment', async () => {
      await a.page.click('[data-testid="start"]');
      // B learns that A has this experiment before it starts, and A learns of B once B trains.
      await b.page.waitForSelector('[data-testid="other-tab-banner"]', { timeout: 60_000 });
      const toB = await text(b.page, 'other-tab-banner');
      note(testInfo, `tab B: ${toB}`);
      assert.match(
        toB,
        /Another tab of this browser has this same experiment open: its run is (ready|training|loading|done|paused) at step \d+/,
      );
      await b.page.click('[data-testid="start"]');
      await a.page.waitForFunction(
        () =>
          /its run is (training|loading|paused|done) at step \d+/.test(
            document.querySelector('[data-testid="other-tab-banner"]')?.textContent ?? '',
          ),
        undefined,
        { timeout: 60_000 },
      );
      note(testInfo, `tab A: ${await text(a.page, 'other-tab-banner')}`);
      await trained(a.page, 4);
      await trained(b.page, 4);
      // B trains a step further (its budget raised): the two records differ, and each reload gets its own.
      await b.page.evaluate(() => window.__rlvr.setAutosaveEvery(1));
      const aRewards = (await state(a.page)).metrics.map((m) => m.reward);
      await b.page.click('[data-testid="step-once"]');
      await b.page.waitForFunction(() => window.__rlvr.state().autosave?.step === 5, undefined, { timeout: 120_000 });
      let s = await reloaded(a.page);
      assert.equal(s.run.step, 4, "tab A restores its own step 4, not B's step 5");
      assert.deepEqual(
        s.metrics.map((m) => m.reward),
        aRewards,
      );
      s = await reloaded(b.page);
      assert.equal(s.run.step, 5);
      await b.page.waitForSelector('[data-testid="other-tab-banner"]', { timeout: 30_000 });
      assert.match(await text(b.page, 'other-tab-banner'), /its run is paused at step 4/);
      await screenshot(b.page, 'tabs-same-experiment');
      assert.deepEqual([...a.pageErrors, ...b.pageErrors], []);
    });
  } finally {
    await context.close();
  }
});

test('a reload mid-training resumes at the last completed step (or one behind) and names exactly the steps it lost', async ({}, testInfo) => {
  test.setTimeout(600_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  // A long step budget: the reload lands mid-run. The autosave interval is the default (every step,
  // throttled by the worker: workers/run-saver.ts).
  const p = await tab(
    context,
    `/?task=arithmetic&model=nano&prompts_per_step=4&num_generations=4&max_completion_length=16&eval_every=0&steps=200`,
  );
  try {
    await withPageDiagnostics(testInfo, p, 'tabs-reload-mid-run', async () => {
      const { page } = p;
      // What each of the worker's saves cost (workers/protocol.ts SaveCost), as the page hears of them: noted, not asserted.
      await page.evaluate(() => {
        window.__e2eSaves = [];
        setInterval(() => {
          const a = window.__rlvr.state().autosave;
          if (a?.ms && window.__e2eSaves.at(-1)?.step !== a.step) window.__e2eSaves.push({ step: a.step, ...a.ms });
        }, 10);
      });
      await page.click('[data-testid="start"]');
      await page.waitForFunction(() => (window.__rlvr.state().autosave?.step ?? 0) >= 4, undefined, {
        timeout: 240_000,
      });
      const saved = (await state(page)).autosave;
      // Two steps past that save, reload while training goes on. The test notes, as the page goes away,
      // the last step the page showed: its own record, not the app's.
      await page.waitForFunction((k) => window.__rlvr.state().metrics.length >= k + 2, saved.step, {
        timeout: 120_000,
        polling: 20,
      });
      await page.evaluate(() =>
        addEventListener('pagehide', () =>
          sessionStorage.setItem(
            'e2e.shownAtUnload',
            JSON.stringify({
              step: window.__rlvr.state().metrics.at(-1)?.step ?? 0,
              state: window.__rlvr.state().run.state,
              autosave: window.__rlvr.state().autosave,
            }),
          ),
        ),
      );
      const stepSeconds = (await state(page)).run.lastStepSeconds;
      const saves = await page.evaluate(() => window.__e2eSaves);
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid="restored-notice"]', { timeout: 60_000 });
      await page.waitForFunction(() => window.__rlvr.state().run.state === 'paused', undefined, { timeout: 60_000 });
      const s = await state(page);
      const msg = await text(page, 'restored-message');
      const atUnload = JSON.parse(await page.evaluate(() => sessionStorage.getItem('e2e.shownAtUnload')));
      assert.equal(atUnload.state, 'running', 'reloaded mid-run');
      const held = saves.map((x) => x.snapshot + x.put).sort((x, y) => x - y);
      if (held.length)
        note(
          testInfo,
          `${held.length} saves seen up to step ${saves.at(-1).step}; training waited per save: median ${held[held.length >> 1].toFixed(1)} ms, max ${held.at(-1).toFixed(1)} ms (snapshot ${saves.map((x) => x.snapshot.toFixed(1)).join(' ')}; put ${saves.map((x) => x.put.toFixed(1)).join(' ')}); commit median ${saves
            .map((x) => x.commit)
            .sort((x, y) => x - y)
            [saves.length >> 1].toFixed(0)} ms`,
        );
      const shown = atUnload.step;
      const cost = atUnload.autosave?.ms;
      note(
        testInfo,
        `a step took ${stepSeconds.toFixed(2)} s; last save the page heard of before the reload: step ${atUnload.autosave?.step}${cost ? ` (snapshot ${cost.snapshot.toFixed(1)} ms, put ${cost.put.toFixed(1)} ms, commit ${cost.commit.toFixed(1)} ms)` : ''}; shown before the reload: step ${shown}; restored: step ${s.run.step}; message: ${msg}`,
      );
      // The worker saves its last completed step itself; the page may show a step a little after the
      // worker completed it (events are batched and the page may be busy drawing), so the restored step
      // may also be ahead of the last one shown: then nothing shown was lost.
      assert.ok(
        s.run.step >= shown - 1,
        `restored at the last step shown before the reload or one behind it (or later): shown ${shown}, restored ${s.run.step}`,
      );
      assert.match(msg, new RegExp(`^Restored at step ${s.run.step} `));
      const lost = shown - s.run.step;
      if (lost <= 0) assert.doesNotMatch(msg, /lost/, 'nothing lost, nothing claimed lost');
      else
        assert.match(
          msg,
          new RegExp(`${lost} steps? (was|were) lost \\(steps? ${s.run.step + 1}${lost > 1 ? `–${shown}` : ''}\\)`),
          'the message names exactly the steps lost',
        );
      assert.equal(s.metrics.length, s.run.step, 'the charts hold the restored steps');
      await screenshot(page, 'tabs-reload-mid-run');
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await context.close();
  }
});

// The offline spec once waited 180 s for a step after its reload. The page shows a restored run's
// steps as soon as the worker's init answers, while its run state, which comes from the worker's
// batched status events, may still say idle or loading; a Step once pressed then found no run and
// loaded a new one over the restored run (src/ui/state/controller.ts, ensureRun).
//
// The press is a person's: it lands the first moment the page shows both restored steps with Step
// once enabled (a MutationObserver sees the button's `disabled` go as React commits it). While the
// run is still loading the button is disabled, and a person cannot press it; asserting that it was
// already enabled when the steps first appeared raced the render on a loaded machine.
test('a Step once pressed the moment a reload shows the restored steps trains that run, not a new one', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  const p = await tab(context, `/?${ARITH}&steps=2`);
  try {
    await withPageDiagnostics(testInfo, p, 'tabs-press-during-restore', async () => {
      const { page } = p;
      await page.click('[data-testid="start"]');
      await trained(page, 2);
      const before = await state(page);
      // On the reloaded page: the first DOM change after which the page shows both restored steps and
      // Step once is enabled, press it from inside that change, before anything else runs.
      await page.addInitScript(() => {
        const pressWhenReady = () => {
          const s = window.__rlvr?.state();
          const button = document.querySelector('[data-testid="step-once"]');
          if (window.__e2ePress || !s || !button || button.disabled) return;
          if (s.run.step !== 2 || s.metrics.length !== 2) return;
          window.__e2ePress = { state: s.run.state, at: performance.now() };
          button.click();
        };
        new MutationObserver(pressWhenReady).observe(document, {
          subtree: true,
          childList: true,
          attributes: true,
          attributeFilter: ['disabled'],
        });
      });
      await page.reload({ waitUntil: 'load' });
      await page.waitForFunction(() => window.__e2ePress, undefined, { timeout: 60_000 });
      const press = await page.evaluate(() => window.__e2ePress);
      note(testInfo, `pressed ${Math.round(press.at)} ms after navigation, the page saying "${press.state}"`);
      await page
        .waitForFunction(
          () => {
            const s = window.__rlvr.state();
            return (
              s.error ||
              (!s.busy && ['paused', 'done'].includes(s.run.state) && s.metrics.length >= 1 && s.metrics.length !== 2)
            );
          },
          undefined,
          { timeout: 120_000, polling: 100 },
        )
        .catch(async (e) => {
          throw new Error(
            `no step after the press: ${await pageRunState(page)} (${e instanceof Error ? e.message : String(e)})`,
          );
        });
      const s = await state(page);
      assert.equal(s.error, null, s.error && `${s.error.title}: ${s.error.message}`);
      assert.equal(
        s.run.step,
        3,
        `the press stepped the restored run to step 3 (page: step ${s.run.step}, ${s.metrics.length} steps charted)`,
      );
      assert.deepEqual(
        s.metrics.slice(0, 2).map((m) => m.reward),
        before.metrics.map((m) => m.reward),
        'its first two steps are the restored ones',
      );
      assert.equal(s.metrics.length, 3);
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await context.close();
  }
});

test("an earlier version's single-slot autosave is moved to its own record and still restores", async ({}, testInfo) => {
  test.setTimeout(300_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  const p = await tab(context, `/?${ARITH}`);
  try {
    await withPageDiagnostics(testInfo, p, 'tabs-legacy', async () => {
      const { page } = p;
      await page.click('[data-testid="step-once"]');
      await page.waitForFunction(() => window.__rlvr.state().autosave?.step === 1, undefined, { timeout: 150_000 });
      // Rewrite the store as the single-slot version left it: one record under 'current', in its shape.
      const runId = await page.evaluate(async () => {
        const db = await new Promise((ok, fail) => {
          const r = indexedDB.open('rlvr-playground', 1);
          r.onsuccess = () => ok(r.result);
          r.onerror = () => fail(r.error);
        });
        const all = await new Promise((ok) => {
          const t = db.transaction('runs', 'readonly');
          const keys = t.objectStore('runs').getAllKeys();
          const vals = t.objectStore('runs').getAll();
          t.oncomplete = () => ok(keys.result.map((k, i) => [k, vals.result[i]]));
        });
        const [, run] = all.find(([k]) => String(k).startsWith('run:'));
        await new Promise((ok) => {
          const t = db.transaction('runs', 'readwrite');
          t.objectStore('runs').clear();
          t.objectStore('runs').put(
            { snapshot: run.snapshot, setup: run.setup, experiment: run.experiment, runId: run.runId },
            'current',
          );
          t.oncomplete = ok;
        });
        db.close();
        return run.runId;
      });
      // The tab that saved it (its sessionStorage names the run, as the earlier version's did) restores it.
      const s = await reloaded(page);
      assert.equal(s.run.step, 1, 'the earlier autosave is restored');
      const keys = await page.evaluate(async () => {
        const db = await new Promise((ok) => {
          const r = indexedDB.open('rlvr-playground', 1);
          r.onsuccess = () => ok(r.result);
        });
        const k = await new Promise((ok) => {
          const r = db.transaction('runs').objectStore('runs').getAllKeys();
          r.onsuccess = () => ok(r.result);
        });
        db.close();
        return k.map(String).sort();
      });
      assert.deepEqual(keys, [`meta:${runId}`, `run:${runId}`], "moved to the run's own record; 'current' is gone");
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await context.close();
  }
});
