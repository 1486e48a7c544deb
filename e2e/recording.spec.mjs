// Recorded runs in the page, end to end on the production build (alone:
// `npx vite build && npx playwright test e2e/recording.spec.mjs`).
//
// The shipped record public/records/sat-grpo-30.rlvr.gz was written by `rlvr train --record`
// (scripts/record-lessons.sh makes it again). It opens from the shipped list (time reported against a 2 s goal) with its
// curves, its rollouts at the first and the last step, its objective panel and its recorded pass@k;
// it opens from `?run=URL` and by drag-and-drop; the scrubber moves with the keyboard. Bad files
// (truncated, corrupt, a newer version, 200 MB, `__proto__` keys, NaN) each give a message naming what
// is wrong while a live run with its autosave and the recording already open stay exactly as they were;
// HTML in a prompt is shown as text. A lesson opens with its recording (from its card, time reported against 2 s, and
// from `?lesson=ID`) and trains only on "Run it live". Timings go to test-results/recording-e2e.json.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { note, openPage, RESULTS_DIR, ROOT, screenshot } from './lib.mjs';

const SHIPPED = 'records/sat-grpo-30.rlvr.gz';
const good = readFileSync(join(ROOT, 'public', SHIPPED));
const MAGIC = 16;
const timings = {};
/**
 * Opening a recording or a lesson has a goal of 2 s. On a shared 2-core machine a wall-clock limit
 * fails for reasons that are not the app's, so the suite reports the figure and fails only on a hang
 * (HANG_MS); scripts/measure-page.mjs (`npm run bench:page`) holds the figure to the goal.
 */
const OPEN_GOAL_S = 2;
const HANG_MS = 30_000;

/** Waits until `n` record readers are started and running their script (each can take an arm at once). */
async function readersReady(page, n) {
  const readers = () => page.workers().filter((w) => w.url().includes('record-reader'));
  await expect
    .poll(() => readers().length, { timeout: 30_000, message: `${n} record readers started` })
    .toBeGreaterThanOrEqual(n);
  await Promise.all(readers().map((w) => w.evaluate(() => true)));
}

/** The record's header (JSON text) and binary section, and the way back (the format of src/record/run-record.ts). */
function unpack(bytes) {
  const raw = gunzipSync(bytes);
  const len = raw.readUInt32LE(MAGIC);
  const start = MAGIC + 4;
  const end = start + len;
  const padded = end + ((4 - (end % 4)) % 4);
  return { magic: raw.subarray(0, MAGIC), text: raw.subarray(start, end).toString('utf8'), blob: raw.subarray(padded) };
}
function pack({ magic, blob }, text) {
  const header = Buffer.from(text, 'utf8');
  const lenBytes = Buffer.alloc(4);
  lenBytes.writeUInt32LE(header.length);
  const pad = Buffer.alloc((4 - ((MAGIC + 4 + header.length) % 4)) % 4);
  return gzipSync(Buffer.concat([magic, lenBytes, header, pad, blob]));
}
function withHeader(change) {
  const u = unpack(good);
  const h = JSON.parse(u.text);
  change(h);
  return pack(u, JSON.stringify(h));
}
function withText(change) {
  const u = unpack(good);
  const text = change(u.text);
  assert.notEqual(text, u.text, 'the edit applied');
  return pack(u, text);
}

/** Each bad file and what its message must say. */
const badFiles = {
  truncated: { bytes: () => good.subarray(0, Math.floor(good.length / 2)), says: /truncated/ },
  corrupt: {
    bytes: () => {
      const b = Buffer.from(good);
      for (let i = Math.floor(b.length * 0.4); i < Math.floor(b.length * 0.4) + 256; i++) b[i] ^= 0x5a;
      return b;
    },
    says: /corrupt|truncated|not valid/,
  },
  'newer version': {
    bytes: () => withHeader((h) => (h.version = 99)),
    says: /format version 99, newer than this playground reads/,
  },
  '__proto__ key': {
    bytes: () => withText((t) => t.replace('"metrics":{', '"metrics":{"__proto__":{"polluted":1},')),
    says: /"__proto__", which is refused/,
  },
  'NaN (a string where a finite number must be)': {
    bytes: () => withHeader((h) => (h.evals[0].pass_at_k['1'] = 'NaN')),
    says: /evals\[0\]\.pass_at_k\["1"\] must be a finite number, got "NaN"/,
  },
  'NaN (a bare NaN, not JSON)': {
    bytes: () => withText((t) => t.replace(/"reward":-?[\d.e+-]+/, '"reward":NaN')),
    says: /header is not valid JSON/,
  },
};

const state = (page) => page.evaluate(() => window.__rlvr.state());

async function open(path) {
  const p = await openPage(browser, path, { viewport: { width: 1280, height: 900 } });
  await p.page.waitForFunction(() => !!window.__rlvr && window.__rlvr.state().booted, undefined, { timeout: 30_000 });
  return p;
}

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});
test.afterAll(() => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'recording-e2e.json'), JSON.stringify(timings, null, 2));
});

/** Puts bytes into the page's file picker as a file. */
async function pick(page, name, bytes) {
  await page.setInputFiles('[data-testid="recording-file"]', {
    name,
    mimeType: 'application/gzip',
    buffer: Buffer.from(bytes),
  });
}

async function openRollout(page) {
  await page.click('[data-testid="tab-rollouts"]');
  await page.waitForSelector('[data-testid="groups-table"]');
  await page.locator('[data-testid^="open-rollout-"]').first().click();
  await page.locator('[data-testid="token"]').first().click();
  await page.waitForSelector('[data-testid="objective-panel"]');
}

test('a shipped recording opens (its time reported) with its curves, rollouts at the first and last step, objective panel and recorded pass@k', async ({}, testInfo) => {
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
      `the shipped recording opened with its curves in ${seconds.toFixed(2)} s (goal ${OPEN_GOAL_S} s, held to it by scripts/measure-page.mjs)`,
    );
    const banner = await page.textContent('[data-testid="recording-banner"]');
    assert.match(banner, /recorded run/);
    assert.match(banner, /recording/);
    const s = await state(page);
    assert.equal(s.run.state, 'idle', 'nothing trains: no live run was started');
    assert.equal(s.metrics.length, 0, "the live run's metrics are untouched");
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
});

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

test('a run record that the exported TRL project wrote under real TRL opens: its steps, completions, rewards and per-token view', async () => {
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
});

test('a TRL-made record\'s chart captions print no "undefined": a metric TRL does not log is not in this record, and a smoothed value says it is smoothed', async ({}, testInfo) => {
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
      metrics: window.__rlvr.state().recording.metrics,
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
});

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

test('bad records each say what is wrong; the live run, its autosave and the open recording stay as they were', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const p = await open('/');
  const { page } = p;
  const huge = join(tmpdir(), `rlvr-huge-${process.pid}.rlvr.gz`);
  try {
    // A live run with one step, autosaved.
    await page.evaluate(() => window.__rlvr.setAutosaveEvery(1));
    await page.click('[data-testid="step-once"]');
    await page.waitForFunction(
      () => window.__rlvr.state().run.step === 1 && window.__rlvr.state().autosave?.step === 1,
      undefined,
      { timeout: 240_000, polling: 500 },
    );
    const autosaved = () =>
      page.evaluate(
        () =>
          new Promise((ok, fail) => {
            const req = indexedDB.open('rlvr-playground', 1);
            req.onerror = () => fail(req.error);
            req.onsuccess = () => {
              // This tab's run is saved under run:ID, the id its sessionStorage names (src/ui/state/tabs.ts).
              const get = req.result
                .transaction('runs')
                .objectStore('runs')
                .get(`run:${sessionStorage.getItem('rlvr.tabRun')}`);
              get.onsuccess = () => {
                const v = get.result;
                ok(
                  v
                    ? {
                        step: v.snapshot.trainer.step,
                        savedAt: v.snapshot.savedAt,
                        metrics: v.snapshot.metrics?.length ?? null,
                      }
                    : null,
                );
                req.result.close();
              };
              get.onerror = () => fail(get.error);
            };
          }),
      );
    const live = (s) => ({
      step: s.run.step,
      state: s.run.state,
      config: JSON.stringify(s.run.config),
      metrics: JSON.stringify(s.metrics),
      evals: JSON.stringify(s.evals),
      autosave: s.autosave,
    });
    const savedBefore = await autosaved();
    assert.equal(savedBefore?.step, 1, 'the live run is autosaved');
    const before = await state(page);
    // And a recording already open: opening it leaves the live run as it was.
    await pick(page, 'good.rlvr.gz', good);
    await page.waitForSelector('[data-testid="recording-banner"]');
    assert.deepEqual(live(await state(page)), live(before), 'opening a recording leaves the live run as it was');

    writeFileSync(huge, '');
    truncateSync(huge, 200 * 1024 * 1024);
    const cases = [
      ...Object.entries(badFiles).map(([name, c]) => ({
        name,
        file: {
          name: `${name.replace(/\W+/g, '-')}.rlvr.gz`,
          mimeType: 'application/gzip',
          buffer: Buffer.from(c.bytes()),
        },
        says: c.says,
      })),
      { name: '200 MB', file: huge, says: /the file is 200 MB; records of 200 MB or more are refused/ },
    ];
    for (const c of cases) {
      const t0 = Date.now();
      await page.setInputFiles('[data-testid="recording-file"]', c.file);
      await page.waitForSelector('[data-testid="recording-error"]', { timeout: 20_000 });
      const msg = await page.textContent('[data-testid="recording-error"]');
      timings[`bad:${c.name}`] = (Date.now() - t0) / 1000;
      note(testInfo, `${c.name}: "${msg.replace(/Dismiss$/, '')}" (${((Date.now() - t0) / 1000).toFixed(2)} s)`);
      assert.match(msg, /^Could not open .+: not a readable run record: /);
      assert.match(msg, c.says);
      const after = await state(page);
      assert.deepEqual(live(after), live(before), `${c.name}: the live run is untouched`);
      assert.equal(after.recording.name, 'good.rlvr.gz', `${c.name}: the open recording is kept`);
      assert.equal(after.recording.showing, true);
      assert.equal({}.polluted, undefined, 'no prototype was altered');
      assert.equal(await page.evaluate(() => ({}).polluted), undefined);
      // The page still answers (nothing froze it): the time is reported; the ceiling only catches a hang
      // (a shared 2-core machine under load can take seconds for any round trip).
      const t1 = Date.now();
      await page.evaluate(() => 1);
      timings[`answer:${c.name}`] = (Date.now() - t1) / 1000;
      assert.ok(Date.now() - t1 < 30_000, `the page did not answer for ${Date.now() - t1} ms`);
      await page.click('[data-testid="recording-error"] button');
    }
    assert.deepEqual(await autosaved(), savedBefore, 'the autosave is untouched');
    await screenshot(page, 'recording-bad-input');
  } finally {
    rmSync(huge, { force: true });
    await p.close();
  }
});

// The shipped lesson records (scripts/record-lessons.sh: `rlvr lesson run`, every arm on every measured
// seed, thinned by `rlvr record thin`), as the page's list names them. The lesson these tests open is the
// first in the list with all of its arms on the seed its outcome was measured with.
const shippedIndex = JSON.parse(readFileSync(join(ROOT, 'public/records/index.json'), 'utf8')).records;
const measuredLessons = JSON.parse(readFileSync(join(ROOT, 'public/lessons/measured.json'), 'utf8'));
const LESSON = (() => {
  const byLesson = new Map();
  for (const r of shippedIndex)
    if (r.lesson) (byLesson.get(r.lesson.id) ?? byLesson.set(r.lesson.id, []).get(r.lesson.id)).push(r);
  for (const [id, records] of byLesson) {
    const seed = measuredLessons[id]?.seed;
    const arms = records.filter((r) => r.lesson.seed === seed);
    const labels = measuredLessons[id]?.runs.map((x) => x.label) ?? [];
    if (arms.length > 1 && labels.every((l) => arms.some((r) => r.lesson.arm === l)))
      return { id, seed, labels, measured: measuredLessons[id] };
  }
  return null;
})();

async function openLessonPage(path) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(new URL(path, process.env.E2E_BASE_URL).href, { waitUntil: 'load' });
  await page.waitForFunction(() => !!window.__rlvr && window.__rlvr.state().booted, undefined, { timeout: 30_000 });
  return { page, errors, close: () => context.close() };
}

test('a lesson opens from the Lessons tab (its time reported) with every arm\'s recorded curves, its verdict and its rollouts, and trains nothing until "Run it live"', async ({}, testInfo) => {
  test.setTimeout(120_000);
  assert.ok(
    LESSON,
    'public/records/index.json lists every arm of at least one lesson on its measured seed (scripts/record-lessons.sh)',
  );
  const p = await openLessonPage('/');
  const { page } = p;
  try {
    // Every state the main run and Compare take from here on: nothing may train before "Run it live".
    await page.evaluate(() => {
      window.__e2eTrained = [];
      window.__rlvr.subscribe((s) => {
        if (s.run.state !== 'idle' || s.compare.running)
          window.__e2eTrained.push(`run ${s.run.state}, compare running ${s.compare.running}`);
      });
    });
    await page.click('[data-testid="tab-lessons"]');
    await page.waitForSelector(`[data-testid="lesson-open-${LESSON.id}"]`);
    // The precondition of the timing: the spare record readers (one per arm) are started once the page
    // has settled (src/ui/components/recording/RecordingBar.tsx, src/ui/state/recording.ts prewarmRecordReader).
    await readersReady(page, LESSON.labels.length);
    const t0 = Date.now();
    await page.click(`[data-testid="lesson-open-${LESSON.id}"]`);
    // The lesson's banner scrolls into view on open (src/ui/components/lessons/LessonBanner.tsx), and a
    // chart draws once in view: the reward chart is brought into view when the recordings are in place.
    await page.waitForFunction(
      (n) =>
        document.querySelector('[data-testid="recording-banner"]') &&
        document.querySelector('[data-testid="compare-all-recorded"]') &&
        window.__rlvr.state().compare.a.metrics.length >= n,
      LESSON.measured.steps,
      { timeout: HANG_MS },
    );
    await page.locator('[data-testid="compare-chart-reward"]').scrollIntoViewIfNeeded();
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid="compare-chart-reward"]')?.getAttribute('data-points')) >= n,
      LESSON.measured.steps,
      { timeout: HANG_MS },
    );
    const seconds = (Date.now() - t0) / 1000;
    timings.lessonOpenSeconds = seconds;
    timings.lesson = LESSON.id;
    // The opening's phases (src/ui/state/recording.ts marks them): read and decoded, shown in the store; the rest
    // is drawing.
    timings.lessonOpenPhases = await page.evaluate(() => {
      const at = (n) => performance.getEntriesByName(n).at(-1)?.startTime ?? NaN;
      return {
        decodedMs: Math.round(at('record-decoded') - at('record-open')),
        shownMs: Math.round(at('record-shown') - at('record-open')),
        sinceShownMs: Math.round(performance.now() - at('record-shown')),
      };
    });
    note(testInfo, `phases: ${JSON.stringify(timings.lessonOpenPhases)}`);
    note(
      testInfo,
      `lesson ${LESSON.id} opened from its card with the recorded curves of its ${LESSON.labels.length} arms in ${seconds.toFixed(2)} s (goal ${OPEN_GOAL_S} s, held to it by scripts/measure-page.mjs)`,
    );
    const s = await state(page);
    const sides = [s.compare.a, s.compare.b, ...(s.compare.c ? [s.compare.c] : [])];
    assert.deepEqual(
      sides.map((x) => x.label),
      LESSON.labels,
      "Compare draws every arm, in the lesson's order",
    );
    // The seed shown first is one on which the effect shows (src/ui/derive/lesson-seeds.ts); the mean over
    // every seed replaces its curves once the other seeds are read (e2e/trips.spec.mjs checks the mean).
    const shownSeed = s.compare.overSeeds?.shownSeed ?? LESSON.seed;
    for (const x of sides) {
      assert.equal(x.state, 'recorded');
      assert.equal(x.metrics.length, LESSON.measured.steps, `${x.label}: every recorded step`);
      assert.equal(x.config.seed, shownSeed);
    }
    assert.ok(
      (await page.locator('[data-testid="compare-chart-reward"] .recharts-line').count()) >= LESSON.labels.length,
      'a line per arm',
    );
    assert.match(
      await page.textContent('[data-testid="lesson-banner"]'),
      s.compare.overSeeds
        ? /Showing its recorded runs \(A /
        : new RegExp(`Showing its recorded runs \\(seed ${LESSON.seed}:`),
    );
    // The verdict is the one measured.json gives for the same runs.
    const verdictText = await page.textContent('[data-testid="lesson-banner-verdict"]');
    const shows = await page.getAttribute('[data-testid="lesson-banner-verdict"]', 'data-shows');
    assert.ok(
      verdictText.startsWith(shows === 'true' ? 'The effect shows.' : 'The effect does not show here.'),
      verdictText,
    );
    assert.match(
      await page.textContent('[data-testid="recording-banner"]'),
      new RegExp(`Lesson ${LESSON.id}, ${LESSON.labels[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, seed ${shownSeed}`),
    );
    // Rollouts: the first arm's at the last recorded step, then the second arm's at the same step.
    await page.click('[data-testid="tab-rollouts"]');
    await page.waitForSelector('[data-testid="rollout-row"]', { timeout: 10_000 });
    await page.click('[data-testid="recording-arm-1"]');
    await page.waitForFunction(
      (arm) => window.__rlvr.state().recording?.record.provenance.lesson?.arm === arm,
      LESSON.labels[1],
    );
    await page.waitForSelector('[data-testid="rollout-row"]', { timeout: 10_000 });
    assert.equal((await state(page)).recording.record.provenance.lesson.seed, shownSeed);
    assert.equal(await page.locator('[data-testid="lesson-run-live"]').count(), 1, 'the banner offers Run it live');
    await page.click('[data-testid="tab-compare"]');
    assert.equal(
      await page.isDisabled('[data-testid="compare-start"]', { timeout: 5000 }),
      true,
      'Run both does not train recordings',
    );
    // Both arms opened and inspected, Compare drawn: any start the opening made would be in the log.
    assert.deepEqual(await page.evaluate(() => window.__e2eTrained), [], 'nothing trains before Run it live');
    assert.equal((await state(page)).run.state, 'idle');
    await screenshot(page, 'recording-lesson');
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test('?lesson=ID opens the lesson with its recording; "Run it live" then starts its runs', async ({}, testInfo) => {
  test.setTimeout(180_000);
  assert.ok(LESSON, 'a lesson ships with its recorded arms');
  const p = await openLessonPage(`/?lesson=${LESSON.id}&steps=1`);
  const { page } = p;
  try {
    await page.waitForSelector('[data-testid="recording-banner"]', { timeout: 30_000 });
    assert.equal((await state(page)).recording.record.provenance.lesson.id, LESSON.id);
    assert.equal(
      (await state(page)).compare.a.state,
      'recorded',
      'nothing started from the link: Compare shows the recordings',
    );
    await page.click('[data-testid="lesson-run-live"]');
    await page.waitForSelector('[data-testid="view-compare"]');
    await page.waitForFunction(
      () => ['a', 'b'].every((k) => !['idle', 'recorded'].includes(window.__rlvr.state().compare[k].state)),
      undefined,
      { timeout: 120_000 },
    );
    assert.equal(
      await page.locator('[data-testid="recording-banner"]').count(),
      0,
      'the page shows the live runs, not the recording',
    );
    note(testInfo, `Run it live started the runs of ${LESSON.id}`);
    await page.click('text=Stop and free the workers');
  } finally {
    await p.close();
  }
});

test('"Run it live" pressed before the lesson\'s records have arrived: the records never replace the live runs', async ({}, testInfo) => {
  test.setTimeout(180_000);
  assert.ok(LESSON, 'a lesson ships with its recorded arms');
  const p = await openLessonPage(`/?lesson=${LESSON.id}&steps=3`);
  const { page } = p;
  try {
    // As soon as the banner offers it, before the records are read and decoded.
    await page.click('[data-testid="lesson-run-live"]', { timeout: 30_000 });
    await page.waitForFunction(
      () => ['a', 'b'].every((k) => window.__rlvr.state().compare[k].state === 'running'),
      undefined,
      { timeout: 120_000 },
    );
    // The records' arrival: openRecordedArms (src/ui/state/recording.ts) marks 'record-decoded' once every arm
    // is read and decoded, and drops them or shows them in the same task.
    await page.waitForFunction(() => performance.getEntriesByName('record-decoded').length > 0, undefined, {
      timeout: 60_000,
      polling: 100,
    });
    const s = await page.evaluate(() => {
      const c = window.__rlvr.state().compare;
      return {
        running: c.running,
        states: [c.a.state, c.b.state],
        steps: c.steps,
        recording: window.__rlvr.state().recording?.showing ?? null,
      };
    });
    assert.equal(s.running, true, 'Compare is still training');
    assert.ok(
      s.states.every((x) => x !== 'recorded'),
      `live sides, not recordings: ${s.states}`,
    );
    assert.equal(s.steps, 3, "the link's step budget, not the recording's 150");
    assert.notEqual(s.recording, true, 'the page shows the live runs');
    note(testInfo, `sides ${s.states.join(', ')} once the records had arrived`);
    await page.click('text=Stop and free the workers');
  } finally {
    await p.close();
  }
});

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

test('two recordings side by side in Compare: a rlvr train record and a TRL run, each inspectable, nothing trains', async ({}, testInfo) => {
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
    await page.waitForFunction(() => window.__rlvr.state().recording?.record.provenance.writer === 'trl train_grpo.py');
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
    await page.waitForFunction(() => window.__rlvr.state().recording?.record.provenance.writer === 'trl train_grpo.py');
    assert.equal((await state(page)).run.state, 'idle', 'nothing trains');
    note(testInfo, 'Compare drew a rlvr train record (30 steps) and a TRL record (2 steps) side by side');
    await screenshot(page, 'recording-compare-two');
    await page.click('[data-testid="recording-close"]');
    assert.equal((await state(page)).compare.a.state, 'idle', 'closing the recording takes its sides out of Compare');
  } finally {
    await p.close();
  }
});

test("each family's shipped recipe run opens with its 200 steps, its held-out evaluations and the weights after its last step", async ({}, testInfo) => {
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
      assert.deepEqual(rec.rollouts, [1, 51, 101, 151, 200], `${r.file}: the rollouts of every 50th step and the last`);
      await page.waitForSelector('[data-testid="recording-continue"]', { timeout: 10_000 }); // at the last step, where the weights are
      seen.push(`${rec.task} ${seconds.toFixed(2)} s`);
    }
    note(testInfo, `opened: ${seen.join(', ')}`);
  } finally {
    await p.close();
  }
});

test('"Continue training from here" starts a run from the weights recorded at that step, with the recording config', async ({}, testInfo) => {
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
});
