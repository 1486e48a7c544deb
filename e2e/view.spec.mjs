// `rlvr view` as a person runs it on a GPU box: `node scripts/rlvr.mjs view DIR --port P` started as a
// child process, which prints `serving N runs at http://HOST:PORT/` once it is ready. It serves the
// built page and the runs under DIR; a run the trainer writes into DIR while it serves appears (in
// /runs.json and in the page's run list), a growing run's new steps are counted, and nothing outside
// DIR is served, however the path is spelled.
//
// The veRL dumps are written by RayPPOTrainer._dump_generations (verl/trainer/ppo/ray_trainer.py),
// copied unchanged but for `self` into e2e/fixtures/verl-dump.py, run by python3: veRL itself needs Ray
// and a GPU inference engine, which this machine has not.
//
// Needs dist/ (`npx vite build`); run with `npx playwright test e2e/view.spec.mjs`. Self-contained: it
// starts and stops its own `rlvr view` and ignores playwright.config.ts's webServer.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { freePort, note, openPage, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';

/** Writes veRL steps first..last into `dir` as veRL does (e2e/fixtures/verl-dump.py: _dump_generations). */
function dumpVerl(dir, first, last) {
  const args = [
    'e2e/fixtures/verl-dump.py',
    dir,
    '--first',
    String(first),
    '--steps',
    String(last),
    '--prompts',
    '2',
    '--n',
    '3',
  ];
  const r = spawnSync('python3', args, { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, `python3 e2e/fixtures/verl-dump.py failed: ${r.stderr}`);
}

const SECRET = 'a file beside the served folder, never to be served';
/** A GET with `path` sent exactly as given: browsers and fetch() would resolve `..` and `%2e%2e` first. */
function rawGet(origin, path) {
  const { hostname, port } = new URL(origin);
  return new Promise((ok, fail) => {
    const req = request({ host: hostname, port, path }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => ok({ status: res.statusCode, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** `rlvr view DIR --port P` as a child process; resolves with its URL and run count once it says it serves. */
async function startView(dir, extra = []) {
  const port = await freePort();
  const argv = ['scripts/rlvr.mjs', 'view', dir, '--port', String(port), ...extra];
  const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  const exited = new Promise((ok) => child.once('exit', (code, signal) => ok({ code, signal })));
  const ready = await new Promise((ok, fail) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = /^serving (\d+) runs at (http:\/\/\S+)\n/m.exec(stdout);
      if (m) ok({ line: m[0].trimEnd(), runs: Number(m[1]), url: m[2] });
    });
    child.stderr.on('data', (d) => (stderr += d));
    exited.then(({ code }) => fail(new Error(`rlvr view exited (${code}) before serving:\n${stdout}${stderr}`)));
  });
  return {
    ...ready,
    port,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls GET /runs.json until `pred` holds; returns the last list. */
async function runsUntil(url, pred, what) {
  let last;
  for (const t0 = Date.now(); Date.now() - t0 < 30_000; ) {
    last = await (await fetch(new URL('runs.json', url))).json();
    if (pred(last)) return last;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  throw new Error(`runs.json never showed ${what}; last: ${JSON.stringify(last)}`);
}

/** Whether the built page has the run viewer (its run list); the page checks wait for it. */
const pageHasViewer = () => {
  const assets = join(ROOT, 'dist', 'assets');
  if (!existsSync(assets)) return false;
  const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
  return js.some((f) => readFileSync(join(assets, f), 'utf8').includes('viewer-runs'));
};

let tmp = '';
let served = '';
/** @type {Awaited<ReturnType<typeof startView>> | null} */
let view = null;

test.beforeAll(async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'index.html')), 'dist/ is missing: run `npx vite build` first');
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-e2e-'));
  served = join(tmp, 'served');
  dumpVerl(join(served, 'gsm8k_grpo', 'rollout_data'), 1, 2);
  writeFileSync(join(tmp, 'secret.txt'), SECRET);
  symlinkSync(join(tmp, 'secret.txt'), join(served, 'gsm8k_grpo', 'rollout_data', 'escape.jsonl'));
  symlinkSync(tmp, join(served, 'gsm8k_grpo', 'rollout_data', 'up'));
  view = await startView(served);
});

test.afterAll(async () => {
  const exit = await view?.stop();
  if (exit) assert.deepEqual(exit, { code: 0, signal: null }, `rlvr view did not stop cleanly: ${view?.stderr()}`);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('rlvr view prints its line and lists the runs it found', async ({}, testInfo) => {
  assert.ok(view);
  note(testInfo, `printed: ${view.line}`);
  assert.equal(view.line, `serving 1 runs at http://127.0.0.1:${view.port}/`);
  assert.equal(view.stderr(), '', 'nothing on stderr for a loopback port that was free');
  const runs = await (await fetch(new URL('runs.json', view.url))).json();
  assert.deepEqual(runs, [{ name: 'rollout_data', format: 'verl', steps: 2, errors: [] }]);
  const files = await (await fetch(new URL('runs/rollout_data/files.json', view.url))).json();
  assert.deepEqual(
    files.map((f) => f.path),
    ['1.jsonl', '2.jsonl'],
    'the symlink out of the folder is not listed',
  );
  const part = await fetch(new URL('runs/rollout_data/file/1.jsonl', view.url), { headers: { Range: 'bytes=0-9' } });
  assert.equal(part.status, 206);
  assert.equal(await part.text(), '{"input": ');
});

const LIVE = 'a run written into the served folder while it serves appears, in runs.json and in the page';
test(LIVE, async ({ browser }, testInfo) => {
  test.setTimeout(120_000);
  assert.ok(view);
  const viewer = pageHasViewer();
  if (!viewer) note(testInfo, 'the page in dist/ has no run viewer yet: only runs.json is checked, not the page');
  const p = await openPage(browser, '/', { base: view.url });
  await withPageDiagnostics(testInfo, p, 'view-live', async () => {
    const { page } = p;
    assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'COOP/COEP sent with the page');
    if (viewer) await page.waitForSelector('[data-testid="viewer-run"][data-name="rollout_data"]');
    // The trainer goes on (steps 3 and 4), and another run starts in the served folder.
    dumpVerl(join(served, 'gsm8k_grpo', 'rollout_data'), 3, 4);
    dumpVerl(join(served, 'math_dapo', 'rollouts'), 1, 1);
    const runs = await runsUntil(view.url, (r) => r.length === 2 && r[0].steps === 4, 'the new run and steps 3-4');
    assert.deepEqual(runs, [
      { name: 'rollout_data', format: 'verl', steps: 4, errors: [] },
      { name: 'rollouts', format: 'verl', steps: 1, errors: [] },
    ]);
    if (viewer) {
      // The page lists runs.json again every few seconds while the viewer is shown: no reload.
      await page.waitForSelector('[data-testid="viewer-run"][data-name="rollouts"]', { timeout: 60_000 });
      await screenshot(page, 'view-live');
    }
    assert.deepEqual(p.pageErrors, []);
    assert.deepEqual(p.externalRequests, []);
  });
  await p.close();
});

test('nothing outside the served folder is served, however the path is spelled', async ({}, testInfo) => {
  assert.ok(view);
  const paths = [
    '/runs/rollout_data/file/../../../secret.txt',
    '/runs/rollout_data/file/%2e%2e/%2e%2e/%2e%2e/secret.txt',
    '/runs/rollout_data/file/..%2F..%2F..%2Fsecret.txt',
    '/runs/rollout_data/file/..%5c..%5c..%5csecret.txt',
    '/runs/rollout_data/file/..\\..\\..\\secret.txt',
    '/runs/rollout_data/file/escape.jsonl',
    '/runs/rollout_data/file//' + join(tmp, 'secret.txt').slice(1),
    '/runs/rollout_data/file/' + encodeURIComponent(join(tmp, 'secret.txt')),
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/runs/rollout_data/file/up/secret.txt',
  ];
  const answers = [];
  for (const path of paths) {
    const r = await rawGet(view.url, path);
    answers.push(`${r.status} ${path}`);
    assert.ok([403, 404].includes(r.status), `${path} answered ${r.status}`);
    assert.ok(!r.body.includes(SECRET), `${path} leaked the file`);
    assert.doesNotMatch(r.body, /Error|\bat \S+:\d+/, `${path} answered a stack trace`);
  }
  note(testInfo, answers.join('; '));
});

test('a host that is not loopback is served with a warning line on stderr', async ({}, testInfo) => {
  // This machine's own network address (not 0.0.0.0: the test exposes only what it must).
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
  test.skip(!address, 'this machine has no IPv4 address besides loopback');
  const lan = await startView(served, ['--host', address]);
  try {
    assert.equal(lan.line, `serving ${lan.runs} runs at http://${address}:${lan.port}/`);
    note(testInfo, `stderr: ${lan.stderr().trim()}`);
    const warning = `rlvr view: warning: listening on ${address}, not loopback: the runs in ${served} are readable`;
    assert.ok(lan.stderr().startsWith(warning), lan.stderr());
    // Not bound to loopback, any Host is answered (a loopback-bound server refuses foreign Host names).
    const runs = await (await fetch(new URL('runs.json', lan.url))).json();
    assert.equal(runs.length, lan.runs);
  } finally {
    assert.deepEqual(await lan.stop(), { code: 0, signal: null });
  }
});
