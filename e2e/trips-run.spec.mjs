// What a teacher and a student trip on, end to end on the production build (alone:
// `npx vite build && npx playwright test e2e/trips-run.spec.mjs`): a run's numbers say one thing, the
// default run's time line and held-out band, and a reload that brings back what was on screen.
// Tests share one page where they can and open the shipped recordings (public/records/) instead of
// training wherever the point is not training.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage, withPageDiagnostics } from './lib.mjs';
import { browser, tripsHooks } from './trips-lib.mjs';

tripsHooks(test);

test(
  'no small contradictions: a percentage from Start ' +
    'on, one numbering of held-out prompts, the std ' +
    'convention stated, TRL badges that say where a ' +
    'default differs',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await openPage(browser, '/?steps=1&eval_every=0');
    const { page } = p;
    try {
      await withPageDiagnostics(testInfo, p, 'trips-contradictions', async () => {
        await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
        // TRL badges: learning_rate's default is not TRL's (the field table's trlDefault); beta's is.
        await page.locator('[data-testid="field-learning_rate"]').waitFor({ state: 'attached' });
        assert.equal(
          (await page.textContent('[data-testid="trl-badge-learning_rate"]')).trim(),
          'TRL · default differs',
        );
        assert.match(
          await page.getAttribute('[data-testid="trl-badge-learning_rate"]', 'title'),
          new RegExp(
            String.raw`TRL's default is 0\.000001 and this playground's ` +
              String.raw`0\.0001|TRL's default is 1e-6 and this playground's 0\.0001`,
          ),
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
          `the header's waits from Start to step 1: ` +
            [...new Set(header.map((h) => h.text.replace(/\d+/g, 'N')))].slice(0, 6).join(' | '),
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
  },
);

test(
  'the default run without a step budget has a time ' +
    'line, and the held-out chart says what its band ' +
    'means for a dip',
  async ({}, testInfo) => {
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
  },
);

test(
  'a reload brings back what was on screen: "Restored ' +
    'at step N" with Resume, rollouts that say they ' +
    'were not kept, the last pass@k result',
  async ({}, testInfo) => {
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
  },
);
