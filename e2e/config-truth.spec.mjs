// One source of truth for the experiment: the running setup, the address bar, the autosave and the
// share link agree. Production build through `vite preview` (playwright.config.ts's webServer starts it):
//   npx vite build && npx playwright test e2e/config-truth.spec.mjs
//
// A shared link is opened, trained a couple of steps, paused; learning rate, preset and a difficulty
// knob are changed (applied live); the tab is reloaded. The URL, the setup panel and the restored
// run's config must agree, with no "this link opens a different experiment" banner. Picking a
// preset after typing a learning rate keeps the typed rate and says so. Checks Start would fail on
// are shown inline first, each naming its field.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage, screenshot, waitForPage, withPageDiagnostics } from './lib.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const state = (page) => page.evaluate(() => window.__rlvr.state());
const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);
const params = (page) => Object.fromEntries(new URL(page.url()).searchParams);

// A small, fast run (no held-out evaluation) on the shipped sat checkpoint.
const SHARED =
  '/?v=1&preset=dr_grpo&difficulty.m=7&learning_rate=2e-4&prompts_per_step=4&num_generations=4&eval_every=0';

test(
  'a shared link, trained, paused, edited live and ' + 'reloaded: URL, setup panel and restored run agree',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const p = await openPage(browser, SHARED, { viewport: { width: 1280, height: 800 } });
    try {
      await withPageDiagnostics(testInfo, p, 'config-truth-reload', async () => {
        const { page } = p;
        await page.waitForSelector('[data-testid="preset"]');
        assert.equal(await page.inputValue('[data-testid="preset"]'), 'dr_grpo');
        assert.equal(await page.inputValue('[data-testid="field-learning_rate"]'), '2e-4');
        assert.equal(await page.inputValue('[data-testid="knob-m"]'), '7');

        await page.click('[data-testid="start"]');
        await page.waitForFunction(() => window.__rlvr.state().run.metrics.length >= 2, undefined, {
          timeout: 180_000,
          polling: 250,
        });
        await page.click('[data-testid="pause"]');
        await waitForPage(page, () => window.__rlvr.state().run.state === 'paused', { timeout: 60_000 });
        const ran = await state(page);
        assert.equal(ran.run.config.loss_type, 'dr_grpo');
        assert.equal(ran.run.config.learning_rate, 2e-4);
        assert.equal(ran.run.config.difficulty.m, 7);

        // While paused: type a learning rate, then pick a preset (the typed rate is kept, and said so), then a knob.
        await page.fill('[data-testid="field-learning_rate"]', '0.0003');
        await page.selectOption('[data-testid="preset"]', 'dapo');
        assert.equal(
          await page.inputValue('[data-testid="field-learning_rate"]'),
          '0.0003',
          'picking a preset keeps the typed learning rate',
        );
        assert.match(await text(page, 'preset-kept'), /learning_rate = 0\.0003/);
        // A harder knob whose prompts outgrow this run's compiled grid waits for a new run, and says so.
        await page.fill('[data-testid="knob-m"]', '8');
        await page.waitForSelector('[data-testid="pending-restart"]', { timeout: 30_000 });
        assert.match(await text(page, 'pending-restart'), /^difficulty: these prompts need \d+ tokens/);
        await page.fill('[data-testid="knob-m"]', '5');

        // Applied live to the paused run, and in the address bar.
        await page.waitForFunction(
          () => {
            const c = window.__rlvr.state().run.config;
            return (
              c.loss_type === 'dapo' && c.learning_rate === 0.0003 && c.difficulty.m === 5 && c.epsilon_high === 0.28
            );
          },
          undefined,
          { timeout: 30_000, polling: 100 },
        );
        const before = await state(page);
        const url = params(page);
        assert.equal(url.preset, 'dapo');
        assert.equal(url.learning_rate, '0.0003');
        assert.equal(url['difficulty.m'], '5');
        assert.equal(url.prompts_per_step, '4');
        assert.match(await text(page, 'live-note'), /applied live/);
        assert.equal(await page.$('[data-testid="pending-restart"]'), null);
        // The live edits reach the autosave (no further step is needed).
        await page.waitForFunction(() => !!window.__rlvr.state().autosave, undefined, { timeout: 30_000 });

        await page.reload({ waitUntil: 'load' });
        await page.waitForFunction(
          (n) => window.__rlvr?.state().run.step === n && window.__rlvr.state().run.state === 'paused',
          before.run.step,
          { timeout: 120_000, polling: 250 },
        );
        // The restored run's config settles on the setup (applied live if the autosave was behind the URL).
        await page.waitForFunction(
          () => {
            const c = window.__rlvr.state().run.config;
            return c && c.loss_type === 'dapo' && c.learning_rate === 0.0003 && c.difficulty.m === 5;
          },
          undefined,
          { timeout: 30_000, polling: 100 },
        );
        const after = await state(page);
        assert.equal(
          await page.$('[data-testid="saved-run-banner"]'),
          null,
          'reloading your own tab restores your run without the conflict banner',
        );
        assert.deepEqual(after.savedRuns, []);
        // Address bar = setup panel = restored run.
        assert.deepEqual(params(page), url, 'the URL after the reload is the URL before it');
        assert.equal(await page.inputValue('[data-testid="preset"]'), 'dapo');
        assert.equal(await page.inputValue('[data-testid="field-learning_rate"]'), '0.0003');
        assert.equal(await page.inputValue('[data-testid="knob-m"]'), '5');
        assert.equal(await page.inputValue('[data-testid="field-prompts_per_step"]'), '4');
        assert.deepEqual(
          after.run.config,
          before.run.config,
          "the restored run's config is the one that ran before the reload",
        );
        assert.equal(after.run.metrics.length, before.run.metrics.length);
        assert.equal(await page.$('[data-testid="pending-restart"]'), null, 'nothing waits for a new run');
        await screenshot(page, 'config-truth-restored');
        note(
          testInfo,
          `restored at step ${after.run.step}: ` +
            JSON.stringify({
              preset: url.preset,
              learning_rate: after.run.config.learning_rate,
              m: after.run.config.difficulty.m,
            }),
        );
      });
    } finally {
      await p.close();
    }
  },
);

test('restoring from a plain address rewrites the URL to the saved experiment', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const p = await openPage(
    browser,
    '/?v=1&preset=gspo&learning_rate=0.0005&prompts_per_step=2&num_generations=2&eval_every=0',
  );
  try {
    await withPageDiagnostics(testInfo, p, 'config-truth-plain', async () => {
      const { page } = p;
      await page.click('[data-testid="step-once"]');
      await page.waitForFunction(() => window.__rlvr.state().autosave?.step === 1, undefined, {
        timeout: 120_000,
        polling: 250,
      });
      // Another tab of this browser (no sessionStorage of its own) opens the bare address: it is
      // offered the saved run (src/ui/state/tabs.ts), and restoring it rewrites the address.
      const other = await p.context.newPage();
      await other.goto(new URL('/', page.url()).href, { waitUntil: 'load' });
      await other.waitForSelector('[data-testid="saved-run-banner"]', { timeout: 30_000 });
      await other.click('[data-testid="restore-saved-0"]');
      await other.waitForFunction(
        () => window.__rlvr?.state().run.step === 1 && window.__rlvr.state().run.state === 'paused',
        undefined,
        { timeout: 120_000, polling: 250 },
      );
      const q = params(other);
      assert.equal(q.preset, 'gspo');
      assert.equal(q.learning_rate, '0.0005');
      assert.equal((await state(other)).run.config.learning_rate, 0.0005);
      // A link to a different experiment in a fresh tab asks first.
      const third = await p.context.newPage();
      await third.goto(new URL('/?preset=dapo', page.url()).href, { waitUntil: 'load' });
      await third.waitForSelector('[data-testid="saved-run-banner"]', { timeout: 30_000 });
      await other.close();
      await third.close();
    });
  } finally {
    await p.close();
  }
});

test('checks Start would fail on are inline, naming each field', async ({}, testInfo) => {
  test.setTimeout(60_000);
  const p = await openPage(browser, '/');
  try {
    await withPageDiagnostics(testInfo, p, 'config-truth-inline', async () => {
      const { page } = p;
      await page.waitForFunction(() => window.__rlvr?.state().checkpoints.some((c) => c.manifest), undefined, {
        timeout: 30_000,
      });
      await page.fill('[data-testid="field-max_completion_length"]', '500');
      await page.waitForSelector('[data-testid="error-max_completion_length"]', { timeout: 10_000 });
      assert.match(
        await text(page, 'error-max_completion_length'),
        /prompt tokens \+ max_completion_length 500 = \d+ positions, but the model has 128/,
      );
      await page.fill('[data-testid="field-num_generations"]', '1');
      await page.waitForSelector('[data-testid="error-num_generations"]');
      assert.equal(await page.isDisabled('[data-testid="start"]'), true);
      const note = await text(page, 'invalid-note');
      assert.match(note, /Fix 2 invalid settings to train: /);
      assert.match(note, /num_generations/);
      assert.match(note, /max_completion_length/);
      // The field name in the note takes you to the field.
      await page.click('[data-testid="invalid-max_completion_length"]');
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute('data-testid')),
        'field-max_completion_length',
      );
      await page.fill('[data-testid="field-max_completion_length"]', '48');
      await page.fill('[data-testid="field-num_generations"]', '8');
      await page.waitForSelector('[data-testid="invalid-note"]', { state: 'detached' });
      assert.equal(await page.isDisabled('[data-testid="start"]'), false);
    });
  } finally {
    await p.close();
  }
});
