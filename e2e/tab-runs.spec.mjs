// Saved runs are per tab (src/ui/state/tabs.ts, src/ui/state/persist.ts): two tabs of one browser never save over
// each other, a new tab is offered the saved runs instead of silently taking one, two tabs on the same
// experiment are told so, and a reload mid-training says at which step it resumed and which steps
// (if any) were lost. Real Chromium tabs (pages of one context share IndexedDB, Web Locks and
// BroadcastChannel; each has its own sessionStorage), on the production build served by `vite preview`.
// Reloads mid-training and an earlier version's autosave: tab-runs-reload.spec.mjs.
//
// Alone: `npx vite build && npx playwright test e2e/tab-runs.spec.mjs`.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, screenshot, withPageDiagnostics } from './lib.mjs';
import { visitorTabs } from './visitor.mjs';
import { ARITH, browser, reloaded, SAT, state, tab, tabRunsHooks, text, trained } from './tab-runs-lib.mjs';

tabRunsHooks(test);

test(
  'two tabs, two experiments: each reload restores ' + 'its own run, and a new tab is offered both',
  async ({}, testInfo) => {
    test.setTimeout(600_000);
    const { context, close } = await visitorTabs(browser);
    const a = await tab(context, `/?${SAT}&steps=4`);
    const b = await tab(context, `/?${ARITH}&steps=2`);
    try {
      await withPageDiagnostics(testInfo, a, 'tabs-two-experiments', async () => {
        // A trains 4 steps, then B 2: B's is the last save in this browser, as in the class where A's run was lost.
        await a.page.click('[data-testid="start"]');
        await trained(a.page, 4);
        await b.page.click('[data-testid="start"]');
        await trained(b.page, 2);
        const beforeA = await state(a.page);
        const beforeB = await state(b.page);

        // Tab A reloads: its own sat run at step 4, no question asked; B's run is not offered over it.
        let s = await reloaded(a.page);
        assert.equal(
          s.run.step,
          4,
          `tab A restored its own run (step ${s.run.step}, state ${s.run.state}, ` +
            `offers ${JSON.stringify(s.savedRuns)})`,
        );
        assert.equal(s.run.config.task, 'sat');
        assert.deepEqual(
          s.run.metrics.map((m) => m.reward),
          beforeA.run.metrics.map((m) => m.reward),
          "tab A's metrics are its own",
        );
        assert.equal(await a.page.$('[data-testid="saved-run-banner"]'), null, 'no conflict banner in tab A');
        assert.match(await text(a.page, 'restored-message'), /^Restored at step 4 /);
        // Tab B reloads: its own arithmetic run at step 2.
        s = await reloaded(b.page);
        assert.equal(s.run.step, 2, 'tab B restored its own run');
        assert.equal(s.run.config.task, 'arithmetic');
        assert.deepEqual(
          s.run.metrics.map((m) => m.reward),
          beforeB.run.metrics.map((m) => m.reward),
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
            ['arithmetic', 2, true],
            ['sat', 4, true],
          ],
          'both saved runs, each open in its tab',
        );
        const satIndex = s.savedRuns.findIndex((o) => o.task === 'sat');
        assert.match(await text(c.page, `saved-run-${1 - satIndex}`), /arithmetic, step 2, .*open in another tab/);
        await screenshot(c.page, 'tabs-offered');
        // Restoring A's run (open in tab A) makes a copy: training it in C leaves A's record alone.
        await c.page.click(`[data-testid="restore-saved-${satIndex}"]`);
        await c.page.waitForFunction(
          () => window.__rlvr.state().run.step === 4 && window.__rlvr.state().run.state === 'paused',
          undefined,
          { timeout: 60_000 },
        );
        assert.match(
          await text(c.page, 'restored-message'),
          /Restored at step 4 .*a copy of a run open in another tab/,
        );
        await c.page.click('[data-testid="step-once"]');
        await c.page.waitForFunction(() => window.__rlvr.state().autosave?.step === 5, undefined, { timeout: 120_000 });
        s = await reloaded(a.page);
        assert.equal(s.run.step, 4, "tab A's run is still at step 4 after tab C trained its copy to step 5");
        s = await reloaded(c.page);
        assert.equal(s.run.step, 5, 'and tab C reloads into its own copy');
        assert.deepEqual([...a.pageErrors, ...b.pageErrors, ...c.pageErrors], []);
        note(
          testInfo,
          'A (sat) 4 steps and B (arithmetic) 2 steps, ' +
            'trained together; each reload restored its own; a ' +
            'new tab was offered both and copied A',
        );
      });
    } finally {
      await close();
    }
  },
);

test(
  'two tabs on the same experiment are each told ' + 'about the other, and neither overwrites the other',
  async ({}, testInfo) => {
    test.setTimeout(600_000);
    const { context, close } = await visitorTabs(browser);
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
          new RegExp(
            'Another tab of this browser has this same experiment open: ' +
              String.raw`its run is (ready|training|loading|done|paused) at step \d+`,
          ),
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
        const aRewards = (await state(a.page)).run.metrics.map((m) => m.reward);
        await b.page.click('[data-testid="step-once"]');
        await b.page.waitForFunction(() => window.__rlvr.state().autosave?.step === 5, undefined, { timeout: 120_000 });
        let s = await reloaded(a.page);
        assert.equal(s.run.step, 4, "tab A restores its own step 4, not B's step 5");
        assert.deepEqual(
          s.run.metrics.map((m) => m.reward),
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
      await close();
    }
  },
);
