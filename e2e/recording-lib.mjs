// Helpers of the recording specs (e2e/recording*.spec.mjs): the shipped record and ways to edit it, the
// page opened on the production build, the file picker, the shipped lesson records, and the timings each
// file writes to test-results/<file>-e2e.json.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect } from '@playwright/test';
import { openPage, RESULTS_DIR, ROOT } from './lib.mjs';

export const SHIPPED = 'records/sat-grpo-30.rlvr.gz';
export const good = readFileSync(join(ROOT, 'public', SHIPPED));
const MAGIC = 16;
/** What the tests of one spec file measured; `recordingHooks` writes it out after the file. */
export const timings = {};
/**
 * Opening a recording or a lesson has a goal of 2 s. On a shared 2-core machine a wall-clock limit
 * fails for reasons that are not the app's, so the suite reports the figure and fails only on a hang
 * (HANG_MS); scripts/measure-page.mjs (`npm run bench:page`) holds the figure to the goal.
 */
export const OPEN_GOAL_S = 2;
export const HANG_MS = 30_000;

/**
 * Waits until `n` record readers are started and running their script (each can take an arm at once): run
 * reader workers (workers/run-reader.worker.ts), started ahead by src/ui/state/record-readers.ts.
 */
export async function readersReady(page, n) {
  const readers = () => page.workers().filter((w) => w.url().includes('run-reader'));
  await expect
    .poll(() => readers().length, { timeout: 30_000, message: `${n} record readers started` })
    .toBeGreaterThanOrEqual(n);
  await Promise.all(readers().map((w) => w.evaluate(() => true)));
}

/** The record's header (JSON text) and binary section, and the way back (the format of src/record/run-record.ts). */
export function unpack(bytes) {
  const raw = gunzipSync(bytes);
  const len = raw.readUInt32LE(MAGIC);
  const start = MAGIC + 4;
  const end = start + len;
  const padded = end + ((4 - (end % 4)) % 4);
  return { magic: raw.subarray(0, MAGIC), text: raw.subarray(start, end).toString('utf8'), blob: raw.subarray(padded) };
}
export function pack({ magic, blob }, text) {
  const header = Buffer.from(text, 'utf8');
  const lenBytes = Buffer.alloc(4);
  lenBytes.writeUInt32LE(header.length);
  const pad = Buffer.alloc((4 - ((MAGIC + 4 + header.length) % 4)) % 4);
  return gzipSync(Buffer.concat([magic, lenBytes, header, pad, blob]));
}
export function withHeader(change) {
  const u = unpack(good);
  const h = JSON.parse(u.text);
  change(h);
  return pack(u, JSON.stringify(h));
}
export function withText(change) {
  const u = unpack(good);
  const text = change(u.text);
  assert.notEqual(text, u.text, 'the edit applied');
  return pack(u, text);
}

export { stateWithoutRecords as state } from './lib.mjs';

export async function open(path) {
  const p = await openPage(browser, path, { viewport: { width: 1280, height: 900 } });
  await p.page.waitForFunction(() => !!window.__rlvr && window.__rlvr.state().booted, undefined, { timeout: 30_000 });
  return p;
}

/** @type {import('playwright-core').Browser} */
export let browser;
/** Registers the file's hooks: the browser for `open`, and its timings written to test-results/`file` after it. */
export function recordingHooks(test, file) {
  test.beforeAll(({ browser: b }) => {
    browser = b;
  });
  test.afterAll(() => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, file), JSON.stringify(timings, null, 2));
  });
}

/** Puts bytes into the page's file picker as a file. */
export async function pick(page, name, bytes) {
  await page.setInputFiles('[data-testid="recording-file"]', {
    name,
    mimeType: 'application/gzip',
    buffer: Buffer.from(bytes),
  });
}

export async function openRollout(page) {
  await page.click('[data-testid="tab-rollouts"]');
  await page.waitForSelector('[data-testid="groups-table"]');
  await page.locator('[data-testid^="open-rollout-"]').first().click();
  await page.locator('[data-testid="token"]').first().click();
  await page.waitForSelector('[data-testid="objective-panel"]');
}

// The shipped lesson records (scripts/record-lessons.sh: `rlvr lesson run`, every arm on every measured
// seed, thinned by `rlvr record thin`), as the page's list names them. The lesson these tests open is the
// first in the list with all of its arms on the seed its outcome was measured with.
export const shippedIndex = JSON.parse(readFileSync(join(ROOT, 'public/records/index.json'), 'utf8')).records;
const measuredLessons = JSON.parse(readFileSync(join(ROOT, 'public/lessons/measured.json'), 'utf8'));
export const LESSON = (() => {
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

export async function openLessonPage(path) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(new URL(path, process.env.E2E_BASE_URL).href, { waitUntil: 'load' });
  await page.waitForFunction(() => !!window.__rlvr && window.__rlvr.state().booted, undefined, { timeout: 30_000 });
  return { page, errors, close: () => context.close() };
}
