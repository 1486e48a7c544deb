#!/usr/bin/env node
// How long a cold link takes to show what it links to, drawn, in the first viewport: from
// navigation start to the frame where the content is drawn with no scroll, in a fresh context (a cold
// link: nothing cached), on the built page. Per link:
//   ?lesson=ID   every chart the lesson marks "look here" (data-focus) has a drawn line, inside the viewport
//   ?run=URL     the recording's first chart has a drawn line, inside the viewport
// The page is never scrolled; a chart below the fold never counts. Prints one line per link and run, and
// the medians; writes bench/links-results.json. --load N starts N busy processes first.
// Usage: node scripts/measure-links.mjs [--runs N] [--load N] [--width W --height H] [--lessons a,b] [--dist DIR]
//   [--out FILE]   (--dist: serve that build folder instead of dist/)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { closeBrowser, launchBrowser, openPage, ROOT } from '../e2e/lib.mjs';
import { arg, load1, serveBuild, startBusy } from './measure-lib.mjs';

const runs = Number(arg('runs', '3'));
const load = Number(arg('load', '0'));
const viewport = { width: Number(arg('width', '1400')), height: Number(arg('height', '1000')) };
const out = arg('out', join(ROOT, 'bench', 'links-results.json'));
const measured = JSON.parse(readFileSync(join(ROOT, 'public/lessons/measured.json'), 'utf8'));
const lessons = arg('lessons', Object.keys(measured).slice(0, 3).join(',')).split(',');
if (!(Number.isInteger(runs) && runs >= 1) || !(Number.isInteger(load) && load >= 0)) {
  console.error('measure-links: --runs and --load take whole numbers (runs at least 1)');
  process.exit(2);
}
const TIMEOUT_MS = 60_000;

/** In the page before its scripts: each frame, whether the linked content is drawn in the viewport. */
function watchDrawn(kind) {
  const inView = (el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && scrollY === 0;
  };
  const drawn = (el) =>
    [...el.querySelectorAll('.recharts-line path')].some((p) => (p.getAttribute('d') ?? '').length > 4);
  const check = () => {
    const charts =
      kind === 'lesson'
        ? [...document.querySelectorAll('[data-focus="true"]')]
        : [...document.querySelectorAll('figure.chart')].slice(0, 1);
    if (charts.length && charts.every((c) => drawn(c) && inView(c))) window.__linkDrawn = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

async function measureLink(browser, base, path, kind) {
  const p = await openPage(browser, 'about:blank', { base, viewport, serviceWorkers: 'allow' });
  try {
    await p.page.addInitScript(watchDrawn, kind);
    await p.page.goto(new URL(path, base).href, { waitUntil: 'commit' });
    const done = await p.page
      .waitForFunction(() => window.__linkDrawn, undefined, { timeout: TIMEOUT_MS, polling: 100 })
      .then(() => true)
      .catch(() => false);
    return done ? Math.round(await p.page.evaluate(() => window.__linkDrawn)) : null;
  } finally {
    await p.close();
  }
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return s.length === xs.length ? s[Math.floor((s.length - 1) / 2)] : null;
};
const links = [
  ...lessons.map((id) => ({ name: `?lesson=${id}`, path: `/?lesson=${id}`, kind: 'lesson' })),
  { name: '?run=records/sat-grpo-30.rlvr.gz', path: '/?run=records/sat-grpo-30.rlvr.gz', kind: 'run' },
];
const busy = startBusy(load);
const server = await serveBuild(arg('dist', null));
const browser = await launchBrowser();
const results = {};
try {
  for (const link of links) {
    results[link.name] = [];
    for (let i = 0; i < runs; i++) {
      const ms = await measureLink(browser, server.url, link.path, link.kind);
      const l = load1();
      results[link.name].push({ ms, load: l });
      console.log(
        `${link.name} run ${i + 1}: ` +
          `${ms === null ? `not drawn in view within ${TIMEOUT_MS} ms` : `${ms} ms`}, load ${l}`,
      );
    }
    const m = median(results[link.name].map((r) => r.ms));
    console.log(`${link.name} (median of ${runs}): ${m === null ? 'not drawn in view' : `${m} ms`} (goal 2000)`);
  }
} finally {
  busy.stop();
  await closeBrowser(browser);
  await server.close();
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), viewport, busyProcesses: load, results }, null, 2));
