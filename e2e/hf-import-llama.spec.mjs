// Keep & share → "Import Hugging Face" with a LlamaForCausalLM and a Qwen2ForCausalLM folder that the
// real transformers built (scripts/hf_llama_fixture.py: random init, a byte-level BPE tokenizer trained
// by `tokenizers`; the Llama in 17 safetensors shards with model.safetensors.index.json, the Qwen2 as one
// model.safetensors with tied embeddings). The Llama is picked as a folder, the Qwen2 as a zip; each
// becomes the uploaded checkpoint, named with its architecture and parameter count in Base checkpoint and
// in its card; Score a text (the worker, on WASM) gives each line's ids exactly as transformers'
// tokenizer and each token's log-prob within 1e-4 of transformers' float32 ones (reference.json); Start
// trains the Llama a GRPO step with LoRA in its own tokens (the completions decode as the real
// `tokenizers` decodes them). Then a truncated shard, an unsupported architecture, a Unigram tokenizer
// and shapes that do not match config.json are each refused in the page with the reason, and the
// imported model before them stays. Without the Python wheels (scripts/setup-python.sh exits 3) the
// tests print a banner and are skipped. Alone: `npx playwright test e2e/hf-import-llama.spec.mjs`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from '@playwright/test';
import {
  buildHfFixtures,
  checkShown,
  importAndWait,
  parameterCount,
  scoreAndCompare,
  skipWithoutWheels,
} from './hf-import-lib.mjs';
import { openPage, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';

// One GRPO step with LoRA r = 4 on two prompts of two completions when Start is pressed (trainOneStep).
const URL_ =
  '/?backend=wasm&task=arithmetic&steps=1&prompts_per_step=2&num_generations=2' +
  '&max_completion_length=12&eval_every=0&lora_r=4';
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-hf-import-llama-e2e-'));
const llama = join(tmp, 'llama');
const qwen2 = join(tmp, 'qwen2');
let fixtures = null;

/** Both folders, built once for the file (~10 s); skips the test without the Python wheels. */
async function needFixtures() {
  fixtures ??= buildHfFixtures(tmp, [
    { dir: llama, args: ['--arch', 'llama', '--shard-size', '20KB'] },
    { dir: qwen2, args: ['--arch', 'qwen2', '--tied'] },
  ]);
  skipWithoutWheels(await fixtures, 'e2e/hf-import-llama.spec.mjs');
  return { llama, qwen2 };
}

/**
 * Start trains the imported Llama (the URL's budget: one GRPO step with LoRA r = 4): the step's
 * completions are in the model's own tokens, and their text, and each token's, is what the real
 * `tokenizers` decodes the ids to.
 */
async function trainOneStep(page, dir) {
  const t0 = performance.now();
  await page.click('[data-testid="start"]');
  await page.waitForFunction(
    () => window.__rlvr.state().run.metrics.length >= 1 || !!document.querySelector('[data-testid="error-banner"]'),
    null,
    { timeout: 120_000, polling: 250 },
  );
  const error = (await page.$('[data-testid="error-message"]'))
    ? await page.textContent('[data-testid="error-message"]')
    : null;
  assert.equal(error, null, 'Start trains the imported Llama');
  const records = await page.evaluate(async () => (await window.__rlvr.getRollouts(1)).records);
  assert.equal(records.length, 2 * 2);
  const vocab = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
  assert.ok(records.every((r) => r.tokens.every((t) => t >= 0 && t < vocab)));
  assert.ok(
    records.some((r) => r.tokens.some((t) => t > 101)),
    "ids beyond the playground's 102 characters",
  );
  const probe = join(tmp, 'probe.json');
  writeFileSync(probe, JSON.stringify(records.map((r) => r.tokens)));
  const py = [
    'import json, sys',
    'from tokenizers import Tokenizer',
    'tok = Tokenizer.from_file(sys.argv[1])',
    'rows = json.load(open(sys.argv[2]))',
    'print(json.dumps([[tok.decode(r, ' +
      'skip_special_tokens=False), [tok.decode([t], ' +
      'skip_special_tokens=False) for t in r]] for r in ' +
      'rows]))',
  ].join('\n');
  const real = JSON.parse(
    execFileSync(resolve(ROOT, '.venv-py/bin/python'), ['-c', py, join(dir, 'tokenizer.json'), probe], {
      encoding: 'utf8',
    }),
  );
  records.forEach((r, i) => {
    assert.equal(r.completion, real[i][0], `completion ${i}: the real tokenizers' decoding`);
    assert.deepEqual(r.tokenText, real[i][1], `completion ${i}: each token's text`);
  });
  console.log(
    `# one GRPO step (LoRA r = 4) on the imported Llama in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

/**
 * Download checkpoint saves the trained Llama with its tokenizer (each file named after the checkpoint), and
 * Load checkpoint takes it back: without the tokenizer files it is refused naming the one missing and the
 * model stays; with them it becomes the setup's checkpoint, and Start trains it a step in its own tokens.
 */
async function saveAndLoadBack(page, dir) {
  await page.click('[data-testid="tab-share"]');
  // The weights, the manifest and the fixture's three tokenizer files (tokenizer.json, tokenizer_config.json,
  // chat_template.jinja): the browser may report them in any order, so wait for all five, however they come.
  const downloads = [];
  const all = new Promise((ok) => {
    const onDownload = (d) => {
      downloads.push(d);
      if (downloads.length < 5) return;
      page.off('download', onDownload);
      ok(undefined);
    };
    page.on('download', onDownload);
  });
  await page.click('[data-testid="save-checkpoint"]');
  await all;
  const saved = mkdtempSync(join(tmp, 'saved-'));
  const paths = {};
  for (const d of downloads) {
    paths[d.suggestedFilename()] = join(saved, d.suggestedFilename());
    await d.saveAs(paths[d.suggestedFilename()]);
  }
  const names = Object.keys(paths).sort();
  const base = names.find((n) => n.endsWith('.manifest.json')).slice(0, -'.manifest.json'.length);
  assert.deepEqual(names, [
    `${base}.chat_template.jinja`,
    `${base}.manifest.json`,
    `${base}.safetensors`,
    `${base}.tokenizer.json`,
    `${base}.tokenizer_config.json`,
  ]);
  const manifest = JSON.parse(readFileSync(paths[`${base}.manifest.json`], 'utf8'));
  assert.equal(manifest.tokenizer.file, `${base}.tokenizer.json`);
  assert.ok(
    readFileSync(paths[`${base}.tokenizer.json`]).equals(readFileSync(join(dir, 'tokenizer.json'))),
    "the saved tokenizer is the folder's own",
  );
  const before = await page.evaluate(() => window.__rlvr.state().uploaded.name);
  await page.setInputFiles('[data-testid="load-checkpoint"]', [
    paths[`${base}.manifest.json`],
    paths[`${base}.safetensors`],
  ]);
  await page.waitForSelector('[data-testid="error-banner"]', { timeout: 30_000 });
  assert.match(
    await page.textContent('[data-testid="error-message"]'),
    new RegExp(`names its tokenizer's file ${base}\\.tokenizer\\.json: choose it too.*unchanged`),
  );
  assert.equal(await page.evaluate(() => window.__rlvr.state().uploaded.name), before, 'the model stays');
  await page.click('[data-testid="dismiss-error"]');
  await page.waitForSelector('[data-testid="error-banner"]', { state: 'detached' });
  await page.setInputFiles('[data-testid="load-checkpoint"]', Object.values(paths));
  await page.waitForFunction(
    (n) => window.__rlvr.state().uploaded?.name === n || !!document.querySelector('[data-testid="error-banner"]'),
    manifest.name,
    { timeout: 30_000, polling: 250 },
  );
  assert.equal(await page.$('[data-testid="error-banner"]'), null, 'the whole checkpoint loads');
  const loaded = await page.evaluate(() => {
    const u = window.__rlvr.state().uploaded;
    return { bytes: u.bytes.length, files: Object.keys(u.files).sort() };
  });
  assert.deepEqual(loaded, {
    bytes: statSync(paths[`${base}.safetensors`]).size,
    files: [`${base}.chat_template.jinja`, `${base}.tokenizer.json`, `${base}.tokenizer_config.json`],
  });
  // A new base checkpoint takes a new run: Reset (confirmed), then Start.
  await page.click('[data-testid="reset"]');
  await page.click('[data-testid="confirm-reset-yes"]');
  await page.waitForFunction(
    () => window.__rlvr.state().run.state === 'idle' && !window.__rlvr.state().run.metrics.length,
  );
  await trainOneStep(page, dir);
}

test(
  'a Llama folder (17 shards) and a Qwen2 zip import ' +
    'in the page, named with architecture and size, ' +
    'score as transformers does (1e-4), and the Llama ' +
    'trains a GRPO step with LoRA, saved and loaded back with its tokenizer',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const { llama, qwen2 } = await needFixtures();
    const zip = join(tmp, 'qwen2-tiny.zip');
    execFileSync('python3', ['-m', 'zipfile', '-c', zip, qwen2], { cwd: tmp });
    const p = await openPage(browser, URL_, { viewport: { width: 1280, height: 900 } });
    try {
      await withPageDiagnostics(testInfo, p, 'hf-import-llama', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-share"]');
        await importAndWait(page, 'import-hf-folder', llama, 'llama-hf-import');
        await checkShown(page, 'llama-hf-import', 'LlamaForCausalLM', parameterCount(llama));
        await scoreAndCompare(page, llama, 'Llama (folder)');
        await screenshot(page, 'hf-import-llama-score');
        await trainOneStep(page, llama);
        await saveAndLoadBack(page, llama);
        await page.click('[data-testid="tab-share"]');

        await importAndWait(page, 'import-hf-zip', zip, 'qwen2-hf-import');
        await checkShown(page, 'qwen2-hf-import', 'Qwen2ForCausalLM', parameterCount(qwen2));
        await scoreAndCompare(page, qwen2, 'Qwen2 (zip)');
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await p.close();
    }
  },
);

const editJson = (path, f) => {
  const o = JSON.parse(readFileSync(path, 'utf8'));
  f(o);
  writeFileSync(path, JSON.stringify(o));
};

const REFUSALS = [
  {
    what: 'a truncated safetensors shard',
    edit: (d) => {
      const f = join(d, 'model-00005-of-00017.safetensors');
      truncateSync(f, statSync(f).size - 100);
    },
    message: /model-00005-of-00017\.safetensors: the file is truncated/,
  },
  {
    what: 'an unsupported architecture',
    edit: (d) =>
      editJson(join(d, 'config.json'), (o) =>
        Object.assign(o, { model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'] }),
      ),
    message: /model_type is "gpt_neox".*an unsupported architecture/,
  },
  {
    what: 'a tokenizer type not supported (Unigram)',
    edit: (d) => cpSync(join(d, 'unigram-tokenizer.json'), join(d, 'tokenizer.json')),
    message: /tokenizer\.json: model\.type is "Unigram"; supported: BPE/,
  },
  {
    what: 'shapes that do not match config.json',
    edit: (d) => editJson(join(d, 'config.json'), (o) => (o.intermediate_size = 96)),
    message: /tensor "model\.layers\.0\.mlp\.gate_proj\.weight" has shape \[80,48\].*needs \[96,48\]/,
  },
];

test(
  'a truncated shard, another architecture, a Unigram ' +
    'tokenizer, mismatched shapes: each refused in the ' +
    'page with the reason; the imported model stays',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const { llama, qwen2 } = await needFixtures();
    const p = await openPage(browser, URL_);
    try {
      await withPageDiagnostics(testInfo, p, 'hf-import-llama-refusals', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-share"]');
        await importAndWait(page, 'import-hf-folder', qwen2, 'qwen2-hf-import');
        const kept = await page.evaluate(() => {
          const u = window.__rlvr.state().uploaded;
          return { manifest: u.manifest, bytes: u.bytes.length, files: Object.keys(u.files).sort() };
        });
        for (const r of REFUSALS) {
          const dir = mkdtempSync(join(tmp, 'bad-'));
          cpSync(llama, dir, { recursive: true });
          r.edit(dir);
          await page.setInputFiles('[data-testid="import-hf-folder"]', dir);
          await page.waitForSelector('[data-testid="error-banner"]', { timeout: 30_000 });
          assert.equal(await page.getAttribute('[data-testid="error-banner"]', 'data-kind'), 'checkpoint', r.what);
          const msg = await page.textContent('[data-testid="error-message"]');
          assert.match(msg, r.message, r.what);
          assert.match(msg, /The current model is unchanged/, r.what);
          const now = await page.evaluate(() => {
            const u = window.__rlvr.state().uploaded;
            return { manifest: u.manifest, bytes: u.bytes.length, files: Object.keys(u.files).sort() };
          });
          assert.deepEqual(now, kept, `${r.what}: the Qwen2 imported before stays`);
          assert.equal(await page.$eval('[data-testid="checkpoint"]', (s) => s.value), 'upload');
          assert.match(
            await page.textContent('[data-testid="imported-model-summary"]'),
            /^qwen2-hf-import: Qwen2ForCausalLM/,
          );
          console.log(`# refused in the page (${r.what}): ${msg.trim().slice(0, 160)}`);
          await page.click('[data-testid="dismiss-error"]');
          await page.waitForSelector('[data-testid="error-banner"]', { state: 'detached' });
        }
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await p.close();
    }
  },
);
