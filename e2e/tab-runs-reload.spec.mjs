// Saved runs are per tab (src/ui/state/tabs.ts, src/ui/state/persist.ts): a reload mid-training says at which step it
// resumed and which steps (if any) were lost, a Step once pressed as the restored steps appear trains that
// run, and an earlier version's single-slot autosave still restores. Real Chromium tabs, on the production
// build served by `vite preview`.
//
// Alone: `npx vite build && npx playwright test e2e/tab-runs-reload.spec.mjs`.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, pageRunState, screenshot, withPageDiagnostics } from './lib.mjs';
import { visitorTabs } from './visitor.mjs';
import { ARITH, browser, reloaded, state, tab, tabRunsHooks, text, trained } from './tab-runs-lib.mjs';

tabRunsHooks(test);

test(
  'a reload mid-training comes back at the last ' +
    'completed step (or one behind), asks with Resume focused, and names exactly ' +
    'the steps it lost',
  async ({}, testInfo) => {
    test.setTimeout(600_000);
    const { context, close } = await visitorTabs(browser);
    // A long step budget: the reload lands mid-run. The autosave interval is the default (every step,
    // throttled by the worker: workers/run-saver.ts).
    const p = await tab(
      context,
      '/?task=arithmetic&model=nano&prompts_per_step=4&num_generations=4' +
        '&max_completion_length=16&eval_every=0&steps=200',
    );
    try {
      await withPageDiagnostics(testInfo, p, 'tabs-reload-mid-run', async () => {
        const { page } = p;
        // What each of the worker's saves cost (workers/protocol.ts SaveCost), as the page hears of them: noted, not
        // asserted.
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
        await page.waitForFunction((k) => window.__rlvr.state().run.metrics.length >= k + 2, saved.step, {
          timeout: 120_000,
          polling: 20,
        });
        await page.evaluate(() =>
          addEventListener('pagehide', () =>
            sessionStorage.setItem(
              'e2e.shownAtUnload',
              JSON.stringify({
                step: window.__rlvr.state().run.metrics.at(-1)?.step ?? 0,
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
        // It asks, with Resume focused: Enter trains on.
        await page.waitForFunction(
          () => document.activeElement?.getAttribute('data-testid') === 'restored-resume',
          undefined,
          {
            timeout: 10_000,
          },
        );
        const s = await state(page);
        const msg = await text(page, 'restored-message');
        assert.match(msg, /It was training when the page went away\./);
        const atUnload = JSON.parse(await page.evaluate(() => sessionStorage.getItem('e2e.shownAtUnload')));
        assert.equal(atUnload.state, 'running', 'reloaded mid-run');
        const held = saves.map((x) => x.snapshot + x.put).sort((x, y) => x - y);
        if (held.length)
          note(
            testInfo,
            `${held.length} saves seen up to step ${saves.at(-1).step}; training waited per save: ` +
              `median ${held[held.length >> 1].toFixed(1)} ms, max ${held.at(-1).toFixed(1)} ms ` +
              `(snapshot ${saves.map((x) => x.snapshot.toFixed(1)).join(' ')}; ` +
              `put ${saves.map((x) => x.put.toFixed(1)).join(' ')}); commit median ${saves
                .map((x) => x.commit)
                .sort((x, y) => x - y)
                [saves.length >> 1].toFixed(0)} ms`,
          );
        const shown = atUnload.step;
        const cost = atUnload.autosave?.ms;
        note(
          testInfo,
          `a step took ${stepSeconds.toFixed(2)} s; last save ` +
            `the page heard of before the reload: step ${atUnload.autosave?.step}` +
            (cost
              ? ` (snapshot ${cost.snapshot.toFixed(1)} ms, put ${cost.put.toFixed(1)} ms, ` +
                `commit ${cost.commit.toFixed(1)} ms)`
              : '') +
            `; shown before the reload: step ${shown}; ` +
            `restored: step ${s.run.step}; message: ${msg}`,
        );
        // The worker saves its last completed step itself; the page may show a step a little after the
        // worker completed it (events are batched and the page may be busy drawing), so the restored step
        // may also be ahead of the last one shown: then nothing shown was lost.
        assert.ok(
          s.run.step >= shown - 1,
          'restored at the last step shown before the reload ' +
            `or one behind it (or later): shown ${shown}, ` +
            `restored ${s.run.step}`,
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
        assert.equal(s.run.metrics.length, s.run.step, 'the charts hold the restored steps');
        await screenshot(page, 'tabs-reload-mid-run');
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await close();
    }
  },
);

// The offline spec once waited 180 s for a step after its reload. The page shows a restored run's
// steps as soon as the worker's init answers, while its run state, which comes from the worker's
// batched status events, may still say idle or loading; a Step once pressed then found no run and
// loaded a new one over the restored run (src/ui/state/controller.ts, ensureRun).
//
// The press is a person's: it lands the first moment the page shows both restored steps with Step
// once enabled (a MutationObserver sees the button's `disabled` go as React commits it). While the
// run is still loading the button is disabled, and a person cannot press it; asserting that it was
// already enabled when the steps first appeared raced the render on a loaded machine.
test(
  'a Step once pressed the moment a reload shows the ' + 'restored steps trains that run, not a new one',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const { context, close } = await visitorTabs(browser);
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
            if (s.run.step !== 2 || s.run.metrics.length !== 2) return;
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
                (!s.busy &&
                  ['paused', 'done'].includes(s.run.state) &&
                  s.run.metrics.length >= 1 &&
                  s.run.metrics.length !== 2)
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
          `the press stepped the restored run to step 3 (page: step ${s.run.step}, ` +
            `${s.run.metrics.length} steps charted)`,
        );
        assert.deepEqual(
          s.run.metrics.slice(0, 2).map((m) => m.reward),
          before.run.metrics.map((m) => m.reward),
          'its first two steps are the restored ones',
        );
        assert.equal(s.run.metrics.length, 3);
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await close();
    }
  },
);

test(
  "an earlier version's single-slot autosave is moved " + 'to its own record and still restores',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const { context, close } = await visitorTabs(browser);
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
      await close();
    }
  },
);
