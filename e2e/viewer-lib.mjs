// Helpers of e2e/viewer.spec.mjs: the run viewer driven as a person would (open a folder, move the
// scrubber, read the groups shown), the expected groups of a dump, and `rlvr view` as a child process.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort, ROOT, setupPython } from './lib.mjs';

export const py = (python, args, opts = {}) =>
  execFileSync(python, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
export const close = (a, b) =>
  a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));

/** The page with the run viewer's tab open and a folder opened through "Open a run folder…". */
export async function openFolder(p, dir) {
  await p.page.getByRole('tab', { name: 'Run viewer' }).click();
  await p.page.getByRole('button', { name: 'Open a run folder…' }).waitFor();
  await p.page.setInputFiles('[data-testid="run-folder-input"]', dir);
}

/** Moves the scrubber to the step at `i` and waits for that step's rows. */
export async function showStep(page, steps, i) {
  await page.locator('[data-testid="viewer-scrubber"]').fill(String(i));
  await page.waitForSelector(`[data-testid="viewer-completion"][data-step="${steps[i]}"]`);
}

/** The step's groups as the page shows them: prompt, stats, and each completion in the order shown. */
export const readGroups = (page) =>
  page.$$eval('[data-testid="viewer-group"]', (groups) =>
    groups.map((g) => ({
      index: Number(g.getAttribute('data-group')),
      mean: Number(g.getAttribute('data-mean')),
      std: Number(g.getAttribute('data-std')),
      prompt: g.querySelector('[data-testid="viewer-prompt"]').textContent,
      rows: [...g.querySelectorAll('[data-testid="viewer-completion"]')].map((r) => ({
        row: Number(r.getAttribute('data-row')),
        completion: r.querySelector('[data-testid="viewer-completion-text"]').textContent,
        reward: Number(r.getAttribute('data-reward')),
        advantage: r.getAttribute('data-advantage') === '' ? null : Number(r.getAttribute('data-advantage')),
        rewards: Object.fromEntries(
          [...r.querySelectorAll('[data-reward-name]')].map((c) => [
            c.getAttribute('data-reward-name'),
            c.getAttribute('data-value') === '' ? null : Number(c.getAttribute('data-value')),
          ]),
        ),
      })),
    })),
  );

/** Consecutive rows sharing a prompt (TRL's num_generations rows; veRL's lines of one input). */
export function consecutiveGroups(rows, promptOf) {
  const groups = [];
  rows.forEach((r, i) => {
    const last = groups[groups.length - 1];
    if (last && promptOf(rows[last[0]]) === promptOf(r)) last.push(i);
    else groups.push([i]);
  });
  return groups;
}

export const sampleStd = (xs) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)) : 0;
};

/** `rlvr view DIR` on a free port; resolves once it prints its `serving N runs at URL` line. */
export async function startView(dir) {
  const port = await freePort();
  const child = spawn('node', ['scripts/rlvr.mjs', 'view', dir, '--port', String(port)], { cwd: ROOT, stdio: 'pipe' });
  let out = '';
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`rlvr view did not say it was serving: ${out}`)), 60_000);
    const read = (b) => {
      out += b;
      const m = /serving \d+ runs? at (http:\/\/\S+\/)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      ok(m[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => fail(new Error(`rlvr view exited with ${code}: ${out}`)));
  });
  return { url, stop: () => child.kill() };
}

/**
 * A real TRL run in `dir` (scripts/trl-run-fixture.sh; `reuse`: one already written there) and pandas'
 * view of it (e2e/fixtures/trl-expected.py): `{ trl }`, or `{ skip }` saying why not.
 */
export function makeTrlRun(dir, reuse) {
  const setup = setupPython();
  if (setup.status === 3) {
    const bar = '!'.repeat(100);
    const why = setup.stderr.trim().split('\n').pop();
    console.error(
      `\n${bar}\n!!  SKIPPED: the real TRL run in e2e/viewer.spec.mjs; the Python wheels are missing:` +
        `\n!!  ${why}\n${bar}\n`,
    );
    return { skip: 'scripts/setup-python.sh: the Python wheels for TRL are missing' };
  }
  assert.equal(setup.status, 0, `scripts/setup-python.sh failed: ${setup.stderr}`);
  const python = resolve(ROOT, setup.stdout.trim().split('\n').pop());
  const env = {
    ...process.env,
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    WANDB_MODE: 'disabled',
    OMP_NUM_THREADS: '1',
  };
  if (!reuse) {
    const t0 = Date.now();
    execFileSync('bash', ['scripts/trl-run-fixture.sh', dir], { cwd: ROOT, env, stdio: 'pipe', timeout: 420_000 });
    console.log(`  # the TRL run took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { trl: JSON.parse(py(python, ['e2e/fixtures/trl-expected.py', dir], { env })) };
}
