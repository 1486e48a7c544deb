// Recordings in Compare, the shipped recipe runs, and training on from a recording, on the production
// build (alone: `npx vite build && npx playwright test e2e/recording-compare.spec.mjs`).
// Timings go to test-results/recording-compare-e2e.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, ROOT, screenshot, setField } from './lib.mjs';
import { open, pick, recordingHooks, SHIPPED, shippedIndex, state } from './recording-lib.mjs';

recordingHooks(test, 'recording-compare-e2e.json');

test('Compare shows a recording beside live runs on its task and seed', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const p = await open(`/?run=${encodeURIComponent(SHIPPED)}`);
  const { page } = p;
  try {
    await page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
    await page.click('[data-testid="recording-compare"]');
    await page.waitForSelector('[data-testid="compare-recorded"]');
    let s = await state(page);
    assert.equal(s.compare.c.state, 'recorded');
    assert.equal(s.compare.c.metrics.length, 30);
    assert.equal(s.setup.draft.task, 'sat', "the setup takes the recording's task");
    assert.equal(s.setup.draft.edits.seed, '0', 'and its seed');
    await page.fill('#compare-steps', '1');
    // No held-out evaluation at step 0 (32 prompts x 8 samples on each side): this test looks at the first step.
    await setField(page, 'eval_every', '0');
    const t0 = Date.now();
    await page.click('[data-testid="compare-start"]');
    await page.waitForFunction(
      () => ['a', 'b'].every((k) => window.__rlvr.state().compare[k].metrics.length >= 1),
      undefined,
      { timeout: 280_000, polling: 500 },
    );
    note(testInfo, `A and B trained a first step beside the recording in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    s = await state(page);
    assert.equal(s.compare.c.state, 'recorded', 'the recording stays beside the live runs');
    assert.equal(s.compare.a.config.seed, s.compare.c.config.seed, 'A runs on the recording seed');
    assert.equal(s.compare.a.config.task, 'sat');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="compare-status"]')?.textContent?.includes('C: recorded step 30'),
    );
    assert.equal(
      await page.getAttribute('[data-testid="compare-chart-reward"]', 'data-points'),
      '30',
      "the reward chart has the recording's 30 steps with the live step 1 among them",
    );
    assert.equal(
      await page.locator('[data-testid="compare-chart-reward"] .recharts-line').count(),
      3,
      'three lines: A, B and the recording',
    );
    assert.equal(s.run.state, 'idle', 'the main run was not started');
    await screenshot(page, 'recording-compare');
    await page.click('text=Stop and free the workers');
  } finally {
    await p.close();
  }
});

test(
  'two recordings side by side in Compare: a rlvr ' +
    'train record and a TRL run, each inspectable, ' +
    'nothing trains',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const p = await open(`/?run=${encodeURIComponent(SHIPPED)}`);
    const { page } = p;
    try {
      await page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
      await page.click('[data-testid="recording-add-compare"]');
      await page.waitForSelector('[data-testid="compare-all-recorded"]');
      await pick(
        page,
        'trl-arithmetic-2steps.rlvr.gz',
        readFileSync(join(ROOT, 'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz')),
      );
      await page.waitForFunction(
        () => window.__rlvr.state().recording?.record.provenance.writer === 'trl train_grpo.py',
      );
      await page.click('[data-testid="recording-add-compare"]');
      await page.waitForFunction(() => window.__rlvr.state().compare.b.state === 'recorded');
      const s = await state(page);
      assert.deepEqual([s.compare.a.state, s.compare.b.state, s.compare.c], ['recorded', 'recorded', null]);
      assert.equal(s.compare.a.metrics.length, 30, 'A: the 30 steps of the rlvr train record');
      assert.equal(s.compare.b.metrics.length, 2, 'B: the 2 steps TRL trained');
      assert.ok(
        s.compare.diff.some(([k]) => k === 'task'),
        'the config differences name the task',
      );
      assert.equal(await page.isDisabled('[data-testid="compare-start"]'), true, 'Run both does not train recordings');
      // The inspector follows the chosen recording.
      await page.click('[data-testid="recording-arm-0"]');
      await page.waitForFunction(() => window.__rlvr.state().recording?.record.provenance.writer === 'rlvr train');
      await page.click('[data-testid="recording-arm-1"]');
      await page.waitForFunction(
        () => window.__rlvr.state().recording?.record.provenance.writer === 'trl train_grpo.py',
      );
      assert.equal((await state(page)).run.state, 'idle', 'nothing trains');
      note(testInfo, 'Compare drew a rlvr train record (30 steps) and a TRL record (2 steps) side by side');
      await screenshot(page, 'recording-compare-two');
      await page.click('[data-testid="recording-close"]');
      assert.equal((await state(page)).compare.a.state, 'idle', 'closing the recording takes its sides out of Compare');
    } finally {
      await p.close();
    }
  },
);

test(
  "each family's shipped recipe run opens with its " +
    '200 steps, its held-out evaluations and the ' +
    'weights after its last step',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const recipes = shippedIndex.filter((r) => r.file.startsWith('records/recipes/'));
    assert.deepEqual(
      recipes.map((r) => r.file.match(/recipes\/(\w+)-/)[1]).sort(),
      ['arithmetic', 'chain', 'countdown', 'sat', 'sort', 'sudoku'],
      'a recipe run per family ships (scripts/record-lessons.sh recipes)',
    );
    const p = await open('/');
    const { page } = p;
    try {
      const seen = [];
      for (const r of recipes) {
        const t0 = Date.now();
        await page.selectOption('[data-testid="shipped-recordings"]', { label: r.title });
        await page.waitForFunction((title) => window.__rlvr.state().recording?.name === title, r.title, {
          timeout: 20_000,
        });
        const seconds = (Date.now() - t0) / 1000;
        // A summary read in the page (the whole record is megabytes of rollouts).
        const rec = await page.evaluate(() => {
          const x = window.__rlvr.state().recording.record;
          return {
            task: x.config.task,
            steps: x.steps.length,
            checkpoints: x.checkpoints.map((c) => c.step),
            evals: x.evals.map((e) => e.step),
            rollouts: x.rollouts.map((q) => q.step),
          };
        });
        assert.equal(rec.steps, 200, `${r.file}: 200 steps`);
        assert.deepEqual(rec.checkpoints, [200], `${r.file}: the weights after step 200`);
        assert.ok(
          rec.evals.includes(0) && rec.evals.includes(200),
          `${r.file}: held-out pass@k of the base and after training`,
        );
        assert.deepEqual(
          rec.rollouts,
          [1, 51, 101, 151, 200],
          `${r.file}: the rollouts of every 50th step and the last`,
        );
        // at the last step, where the weights are
        await page.waitForSelector('[data-testid="recording-continue"]', { timeout: 10_000 });
        seen.push(`${rec.task} ${seconds.toFixed(2)} s`);
      }
      note(testInfo, `opened: ${seen.join(', ')}`);
    } finally {
      await p.close();
    }
  },
);

test(
  '"Continue training from here" starts a run from ' +
    'the weights recorded at that step, with the ' +
    'recording config',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const p = await open(`/?run=${encodeURIComponent(SHIPPED)}`);
    const { page } = p;
    try {
      await page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
      const recorded = await page.evaluate(() => {
        const r = window.__rlvr.state().recording.record;
        return {
          checkpoint: r.checkpoints.map((c) => ({ step: c.step, name: c.manifest.name })),
          seed: r.config.seed,
          task: r.config.task,
          lr: r.config.learning_rate,
        };
      });
      assert.deepEqual(
        recorded.checkpoint.map((c) => c.step),
        [30],
        'the shipped record keeps the weights after step 30',
      );
      // Not offered where no weights were recorded.
      await page.focus('[data-testid="recording-scrubber"]');
      await page.keyboard.press('ArrowLeft');
      assert.equal(await page.locator('[data-testid="recording-continue"]').count(), 0);
      await page.waitForSelector('[data-testid="recording-checkpoints"]');
      await page.keyboard.press('End');
      const t0 = Date.now();
      await page.click('[data-testid="recording-continue"]');
      await page.waitForFunction(() => window.__rlvr.state().run.step >= 1, undefined, {
        timeout: 280_000,
        polling: 500,
      });
      note(
        testInfo,
        `the run from the recorded weights trained its first step in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      await page.click('[data-testid="pause"]').catch(() => undefined);
      const s = await state(page);
      assert.equal(s.run.model.name, recorded.checkpoint[0].name, 'the run starts from the recorded weights');
      assert.equal(s.run.config.task, recorded.task);
      assert.equal(s.run.config.seed, recorded.seed);
      assert.equal(s.run.config.learning_rate, recorded.lr);
      assert.equal(s.recording.showing, false, 'the page shows the new live run');
      await screenshot(page, 'recording-continue');
    } finally {
      await p.close();
    }
  },
);
