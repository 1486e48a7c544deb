// Shared by e2e/hf-import-llama.spec.mjs and e2e/hf-import-smollm2.spec.mjs: Hugging Face folders built by the
// real transformers (scripts/hf_llama_fixture.py), imported through Keep & share, shown, and scored in the page
// against transformers' own ids and float32 log-probs (reference.json).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from '@playwright/test';
import { ROOT, setupPython } from './lib.mjs';

/** The largest |log-prob difference| from transformers' float32 allowed (docs/models.md). */
export const TOL = 1e-4;
/**
 * Lines of each fixture's lines.txt scored in the page by default (the first ones, plus the last four: empty, special
 * tokens, Unicode).
 */
const SCORED = 16;

/**
 * Builds the folders `builds` names ({ dir, args }: scripts/hf_llama_fixture.py's arguments) in one Python
 * process (torch and transformers load once), with the venv scripts/setup-python.sh makes; where that venv cannot
 * run it, setup-python.sh decides (exit 3: no wheels here). Resolves to `{ missing }` then, else to `{}`.
 */
export async function buildHfFixtures(tmp, builds, timeout = 300_000) {
  const t0 = performance.now();
  const script = [
    'import sys',
    "sys.path.insert(0, 'scripts')",
    'import hf_llama_fixture as f',
    `for a in ${JSON.stringify(builds.map((b) => [b.dir, ...b.args]))}:`,
    "    sys.argv = ['hf_llama_fixture.py', *a]",
    '    f.main()',
  ].join('\n');
  const env = {
    ...process.env,
    HF_HOME: join(tmp, 'hf-home'),
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    OMP_NUM_THREADS: '1',
    TOKENIZERS_PARALLELISM: 'false',
  };
  const build = (python) => spawnSync(python, ['-c', script], { cwd: ROOT, env, encoding: 'utf8', timeout });
  let r = build(resolve(ROOT, '.venv-py/bin/python'));
  if (r.status !== 0) {
    const setup = setupPython();
    if (setup.status === 3) return { missing: setup.stderr.trim().split('\n').pop() };
    assert.equal(setup.status, 0, `scripts/setup-python.sh failed: ${setup.stderr}`);
    r = build(resolve(ROOT, setup.stdout.trim().split('\n').pop()));
    assert.equal(r.status, 0, `scripts/hf_llama_fixture.py failed: ${r.stderr}`);
  }
  console.log(`# fixtures (transformers): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return {};
}

/** Skips the calling test, with a banner, when the fixtures could not be built for want of the Python wheels. */
export function skipWithoutWheels(built, spec) {
  if (!built.missing) return;
  const bar = '!'.repeat(100);
  console.error(
    `\n${bar}\n!!  SKIPPED: ${spec} did NOT compare the page with transformers; ` +
      `the Python wheels are missing:\n!!  ${built.missing}\n${bar}\n`,
  );
  test.skip(true, 'scripts/setup-python.sh: the Python wheels (torch, transformers, tokenizers) are missing');
}

const reference = (dir) => JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));

/** The lines the page scores (the first `first`, then the last four), with transformers' ids and log-probs. */
function scoredLines(dir, first) {
  const text = readFileSync(join(dir, 'lines.txt'), 'utf8');
  const lines = text.split('\n').slice(0, -1);
  const ref = reference(dir).lines;
  const pick = [...Array(first).keys(), ...[4, 3, 2, 1].map((k) => lines.length - k)];
  return pick.map((i) => ({ text: lines[i], ...ref[i] }));
}

/** Parameter count from the safetensors headers (transformers' state dict, float32: the tensors' element counts). */
export function parameterCount(dir) {
  const index = join(dir, 'model.safetensors.index.json');
  let files = ['model.safetensors'];
  try {
    files = [...new Set(Object.values(JSON.parse(readFileSync(index, 'utf8')).weight_map))];
  } catch {}
  let n = 0;
  for (const f of files) {
    const b = readFileSync(join(dir, f));
    const header = JSON.parse(b.subarray(8, 8 + Number(b.readBigUInt64LE(0))).toString('utf8'));
    for (const [k, t] of Object.entries(header)) if (k !== '__metadata__') n += t.shape.reduce((a, x) => a * x, 1);
  }
  return n;
}

/** Imports through the page's input `testid`, waits for `name` to be the uploaded checkpoint. */
export async function importAndWait(page, testid, path, name, timeout = 30_000) {
  const t0 = performance.now();
  await page.setInputFiles(`[data-testid="${testid}"]`, path);
  await page
    .waitForFunction(
      (n) => window.__rlvr.state().uploaded?.name === n || !!document.querySelector('[data-testid="error-banner"]'),
      name,
      { timeout, polling: 250 },
    )
    .catch(() => undefined);
  const refused = (await page.$('[data-testid="error-message"]'))
    ? await page.textContent('[data-testid="error-message"]')
    : null;
  assert.equal(refused, null, `${path} imports`);
  assert.equal(await page.evaluate(() => window.__rlvr.state().uploaded?.name), name);
  console.log(`# imported ${name} through ${testid} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** The imported model's card and Base checkpoint name it with its architecture and parameter count. */
export async function checkShown(page, name, arch, params) {
  const summary = await page.textContent('[data-testid="imported-model-summary"]');
  assert.equal(summary, `${name}: ${arch}, ${params.toLocaleString('en-US')} parameters`);
  assert.equal(await page.evaluate(() => window.__rlvr.state().uploaded.manifest.parameters), params);
  assert.match(await page.textContent('[data-testid="imported-model-training"]'), /Start trains it in its own tokens/);
  const option = await page.$eval('[data-testid="checkpoint"] option[value="upload"]', (o) => o.textContent);
  assert.match(option, new RegExp(`uploaded: ${name} \\(${arch}, ${Math.round(params / 1e3)}k params\\)`));
  assert.equal(await page.$eval('[data-testid="checkpoint"]', (s) => s.value), 'upload');
}

/**
 * Scores the lines in the page and compares each with transformers: the first `first` lines of lines.txt and its
 * last four.
 */
export async function scoreAndCompare(page, dir, what, timeout = 60_000, first = SCORED) {
  const lines = scoredLines(dir, first);
  const t0 = performance.now();
  await page.fill('[data-testid="score-text"]', lines.map((l) => l.text).join('\n'));
  const before = await page.$('[data-testid="score-result"]');
  await page.click('[data-testid="score-run"]');
  if (before) await page.waitForFunction((el) => !el.isConnected, before, { timeout });
  await page.waitForSelector('[data-testid="score-result"], [data-testid="score-error"]', { timeout });
  const err = await page.$('[data-testid="score-error"]');
  assert.equal(err && (await err.textContent()), null, 'scored');
  const got = await page.$$eval('[data-testid="score-line"]', (els) =>
    els.map((e) => ({ ids: JSON.parse(e.dataset.ids), logprobs: JSON.parse(e.dataset.logprobs) })),
  );
  assert.equal(got.length, lines.length);
  let worst = 0;
  let tokens = 0;
  lines.forEach((want, i) => {
    assert.deepEqual(got[i].ids, want.ids, `${what} line ${i + 1} ${JSON.stringify(want.text)}: transformers' ids`);
    assert.equal(got[i].logprobs.length, want.logprobs.length);
    want.logprobs.forEach((lp, t) => {
      if (lp === null) return assert.equal(got[i].logprobs[t], null);
      const d = Math.abs(got[i].logprobs[t] - lp);
      assert.ok(d <= TOL, `${what} line ${i + 1} token ${t}: page ${got[i].logprobs[t]}, transformers ${lp}`);
      worst = Math.max(worst, d);
      tokens++;
    });
  });
  assert.ok(tokens > 100, `${what}: ${tokens} tokens compared`);
  console.log(
    `# ${what}: ${lines.length} lines, ${tokens} ` +
      `tokens, largest |log-prob difference| ${worst.toExponential(2)}` +
      `, scored in ${((performance.now() - t0) / 1000).toFixed(1)} ` +
      's',
  );
}
