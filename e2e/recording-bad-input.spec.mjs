// Bad run records in the page, on the production build (alone:
// `npx vite build && npx playwright test e2e/recording-bad-input.spec.mjs`).
//
// Bad files (truncated, corrupt, a newer version, 200 MB, `__proto__` keys, NaN) each give a message naming
// what is wrong while a live run with its autosave and the recording already open stay exactly as they
// were. Timings go to test-results/recording-bad-input-e2e.json.
import assert from 'node:assert/strict';
import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { NANO, note, screenshot } from './lib.mjs';
import { good, open, pick, recordingHooks, state, timings, withHeader, withText } from './recording-lib.mjs';

recordingHooks(test, 'recording-bad-input-e2e.json');

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

test(
  'bad records each say what is wrong; the live run, ' + 'its autosave and the open recording stay as they ' + 'were',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    // The live run is the smallest real one: what it learns does not matter here, only that it stays as it was.
    const p = await open(`/?${NANO}`);
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
        metrics: JSON.stringify(s.run.metrics),
        evals: JSON.stringify(s.run.evals),
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
  },
);
