#!/usr/bin/env node
// The page's memory after opening runs in the run viewer and closing them (a closed run frees its
// reader worker). A fresh page opens a TRL run folder (src/runs/fixtures/trl-tiny) N times with "Open a run
// folder…", reading its first step each time; after each, where the page offers Close, the run is closed.
// Prints the page's memory (performance.measureUserAgentSpecificMemory: the page and its workers, after a
// collection) and its live workers, at the start and at the end; writes bench/viewer-memory-results.json.
// Usage: node scripts/measure-viewer-memory.mjs [--runs N] [--dist DIR] [--out FILE]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { closeBrowser, launchBrowser, openPage, ROOT } from '../e2e/lib.mjs';
import { arg, load1, serveBuild } from './measure-lib.mjs';

const runs = Number(arg('runs', '20'));
const out = arg('out', join(ROOT, 'bench', 'viewer-memory-results.json'));
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`measure-viewer-memory: --runs must be a whole number of at least 1 (got ${arg('runs')})`);
  process.exit(2);
}
const folder = join(ROOT, 'src/runs/fixtures/trl-tiny');

async function memory(page) {
  const bytes = await page.evaluate(async () => (await performance.measureUserAgentSpecificMemory()).bytes);
  return {
    mb: Math.round(bytes / 1e5) / 10,
    workers: page.workers().length,
    urls: page.workers().map((w) => w.url().split('/').pop()),
  };
}

const server = await serveBuild(arg('dist', null));
const browser = await launchBrowser(['--enable-blink-features=ForceEagerMeasureMemory']);
const result = {};
try {
  const p = await openPage(browser, '/', { base: server.url, viewport: { width: 1280, height: 900 } });
  const { page } = p;
  await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 60_000 });
  await page.click('[data-testid="tab-viewer"]');
  result.start = await memory(page);
  let closedAny = false;
  for (let i = 0; i < runs; i++) {
    await page.setInputFiles('[data-testid="run-folder-input"]', folder);
    await page.waitForFunction(() => (window.__rlvr.state().viewer.stepData?.groups.length ?? 0) > 0, undefined, {
      timeout: 60_000,
    });
    const close = page.locator('[data-testid="viewer-run-close"]').first();
    if (await close.count()) {
      await close.click();
      await page.waitForFunction(() => window.__rlvr.state().viewer.runs.length === 0);
      closedAny = true;
    }
  }
  result.end = await memory(page);
  result.closed = closedAny;
  console.log(
    `viewer memory: ${runs} runs opened${closedAny ? ' and closed' : ' (no Close in this build)'}: ` +
      `${result.start.mb} MB and ${result.start.workers} workers at the start, ` +
      `${result.end.mb} MB and ${result.end.workers} workers at the end, load ${load1()}`,
  );
  await p.close();
} finally {
  await closeBrowser(browser);
  await server.close();
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), runs, ...result }, null, 2));
