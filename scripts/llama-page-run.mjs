#!/usr/bin/env node
// The Llama path's GRPO run in the page (docs/models.md, "The same run in the page"), the way a
// person does it: the built app in Debian's Chromium on the WASM EP, the warm-started Llama of
// scripts/llama-path.sh chosen with "Upload a checkpoint" (its manifest, weights and tokenizer files), the
// run's settings from a shared link (the URL below: those of llama-path.sh's sweep), Start, and the page's
// own held-out evaluation at step 0 and after the last step (eval_every = the step budget). After the run,
// "Download checkpoint" saves the trained model (with its tokenizer) and `rlvr eval` scores it on the
// sweep's held-out set (64 prompts x 16 samples, eval seed 0), so the two paths are read on one scale.
// The page's resolved config is checked against `rlvr train --explain-config` for the same settings first.
// Resumable: a seed whose result is in OUT/results.jsonl is skipped.
// Usage: node scripts/llama-page-run.mjs [--checkpoint DIR] [--seeds 2,3,4] [--steps 200] [--out DIR] [--quick]
//   DIR (default .scratch/llama-arithmetic/sft): the warm start `scripts/llama-path.sh arithmetic` writes.
//   OUT (default docs/sweeps/llama-arithmetic-page): results.jsonl and results.md; checkpoints in .scratch.
//   --quick: the same path in about a minute, to check the script still runs (scripts/bench-quick.mjs): seed 2, 2
//   steps, held-out 8 prompts x 4 samples; the warm start (default .scratch/llama-arithmetic-quick/sft) made by
//   llama-path.sh with 20 SFT steps when it is missing; OUT (default test-results/llama-page-quick) started afresh.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { closeBrowser, launchBrowser, openPage, ROOT, startServer } from '../e2e/lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const quick = process.argv.includes('--quick');
const QUICK_WORK = join(ROOT, '.scratch/llama-arithmetic-quick');
const ckDir = resolve(arg('checkpoint', quick ? join(QUICK_WORK, 'sft') : join(ROOT, '.scratch/llama-arithmetic/sft')));
const seeds = arg('seeds', quick ? '2' : '2,3,4')
  .split(',')
  .map(Number);
const steps = Number(arg('steps', quick ? '2' : '200'));
const out = resolve(
  arg('out', join(ROOT, quick ? 'test-results/llama-page-quick' : 'docs/sweeps/llama-arithmetic-page')),
);
const saved = join(ROOT, quick ? '.scratch/llama-arithmetic-page-quick' : '.scratch/llama-arithmetic-page');
if (quick) {
  rmSync(out, { recursive: true, force: true });
  if (!existsSync(join(ckDir, 'manifest.json'))) {
    console.log(`# --quick: making a warm start in ${QUICK_WORK} (scripts/llama-path.sh, 20 SFT steps)`);
    execFileSync('bash', [join(ROOT, 'scripts/llama-path.sh'), 'arithmetic'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, LLAMA_PATH_DIR: QUICK_WORK, LLAMA_PATH_SFT_STEPS: '20', LLAMA_PATH_UNTIL: 'sft' },
    });
  }
}
if (!existsSync(join(ckDir, 'manifest.json'))) {
  console.error(`llama-page-run: ${ckDir}/manifest.json is missing: run scripts/llama-path.sh arithmetic first`);
  process.exit(2);
}
// llama-path.sh's arithmetic settings (RL_SETS) and the difficulty its sweep trained and evaluated at.
const SETS = { lora_r: 8, learning_rate: 5e-4, prompts_per_step: 32, minibatches: 4, temperature: 0.7 };
const DIFFICULTY = { digits: 3, ops: '+-', mulDigits: 1 };
const EVAL = quick ? { prompts: 8, n: 4, seed: 0 } : { prompts: 64, n: 16, seed: 0 };
const rlvr = (args) => execFileSync('node', [join(ROOT, 'scripts/rlvr.mjs'), ...args], { encoding: 'utf8' });

/** The config `rlvr train` resolves for these settings (name → value), to hold the page's to. */
function cliConfig(seed) {
  const sets = Object.entries({ ...SETS, seed }).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  const lines = rlvr([
    'train',
    '--task',
    'arithmetic',
    '--preset',
    'grpo',
    '--model',
    join(ckDir, 'manifest.json'),
    ...sets,
    '--steps',
    String(steps),
    '--explain-config',
  ]);
  const config = {};
  for (const line of lines.split('\n')) {
    const m = /^(\S+)\s+(.+?)\s{2,}/.exec(line.trim() + '  ');
    if (m) config[m[1]] = m[2];
  }
  return config;
}

const query = new URLSearchParams({
  backend: 'wasm',
  task: 'arithmetic',
  preset: 'grpo',
  steps: String(steps),
  ...Object.fromEntries(Object.entries(SETS).map(([k, v]) => [k, String(v)])),
  ...Object.fromEntries(Object.entries(DIFFICULTY).map(([k, v]) => [`difficulty.${k}`, String(v)])),
  eval_every: String(steps),
  eval_prompts: String(EVAL.prompts),
  eval_samples: String(EVAL.n),
});

mkdirSync(out, { recursive: true });
const resultsFile = join(out, 'results.jsonl');
const done = existsSync(resultsFile)
  ? readFileSync(resultsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
const server = await startServer();
const browser = await launchBrowser();
try {
  for (const seed of seeds) {
    if (done.some((r) => r.seed === seed && r.steps === steps)) {
      console.log(`# seed ${seed}: done (${resultsFile})`);
      continue;
    }
    done.push(await runSeed(seed));
    appendFileSync(resultsFile, `${JSON.stringify(done.at(-1))}\n`);
  }
} finally {
  await closeBrowser(browser);
  await server.close();
}
writeFileSync(join(out, 'results.md'), table(done));
console.log(readFileSync(join(out, 'results.md'), 'utf8'));

async function runSeed(seed) {
  const load0 = loadavg()[0];
  const { page, context } = await openPage(browser, `/?${query}&seed=${seed}`, { base: server.url });
  await page.waitForSelector('[data-testid="upload-checkpoint"]', { state: 'attached' });
  const files = readdirSync(ckDir)
    .filter((f) => /\.(json|safetensors|jinja)$/.test(f))
    .map((f) => join(ckDir, f));
  await page.setInputFiles('[data-testid="upload-checkpoint"]', files);
  await page.waitForFunction(() => !!window.__rlvr.state().uploaded || !!window.__rlvr.state().error, null, {
    timeout: 60_000,
  });
  const err = await page.evaluate(() => window.__rlvr.state().error);
  if (err) throw new Error(`the page refused the checkpoint: ${err.title}: ${err.message}`);
  await page.click('[data-testid="start"]');
  const t0 = Date.now();
  let last = -1;
  for (;;) {
    await page.waitForTimeout(5000); // a sampling period for the progress line, not a wait for an event
    const s = await page.evaluate(() => {
      const st = window.__rlvr.state();
      return { step: st.run.step, state: st.run.state, evals: st.run.evals, error: st.error };
    });
    if (s.error) throw new Error(`seed ${seed}: ${s.error.title}: ${s.error.message}`);
    if (s.step !== last) {
      const secs = (Date.now() - t0) / 1000;
      const eta = s.step > 0 ? Math.round((secs / s.step) * (steps - s.step)) : '?';
      console.log(`# seed ${seed}: step ${s.step}/${steps}, ${Math.round(secs)} s, ETA ${eta} s`);
      last = s.step;
    }
    if (s.evals.some((e) => e.step === steps) && s.state !== 'running') break;
  }
  const wall = (Date.now() - t0) / 1000;
  const st = await page.evaluate(() => {
    const x = window.__rlvr.state();
    return { config: x.run.config, evals: x.run.evals, backend: x.run.backend, model: x.run.model };
  });
  // The page's config against rlvr train's, field by field (the evaluation's own fields aside).
  const inPage = flat(st.config);
  const differs = Object.entries(cliConfig(seed))
    .filter(([k]) => !k.startsWith('eval_'))
    .filter(([k, v]) => JSON.stringify(inPage[k]) !== v)
    .map(([k, v]) => `${k}: page ${JSON.stringify(inPage[k])}, rlvr train ${v}`);
  // Download checkpoint: the trained model with its tokenizer, scored by rlvr eval as the sweep scores.
  const dir = join(saved, `seed-${seed}`);
  mkdirSync(dir, { recursive: true });
  // The weights, the manifest and each tokenizer file the warm start's manifest names, in whatever order
  // the browser reports them.
  const spec = JSON.parse(readFileSync(join(ckDir, 'manifest.json'), 'utf8')).tokenizer;
  const expected = 2 + [spec.file, spec.config, spec.chatTemplate].filter(Boolean).length;
  const downloads = [];
  const all = new Promise((ok) => {
    page.on('download', (d) => {
      downloads.push(d);
      if (downloads.length === expected) ok(undefined);
    });
  });
  await page.click('[data-testid="tab-share"]');
  await page.click('[data-testid="save-checkpoint"]');
  await all;
  for (const d of downloads) await d.saveAs(join(dir, d.suggestedFilename()));
  await context.close();
  const manifest = readdirSync(dir).find((f) => f.endsWith('.manifest.json'));
  const cliEval = JSON.parse(
    rlvr([
      'eval',
      '--model',
      join(dir, manifest),
      '--task',
      'arithmetic',
      '--difficulty',
      JSON.stringify(DIFFICULTY),
      '--prompts',
      String(EVAL.prompts),
      '--n',
      String(EVAL.n),
      '--seed',
      String(EVAL.seed),
      '--temperature',
      String(SETS.temperature),
    ]),
  );
  const at = (step) => st.evals.find((e) => e.step === step)?.pass_at_k['1'];
  const r = {
    seed,
    steps,
    backend: st.backend?.description ?? null,
    page_pass_at_1_before: at(0),
    page_pass_at_1_after: at(steps),
    page_eval: { prompts: EVAL.prompts, n: EVAL.n, seed },
    rlvr_eval_pass_at_1_after: cliEval.pass_at_k['1'],
    rlvr_eval: EVAL,
    config_differs_from_rlvr_train: differs,
    wall_time_s: wall,
    load_average: [load0, loadavg()[0]],
    date: new Date().toISOString().slice(0, 10),
  };
  console.log(JSON.stringify(r));
  return r;
}

/** A config with its nested objects as dotted keys, as --explain-config prints it. */
function flat(obj, prefix = '', into = {}) {
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) flat(v, `${prefix}${k}.`, into);
    else into[`${prefix}${k}`] = v;
  }
  return into;
}

function table(rows) {
  const pts = (x) => (x >= 0 ? '+' : '') + (100 * x).toFixed(1);
  const lines = [
    '## The Llama path on arithmetic, trained in the page (scripts/llama-page-run.mjs)',
    '',
    `Chromium, WASM EP; settings of \`scripts/llama-path.sh arithmetic\` from a link: ?${query}&seed=S.`,
    `Page: its own held-out pass@1 (${EVAL.prompts} prompts x ${EVAL.n} samples, prompt seed = the run seed) at ` +
      `step 0 and after step ${steps}. rlvr eval: the downloaded checkpoint on the sweep's set (${EVAL.prompts} x ` +
      `${EVAL.n}, eval seed 0${quick ? '' : '; the base there is 0.563'}).`,
    '',
    '| seed | page pass@1 before → after | gain (page) | rlvr eval pass@1 after | config as rlvr train | wall time |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const gain = r.page_pass_at_1_after - r.page_pass_at_1_before;
    lines.push(
      `| ${r.seed} | ${r.page_pass_at_1_before.toFixed(3)} → ${r.page_pass_at_1_after.toFixed(3)} | ${pts(gain)} | ` +
        `${r.rlvr_eval_pass_at_1_after.toFixed(3)} | ${r.config_differs_from_rlvr_train.length ? 'no' : 'yes'} | ` +
        `${Math.round(r.wall_time_s)} s |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
