#!/usr/bin/env node
// How responsive the page `npm start` serves is while the default run trains, beside Vite's dev server
// (`npm run dev`, HMR and file watcher on), each started as package.json starts it, measured the way
// e2e/responsive.spec.mjs measures Compare. For each server and run: a fresh page at / (the default run,
// as a visitor gets it), Start training, STEPS steps, then a real mouse click on Pause. Figures, over the
// window from the first step to Pause shown:
//   longest main-thread task (ms, Chromium's long-task observer)      goal 200
//   click to "paused" shown (ms, the click's input timestamp to the run-state text) goal 1000
//   frames a second drawn (requestAnimationFrame callbacks)
// --load N starts N busy processes first (a loaded class laptop: about 4 with this script's own work on 2
// cores). Prints one line per run and the medians, writes bench/start-results.json.
// Usage: node scripts/measure-start.mjs [--runs N] [--load N] [--servers start,dev] [--steps N] [--out FILE]
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { closeBrowser, freePort, launchBrowser, openPage, ROOT } from '../e2e/lib.mjs';
import { arg, load1, startBusy } from './measure-lib.mjs';

const runs = Number(arg('runs', '2'));
const load = Number(arg('load', '0'));
const steps = Number(arg('steps', '4'));
const servers = arg('servers', 'start,dev').split(',');
const out = arg('out', join(ROOT, 'bench', 'start-results.json'));
const bad = [
  !(Number.isInteger(runs) && runs >= 1) && `--runs must be a whole number of at least 1 (got ${arg('runs')})`,
  !(Number.isInteger(load) && load >= 0) && `--load must be a whole number (got ${arg('load')})`,
  !(Number.isInteger(steps) && steps >= 1) && `--steps must be a whole number of at least 1 (got ${arg('steps')})`,
  servers.some((s) => s !== 'start' && s !== 'dev') && `--servers takes start and dev (got ${servers.join(',')})`,
].filter(Boolean);
if (bad.length) {
  console.error(`measure-start: ${bad.join('; ')}`);
  process.exit(2);
}

/** Runs in the page before its scripts: long tasks, frames, and Pause's click-to-shown latency. */
function installObservers() {
  window.__longTasks = [];
  window.__frames = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  const frame = (t) => {
    window.__frames.push(t);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  document.addEventListener(
    'click',
    (e) => {
      if (e.target?.closest?.('[data-testid="pause"]') == null) return;
      window.__pauseClick = e.timeStamp;
      const shown = () => /paus/.test(document.querySelector('[data-testid="run-state"]')?.textContent ?? '');
      const mo = new MutationObserver(() => {
        if (!shown() || window.__pauseShown !== undefined) return;
        window.__pauseShown = performance.now();
        mo.disconnect();
      });
      mo.observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    true,
  );
}

async function measureOnce(browser, base) {
  const p = await openPage(browser, 'about:blank', { base, viewport: { width: 1400, height: 1000 } });
  try {
    const { page } = p;
    await page.addInitScript(installObservers);
    await page.goto(new URL('/', base).href, { waitUntil: 'load', timeout: 300_000 });
    await page.waitForSelector('[data-testid="start"]:not([disabled])', { timeout: 120_000 });
    await page.click('[data-testid="start"]');
    await page.waitForFunction(() => window.__rlvr.state().run.step >= 1, undefined, { timeout: 300_000 });
    const from = await page.evaluate(() => performance.now());
    await page.waitForFunction((n) => window.__rlvr.state().run.step >= n, steps + 1, { timeout: 600_000 });
    const box = await page.locator('[data-testid="pause"]').boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => window.__pauseShown !== undefined, undefined, { timeout: 300_000 });
    return await page.evaluate((start) => {
      const end = window.__pauseShown;
      const tasks = window.__longTasks.filter((t) => t.start >= start && t.start <= end);
      const frames = window.__frames.filter((t) => t >= start && t <= window.__pauseClick).length;
      return {
        longestTaskMs: Math.round(tasks.reduce((m, t) => Math.max(m, t.duration), 0)),
        pauseMs: Math.round(window.__pauseShown - window.__pauseClick),
        framesPerSecond: Math.round((10 * frames) / ((window.__pauseClick - start) / 1000)) / 10,
      };
    }, from);
  } finally {
    await p.close();
  }
}

/**
 * Starts what `npm start` (after its build: vite preview) or `npm run dev` (vite, with its file watcher and
 * HMR) starts, on a free port, as a child process, and waits until it answers.
 */
async function serveAs(name) {
  const port = await freePort();
  const args = name === 'start' ? ['vite', 'preview'] : ['vite'];
  const child = spawn('npx', [...args, '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 300 || child.exitCode !== null)
      throw new Error(`measure-start: ${args.join(' ')} did not answer on ${url}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  child.stdout.resume();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // the group has already ended
    }
  };
  return { url, close };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const busy = startBusy(load);
const browser = await launchBrowser();
const results = {};
try {
  for (const name of servers) {
    // The commands package.json's start and dev scripts run (start builds first: `npm run bench:start` did).
    const server = await serveAs(name);
    process.once('exit', () => server.close());
    try {
      results[name] = [];
      for (let i = 0; i < runs; i++) {
        const r = { ...(await measureOnce(browser, server.url)), load: load1() };
        results[name].push(r);
        console.log(
          `${name} run ${i + 1}: longest task ${r.longestTaskMs} ms, Pause ${r.pauseMs} ms, ` +
            `${r.framesPerSecond} frames/s, load ${r.load}`,
        );
      }
    } finally {
      await server.close();
    }
  }
} finally {
  busy.stop();
  await closeBrowser(browser);
}
for (const [name, rs] of Object.entries(results))
  console.log(
    `${name} (median of ${rs.length}): longest task ${median(rs.map((r) => r.longestTaskMs))} ms (goal 200), ` +
      `Pause ${median(rs.map((r) => r.pauseMs))} ms (goal 1000), ${median(rs.map((r) => r.framesPerSecond))} frames/s`,
  );
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), steps, busyProcesses: load, results }, null, 2));
