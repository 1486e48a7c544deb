#!/usr/bin/env node
// `npm run bench:viewer`: the run viewer on dumps of 10 MB, 100 MB and 1 GB, in TRL's parquet and veRL's
// JSONL form (bench/viewer/make_dumps.py writes them as those frameworks' writers do), served by
// `rlvr view` and opened in Debian's Chromium; beside it the peer a researcher would otherwise use,
// pandas/pyarrow reading the same files in full (bench/viewer/pandas_peer.py). One line per size and
// format:
//   viewer SIZE FORMAT: first view X s, step switch Y ms, search Z s, memory M MB; pandas full read W s
// and, per size and format, the findings (a line other tools read):
//   findings SIZE FORMAT: X s, N findings, memory M MB
// through `rlvr view`'s GET /runs/NAME/findings.json, cold (the first findings request after the server
// started), memory the server process's peak RSS growth over the request (/proc/PID/status VmHWM less the
// VmRSS before it); and the same run opened in the page as a folder, no server reading it (the page comes
// from `rlvr view` of an empty folder), searched and its findings looked for in the page's reader workers:
//   in page SIZE FORMAT: search X s, findings Y s, N findings, memory M MB
// (memory: the page's with its workers, as below). A JSON file, test-results/bench-viewer.json, holds
// every figure and its budget.
//
// The figures, each read on the page's own clock (performance.now()): "on screen" is the frame after the
// step's completions are in the document (a requestAnimationFrame, then a task). Playwright's own wait
// polls the page and answers about a second late here while the charts draw after the step, so its times
// (kept in the JSON as *_wall) measure the driver more than the page.
// - first view: a cold link (`/?view=NAME&step=S` in a fresh browser), from the navigation's start until
//   the step's completions are on screen; and from a click (the runs list, then the run), from the click
//   event. The larger is printed.
// - step switch: from the scrubber's input event until the new step's completions are on screen (median of 5).
// - search: a text search over every step until it reports done.
// - memory: the page's memory with its workers (performance.measureUserAgentSpecificMemory), the largest
//   of its readings after the first view, the step switches and the search.
//
//   npm run bench:viewer                     10, 100 and 1000 MB (the dumps are kept in bench/.work/viewer/)
//   BENCH_VIEWER_SIZES=10,100 npm run bench:viewer
//   node scripts/bench-viewer.mjs --quick    a 1 MB dump of each format (BENCH_VIEWER_SIZES=1), written to
//                                            test-results/bench-viewer-quick.json: the form scripts/bench-quick.mjs
//                                            runs to check the script still works (after a `vite build`)
//   BENCH_VIEWER_ONLY=search BENCH_VIEWER_FORMATS=trl BENCH_VIEWER_SIZES=100 node scripts/bench-viewer.mjs
//                                            the search alone (no first view, step switch or pandas peer), of TRL
//                                            only; after a `vite build`. BENCH_VIEWER_SEARCHES=3 searches 3 times.
//   BENCH_VIEWER_ONLY=findings ...           the findings lines and the in-page search alone.
//   BENCH_VIEWER_ONLY=view ...               the first views and step switches alone (no search, no pandas peer);
//                                            BENCH_VIEWER_COLD=3 opens the cold link 3 times (the median is kept);
//                                            BENCH_VIEWER_TRACE=DIR writes Chromium traces of the first cold link
//                                            and of the step switches there (open them in chrome://tracing or
//                                            Perfetto).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, freePort, ROOT } from '../e2e/lib.mjs';
import { measureInPage, pageMb, printFindings, searchOnce, seconds, servedFindings } from './bench-viewer-findings.mjs';

const QUICK = process.argv.includes('--quick');
const SIZES = (QUICK ? '1' : process.env.BENCH_VIEWER_SIZES || '10,100,1000').split(',').map(Number);
const FORMATS = (process.env.BENCH_VIEWER_FORMATS || 'trl,verl').split(',');
const SEARCH_ONLY = process.env.BENCH_VIEWER_ONLY === 'search';
const VIEW_ONLY = process.env.BENCH_VIEWER_ONLY === 'view';
const FINDINGS_ONLY = process.env.BENCH_VIEWER_ONLY === 'findings';
const COLD = Number(process.env.BENCH_VIEWER_COLD || 1);
const TRACE = process.env.BENCH_VIEWER_TRACE;
/** The trace's categories: Chromium's timeline, and V8's sampling profiler (where the page's JavaScript spends). */
const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-v8.cpu_profiler',
  'v8.execute',
  'blink.user_timing',
  'loading',
];
const SEARCHES = Number(process.env.BENCH_VIEWER_SEARCHES || 1);
const WORK = join(ROOT, 'bench/.work/viewer');
const BUDGET = { first_view_s: 2, step_switch_ms: 200, search_1gb_s: 10, findings_1gb_s: 10, memory_mb: 500 };

function python() {
  const out = execFileSync('bash', ['scripts/setup-python.sh'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return join(ROOT, out.trim().split('\n').pop());
}

/** Starts `rlvr view DIR`; resolves with its address and the child once it prints its serving line. */
async function serve(dir) {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/rlvr.mjs', 'view', dir, '--port', String(port)], { cwd: ROOT });
  let out = '';
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`rlvr view did not say it was serving: ${out}`)), 600_000);
    const onData = (d) => {
      out += d;
      const m = /serving (\d+) runs? at (http:\/\/\S+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[2]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => fail(new Error(`rlvr view exited with ${code}: ${out}`)));
  });
  return { url, child };
}

/**
 * In the page, before anything else runs: `__onScreen(selector)` resolves with performance.now() at the frame
 * after an element matching it is in the document; `__lastInput` is the time of the last click or input event.
 */
function pageClock() {
  window.__onScreen = (selector) =>
    new Promise((resolve) => {
      const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
      if (document.querySelector(selector)) return done();
      const watch = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        watch.disconnect();
        done();
      });
      watch.observe(document, { childList: true, subtree: true, attributes: true });
    });
  for (const type of ['click', 'input'])
    addEventListener(type, (e) => (window.__lastInput = e.timeStamp), { capture: true });
}

/** BENCH_VIEWER_ONLY=search: the run opened at its first step, then SEARCHES searches, each timed. */
async function measureSearch(url, name, steps) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${url}?view=${encodeURIComponent(name)}&step=${steps[0]}`);
    await page.waitForSelector(`[data-testid="viewer-completion"][data-step="${steps[0]}"]`, { timeout: 120_000 });
    const times = [];
    let status = '';
    for (let k = 0; k < SEARCHES; k++) {
      const one = await searchOnce(page);
      times.push(one.search);
      status = one.status;
    }
    return { search_s: Math.min(...times), search_all_s: times, search_status: status };
  } finally {
    await browser.close();
  }
}

async function measure(url, name, steps) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'],
  });
  let peak = 0;
  try {
    const mid = steps[Math.floor(steps.length / 2)];
    const completionOf = (step) => `[data-testid="viewer-completion"][data-step="${step}"]`;
    // A cold link, in a fresh context (COLD times; the median is kept).
    const colds = [];
    let coldLinkWall = 0;
    for (let k = 0; k < COLD; k++) {
      const ctx = await browser.newContext();
      await ctx.addInitScript(pageClock);
      await ctx.addInitScript((sel) => (window.__firstView = window.__onScreen(sel)), completionOf(mid));
      const page = await ctx.newPage();
      if (TRACE && k === 0)
        await browser.startTracing(page, { path: join(TRACE, 'cold-link.json'), categories: TRACE_CATEGORIES });
      const t0 = performance.now();
      await page.goto(`${url}?view=${encodeURIComponent(name)}&step=${mid}`);
      await page.waitForSelector(completionOf(mid), { timeout: 120_000 });
      coldLinkWall = seconds(t0);
      colds.push((await page.evaluate(() => window.__firstView)) / 1000);
      if (TRACE && k === 0) await browser.stopTracing();
      peak = Math.max(peak, await pageMb(page));
      await ctx.close();
    }
    colds.sort((a, b) => a - b);
    const coldLink = colds[Math.floor(colds.length / 2)];

    // From a click: the runs list, then the run.
    const ctx = await browser.newContext();
    await ctx.addInitScript(pageClock);
    const page = await ctx.newPage();
    await page.goto(url);
    await page.getByRole('tab', { name: 'Run viewer' }).click();
    const entry = page.locator(`[data-testid="viewer-run"][data-name="${name}"]`);
    await entry.waitFor({ timeout: 120_000 });
    let t0 = performance.now();
    const opened = page.evaluate(() => window.__onScreen('[data-testid="viewer-completion"]'));
    await entry.locator('[data-testid="viewer-run-open"]').click();
    await page.waitForSelector('[data-testid="viewer-completion"]', { timeout: 120_000 });
    const fromClickWall = seconds(t0);
    const fromClick = ((await opened) - (await page.evaluate(() => window.__lastInput))) / 1000;

    // Step switches, to steps spread over the run.
    const switches = [];
    const switchesWall = [];
    const count = await page.locator('[data-testid="viewer-scrubber"]').getAttribute('max');
    const last = Number(count);
    if (TRACE)
      await browser.startTracing(page, { path: join(TRACE, 'step-switch.json'), categories: TRACE_CATEGORIES });
    for (let k = 1; k <= 5; k++) {
      const i = Math.round((k / 6) * last);
      t0 = performance.now();
      const shown = page.evaluate((sel) => window.__onScreen(sel), completionOf(steps[i]));
      await page.locator('[data-testid="viewer-scrubber"]').fill(String(i));
      await page.waitForSelector(completionOf(steps[i]), { timeout: 60_000 });
      switchesWall.push(performance.now() - t0);
      switches.push((await shown) - (await page.evaluate(() => window.__lastInput)));
    }
    if (TRACE) await browser.stopTracing();
    switches.sort((a, b) => a - b);
    switchesWall.sort((a, b) => a - b);
    peak = Math.max(peak, await pageMb(page));

    const { search, status } = VIEW_ONLY ? { search: Number.NaN, status: '' } : await searchOnce(page);
    peak = Math.max(peak, await pageMb(page));
    await ctx.close();
    return {
      cold_link_s: coldLink,
      cold_link_all_s: colds,
      click_s: fromClick,
      first_view_s: Math.max(coldLink, fromClick),
      step_switch_ms: switches[2],
      cold_link_wall_s: coldLinkWall,
      click_wall_s: fromClickWall,
      step_switch_wall_ms: switchesWall[2],
      search_s: search,
      search_status: status,
      memory_mb: peak,
    };
  } finally {
    await browser.close();
  }
}

const py = python();
mkdirSync(WORK, { recursive: true });
/** An empty folder for `rlvr view` to serve the page from, when a dump is opened in the page as a folder. */
const EMPTY = join(WORK, 'empty');
mkdirSync(EMPTY, { recursive: true });
const app = VIEW_ONLY || SEARCH_ONLY ? null : await serve(EMPTY);
if (TRACE) mkdirSync(TRACE, { recursive: true });
const results = [];
for (const size of SIZES) {
  process.stderr.write(`bench:viewer: writing the ${size} MB dumps (kept in ${WORK})…\n`);
  const dumps = JSON.parse(
    execFileSync(py, ['bench/viewer/make_dumps.py', WORK, String(size)], { cwd: ROOT, encoding: 'utf8' }),
  );
  for (const format of FORMATS) {
    const d = dumps[format];
    if (SEARCH_ONLY) {
      const { url, child } = await serve(d.dir);
      try {
        const run = (await (await fetch(`${url}runs.json`)).json())[0];
        const m = await measureSearch(
          url,
          run.name,
          Array.from({ length: d.steps }, (_, i) => i + 1),
        );
        results.push({ size_mb: size, format, bytes: d.bytes, steps: d.steps, rows: d.rows, ...m });
        console.log(`viewer ${size} MB ${format}: search ${m.search_all_s.map((t) => t.toFixed(2)).join(', ')} s`);
      } finally {
        child.kill();
      }
      continue;
    }
    if (FINDINGS_ONLY) {
      const { url, child } = await serve(d.dir);
      try {
        const run = (await (await fetch(`${url}runs.json`)).json())[0];
        const f = await servedFindings(url, run.name, child);
        const p = await measureInPage(app.url, resolve(ROOT, d.dir));
        results.push({ size_mb: size, format, bytes: d.bytes, steps: d.steps, rows: d.rows, ...f, ...p });
        printFindings(size, format, f, p);
      } finally {
        child.kill();
      }
      continue;
    }
    const peer = VIEW_ONLY
      ? { seconds: Number.NaN, peak_rss_mb: Number.NaN }
      : JSON.parse(execFileSync(py, ['bench/viewer/pandas_peer.py', format, d.dir], { cwd: ROOT, encoding: 'utf8' }));
    const { url, child } = await serve(d.dir);
    try {
      const runs = await (await fetch(`${url}runs.json`)).json();
      const run = runs[0];
      const steps = Array.from({ length: d.steps }, (_, i) => i + 1);
      const f = VIEW_ONLY ? null : await servedFindings(url, run.name, child);
      const m = await measure(url, run.name, steps);
      const p = VIEW_ONLY ? null : await measureInPage(app.url, resolve(ROOT, d.dir));
      const row = {
        size_mb: size,
        format,
        bytes: d.bytes,
        steps: d.steps,
        rows: d.rows,
        ...m,
        pandas_full_read_s: peer.seconds,
        pandas_peak_rss_mb: peer.peak_rss_mb,
        ...f,
        ...p,
      };
      results.push(row);
      if (VIEW_ONLY) {
        console.log(
          `viewer ${size} MB ${format}: cold link ${m.cold_link_all_s.map((t) => t.toFixed(2)).join(', ')} s, ` +
            `click ${m.click_s.toFixed(2)} s, step switch ${m.step_switch_ms.toFixed(0)} ms`,
        );
        continue;
      }
      console.log(
        `viewer ${size >= 1000 ? `${size / 1000} GB` : `${size} MB`} ${format}: first view ` +
          `${m.first_view_s.toFixed(2)} ` +
          's, ' +
          `step switch ${m.step_switch_ms.toFixed(0)} ms, search ${m.search_s.toFixed(2)} s, memory ` +
          `${m.memory_mb.toFixed(0)} ` +
          'MB; ' +
          `pandas full read ${peer.seconds.toFixed(2)} s`,
      );
      printFindings(size, format, f, p);
    } finally {
      child.kill();
    }
  }
}
app?.child.kill();
mkdirSync(join(ROOT, 'test-results'), { recursive: true });
const form = SEARCH_ONLY ? '-search' : VIEW_ONLY ? '-view' : FINDINGS_ONLY ? '-findings' : QUICK ? '-quick' : '';
writeFileSync(
  join(ROOT, `test-results/bench-viewer${form}.json`),
  `${JSON.stringify({ budget: BUDGET, results }, null, 2)}\n`,
);
