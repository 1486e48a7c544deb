// Recorded runs in the page, end to end on the production build (alone:
// `npx vite build && npx playwright test e2e/recording.spec.mjs`).
//
// The shipped record public/records/sat-grpo-30.rlvr.gz was written by `rlvr train --record`
// (scripts/record-lessons.sh makes it again). It opens from the shipped list (time reported against a 2 s goal) with
// its
// curves, its rollouts at the first and the last step, its objective panel and its recorded pass@k;
// it opens from `?run=URL` and by drag-and-drop; the scrubber moves with the keyboard; records TRL wrote open
// too; HTML in a prompt is shown as text. Bad files: recording-bad-input.spec.mjs; lessons with their
// recordings: recording-lessons.spec.mjs; recordings in Compare and continuing from one:
// recording-compare.spec.mjs. Timings go to test-results/recording-e2e.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, ROOT, screenshot } from './lib.mjs';
import {
  good,
  HANG_MS,
  open,
  OPEN_GOAL_S,
  openRollout,
  pick,
  readersReady,
  recordingHooks,
  SHIPPED,
  state,
  timings,
  unpack,
  withHeader,
} from './recording-lib.mjs';

recordingHooks(test, 'recording-e2e.json');

test(
  'a shipped recording opens (its time reported) with ' +
    'its curves, rollouts at the first and last step, ' +
    'objective panel and recorded pass@k',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const p = await open('/');
    const { page } = p;
    try {
      await page.click('[data-testid="tab-charts"]');
      await page.waitForSelector('[data-testid="shipped-recordings"] option:nth-child(2)', { state: 'attached' });
      await readersReady(page, 1);
      const t0 = Date.now();
      await page.selectOption('[data-testid="shipped-recordings"]', { index: 1 });
      await page.waitForSelector('[data-testid="recording-banner"]');
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid="charts-steps"]')?.textContent?.startsWith('30 steps') &&
          document.querySelector('[data-testid="chart-eval"]')?.getAttribute('data-points') === '4',
        undefined,
        { timeout: HANG_MS },
      );
      const seconds = (Date.now() - t0) / 1000;
      const drawnAt = await page.evaluate(() => Math.round(performance.now()));
      timings.shippedOpenSeconds = seconds;
      timings.shippedOpenPhases = await page.evaluate(() =>
        Object.fromEntries(
          ['record-open', 'record-read', 'record-decoded', 'record-shown'].map((m) => [
            m,
            Math.round(performance.getEntriesByName(m)[0]?.startTime ?? -1),
          ]),
        ),
      );
      note(
        testInfo,
        `phases (ms since navigation): ${JSON.stringify(timings.shippedOpenPhases)}, charts drawn by ${drawnAt}`,
      );
      note(
        testInfo,
        `the shipped recording opened with its curves in ${seconds.toFixed(2)} ` +
          `s (goal ${OPEN_GOAL_S} s, held to it by ` +
          'scripts/measure-page.mjs)',
      );
      const banner = await page.textContent('[data-testid="recording-banner"]');
      assert.match(banner, /recorded run/);
      assert.match(banner, /recording/);
      const s = await state(page);
      assert.equal(s.run.state, 'idle', 'nothing trains: no live run was started');
      assert.equal(s.run.metrics.length, 0, "the live run's metrics are untouched");
      await screenshot(page, 'recording-charts');

      // Rollouts at the last step, then at step 1 (keyboard on the scrubber), each with the objective panel.
      await openRollout(page);
      assert.equal(await page.getAttribute('[data-testid="inspector"]', 'data-step'), '30');
      assert.equal(await page.getAttribute('[data-testid="token-view"]', 'data-step'), '30');
      await page.focus('[data-testid="recording-scrubber"]');
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="recording-step"]')?.textContent === 'step 1 of 30',
      );
      assert.equal(await page.getAttribute('[data-testid="inspector"]', 'data-step'), '1');
      await page.locator('[data-testid="token"]').first().click();
      await page.waitForSelector('[data-testid="objective-panel"]');
      assert.equal(await page.getAttribute('[data-testid="token-view"]', 'data-step'), '1');
      const obj = await page.textContent('[data-testid="obj-ratio"]');
      assert.ok(obj && obj.trim().length > 0, 'the objective panel shows the recorded ratio');
      await screenshot(page, 'recording-rollouts-step1');
      // The charts follow the scrubber.
      await page.click('[data-testid="tab-charts"]');
      await page.waitForFunction(() =>
        document.querySelector('[data-testid="charts-steps"]')?.textContent?.startsWith('1 step'),
      );

      // Recorded pass@k at the last step.
      await page.focus('[data-testid="recording-scrubber"]');
      await page.keyboard.press('End');
      await page.click('[data-testid="tab-passk"]');
      await page.waitForSelector('[data-testid="recorded-passk-chart"]');
      assert.equal(await page.getAttribute('[data-testid="recorded-passk"]', 'data-step'), '30');
      assert.equal(await page.locator('[data-testid="recorded-passk-table"] tbody tr').count(), 4);
      await screenshot(page, 'recording-passk');
      assert.deepEqual(p.pageErrors, []);
      assert.deepEqual(p.externalRequests, []);
    } finally {
      await p.close();
    }
  },
);

test('?run=URL opens a record written by rlvr train --record; a dropped file opens too', async ({}, testInfo) => {
  test.setTimeout(120_000);
  const p = await open(`/?run=${encodeURIComponent(SHIPPED)}`);
  const { page } = p;
  try {
    await page.waitForSelector('[data-testid="recording-banner"]', { timeout: 20_000 });
    const s = await state(page);
    assert.equal(s.recording.record.provenance.writer, 'rlvr train');
    assert.match(s.recording.record.provenance.command, /--record/);
    assert.equal(s.recording.steps.at(-1), 30);
    assert.ok(page.url().includes('run='), 'the link keeps ?run while the recording is open');
    await page.click('[data-testid="recording-close"]');
    assert.equal(await page.locator('[data-testid="recording-banner"]').count(), 0);
    assert.ok(!page.url().includes('run='), 'closing the recording drops ?run from the link');

    // Drag-and-drop: a drop event carrying the file, as the browser sends it.
    const b64 = good.toString('base64');
    await page.evaluate((data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dropped.rlvr.gz', { type: 'application/gzip' }));
      document
        .querySelector('main')
        .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, b64);
    await page.waitForSelector('[data-testid="recording-banner"]');
    assert.match(await page.textContent('[data-testid="recording-banner"]'), /dropped\.rlvr\.gz/);

    // Several files in one drop: the recorded run among them opens, and each other file is named.
    await page.click('[data-testid="recording-close"]');
    await page.evaluate((data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      const state = JSON.stringify({ global_step: 20, log_history: [{ loss: 0.1, step: 10 }] });
      dt.items.add(new File([state], 'trainer_state.json', { type: 'application/json' }));
      dt.items.add(new File([bytes], 'second.rlvr.gz', { type: 'application/gzip' }));
      dt.items.add(
        new File([new Uint8Array([0x50, 0x41, 0x52, 0x31, 0, 0x50, 0x41, 0x52, 0x31])], 'completions.parquet'),
      );
      document
        .querySelector('main')
        .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, b64);
    await page.waitForSelector('[data-testid="recording-error"]');
    assert.match(await page.textContent('[data-testid="recording-banner"]'), /second\.rlvr\.gz/);
    const said = await page.textContent('[data-testid="recording-error"]');
    assert.match(said, /Opened second\.rlvr\.gz/);
    assert.match(said, /trainer_state\.json is TRL's trainer_state\.json/);
    assert.match(said, /completions\.parquet is a Parquet file/);
    note(testInfo, 'opened from ?run=URL and from a drop');
  } finally {
    await p.close();
  }
});

test(
  'a run record that the exported TRL project wrote ' +
    'under real TRL opens: its steps, completions, ' +
    'rewards and per-token view',
  async () => {
    test.setTimeout(60_000);
    // e2e/fixtures/trl-arithmetic-2steps.rlvr.gz: train_grpo.py (rlvr export --format trl) run for 2 steps
    // by TRL 1.13 on CPU (scripts/trl-record-fixture.sh remakes it; src/export/trl/trl-run.test.ts checks
    // such a record against what TRL logged).
    const bytes = readFileSync(join(ROOT, 'e2e', 'fixtures', 'trl-arithmetic-2steps.rlvr.gz'));
    const header = JSON.parse(unpack(bytes).text);
    assert.equal(header.provenance.writer, 'trl train_grpo.py');
    const first = header.rollouts[0].records[0];
    const p = await open('/');
    const { page } = p;
    try {
      await pick(page, 'trl-arithmetic-2steps.rlvr.gz', bytes);
      await page.waitForSelector('[data-testid="recording-banner"]');
      assert.match(await page.textContent('[data-testid="recording-banner"]'), /recorded run/i);
      assert.match(await page.textContent('[data-testid="recording-step"]'), /of 2$/);
      await page.focus('[data-testid="recording-scrubber"]');
      await page.keyboard.press('Home');
      await page.waitForFunction(() =>
        /^step [01] of 2$/.test(document.querySelector('[data-testid="recording-step"]')?.textContent ?? ''),
      );
      if ((await page.textContent('[data-testid="recording-step"]')) === 'step 0 of 2')
        await page.keyboard.press('ArrowRight');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="recording-step"]')?.textContent === 'step 1 of 2',
      );
      await openRollout(page);
      assert.equal(await page.getAttribute('[data-testid="inspector"]', 'data-step'), '1');
      const table = await page.textContent('[data-testid="groups-table"]');
      assert.ok(table.includes(first.prompt), `TRL's prompt ${first.prompt} is listed`);
      assert.ok(
        (await page.locator('[data-testid="token"]').count()) > 0,
        "the completion's tokens are shown one by one",
      );
    } finally {
      await p.close();
    }
  },
);

test(
  "a TRL-made record's chart captions print no " +
    '"undefined": a metric TRL does not log is not in ' +
    'this record, and a smoothed value says it is ' +
    'smoothed',
  async ({}, testInfo) => {
    test.setTimeout(60_000);
    // TRL logs no length bias: its caption used to print "undefined". Reward std at
    // step 2 is 7.451e-9 as measured, under a plotted (smoothed) ~0.11: the caption printed the former.
    const bytes = readFileSync(join(ROOT, 'e2e', 'fixtures', 'trl-arithmetic-2steps.rlvr.gz'));
    const p = await open('/');
    const { page } = p;
    try {
      await pick(page, 'trl-arithmetic-2steps.rlvr.gz', bytes);
      await page.waitForSelector('[data-testid="recording-banner"]');
      await page.focus('[data-testid="recording-scrubber"]');
      await page.keyboard.press('End');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="recording-step"]')?.textContent === 'step 2 of 2',
      );
      await page.click('[data-testid="tab-charts"]');
      // The value beside each chart's title (.chart-last, as the page has always marked it).
      const value = (id) => page.textContent(`[data-testid="chart-${id}"] .chart-last`);
      await page.waitForSelector('[data-testid="chart-reward_std"] .chart-last');
      // The metrics the page holds for the recording (the store's, which the header, CSV and inspector read).
      const { metrics, smoothing } = await page.evaluate(() => ({
        metrics: window.__rlvr.state().recording.series.metrics,
        smoothing: window.__rlvr.state().smoothing,
      }));
      assert.equal(metrics.length, 2);
      assert.ok(smoothing > 0, `the page smooths by default (${smoothing})`);
      // The plot's smoothing, recomputed here: TensorBoard's debiased exponential moving average.
      let ema = 0;
      metrics.forEach((m) => (ema = ema * smoothing + (1 - smoothing) * m.reward_std));
      const drawn = ema / (1 - smoothing ** metrics.length);
      const measured = metrics[1].reward_std;
      const f = (v) => (Math.abs(v) < 0.001 && v !== 0 ? v.toExponential(3) : v.toFixed(4));
      assert.equal(await value('reward_std'), `${f(drawn)} smoothed (measured ${f(measured)})`);
      assert.equal(await value('length_bias'), 'not in this record');
      await page.locator('[data-testid="chart-reward_std"]').scrollIntoViewIfNeeded();
      await page.waitForSelector('[data-testid="chart-reward_std-summary"]');
      assert.equal(
        await page.textContent('[data-testid="chart-reward_std-summary"]'),
        `latest (step 2), smoothed with weight ${smoothing}: reward_std ${f(drawn)} (measured ${f(measured)})`,
      );
      // No caption or summary anywhere in the charts prints "undefined" or "NaN".
      const texts = await page.$$eval('[data-testid^="chart-"] figcaption, [data-testid$="-summary"]', (els) =>
        els.map((e) => e.textContent),
      );
      for (const t of texts) assert.doesNotMatch(t, /undefined|NaN/, t);
      // Smoothing off: the plot draws the measured value, and the caption prints just that.
      await page.focus('[data-testid="smoothing"]');
      await page.keyboard.press('Home');
      await page.waitForFunction(
        (v) => document.querySelector('[data-testid="chart-reward_std"] .chart-last')?.textContent === v,
        f(measured),
      );
      note(testInfo, `reward_std at step 2: drawn ${f(drawn)} (smoothing ${smoothing}), measured ${f(measured)}`);
    } finally {
      await p.close();
    }
  },
);

test('HTML in a recorded prompt is shown as text, never as markup', async () => {
  test.setTimeout(60_000);
  const html = '<img src=x onerror="window.__pwned=1"><b id="injected">bold</b>';
  const bytes = withHeader((h) => {
    for (const r of h.rollouts.at(-1).records) r.prompt = html;
  });
  const p = await open('/');
  const { page } = p;
  try {
    await pick(page, 'html.rlvr.gz', bytes);
    await page.waitForSelector('[data-testid="recording-banner"]');
    await page.click('[data-testid="tab-rollouts"]');
    await page.waitForSelector('[data-testid="groups-table"]');
    assert.ok(
      (await page.textContent('[data-testid="groups-table"]')).includes(html),
      'the prompt shows as its literal text',
    );
    assert.equal(await page.locator('#injected').count(), 0, 'no element was made from the prompt');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
  } finally {
    await p.close();
  }
});
