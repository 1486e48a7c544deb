// Keep & share → "Export for Hugging Face": the zip the page downloads holds exactly the files that
// exportHuggingFace (what `rlvr export --format hf` writes) makes from the same run's checkpoint, and
// transformers.js loads the unzipped folder. Alone: `npx playwright test e2e/hf-export.spec.mjs`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from '@playwright/test';
import { importTs, openPage, screenshot, withPageDiagnostics } from './lib.mjs';

/** The smallest real run (as in reliability.spec.mjs): a fresh nano model, one step. */
const NANO =
  'task=arithmetic&model=nano&prompts_per_step=2&num_generations=2&max_completion_length=8' +
  '&eval_every=0&difficulty.digits=1&difficulty.ops=%2B&steps=1';

let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const filesUnder = (dir) =>
  readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)).map((g) => join(f, g)) : [f],
  );

test(
  'Export for Hugging Face downloads the same files ' + 'as the CLI, and transformers.js loads them',
  async ({}, testInfo) => {
    test.setTimeout(180_000);
    const p = await openPage(browser, `/?${NANO}`);
    try {
      await withPageDiagnostics(testInfo, p, 'hf-export', async () => {
        const { page } = p;
        await page.click('[data-testid="start"]');
        await page.waitForFunction(() => window.__rlvr.state().run.state === 'done', undefined, {
          timeout: 150_000,
          polling: 250,
        });
        await page.click('[data-testid="tab-share"]');
        const dir = mkdtempSync(join(tmpdir(), 'rlvr-hf-e2e-'));
        const grab = async (testid, count) => {
          const got = [];
          const done = new Promise((ok) => {
            page.on('download', function onDl(d) {
              got.push(d);
              if (got.length === count) {
                page.off('download', onDl);
                ok();
              }
            });
          });
          await page.click(`[data-testid="${testid}"]`);
          await done;
          return Promise.all(
            got.map(async (d) => {
              const path = join(dir, d.suggestedFilename());
              await d.saveAs(path);
              return path;
            }),
          );
        };
        await screenshot(page, 'hf-export-share-panel');
        const [zip] = await grab('export-hf', 1);
        const ckpt = await grab('save-checkpoint', 2);
        assert.match(zip, /nano-random-0\+rl1-hf\.zip$/);

        execFileSync('python3', ['-m', 'zipfile', '-e', zip, join(dir, 'unzipped')]);
        const folder = join(dir, 'unzipped', 'nano-random-0+rl1-hf');
        const names = filesUnder(folder)
          .map((f) => relative(folder, join(folder, f)))
          .sort();
        assert.deepEqual(names, [
          'config.json',
          'generation_config.json',
          'model.safetensors',
          'onnx/model.onnx',
          'tokenizer.json',
          'tokenizer_config.json',
        ]);

        const { exportHuggingFace } = await importTs('src/model/hf-export.ts');
        const { loadWeights, validateManifest } = await importTs('src/model/checkpoint.ts');
        const manifest = validateManifest(
          JSON.parse(
            readFileSync(
              ckpt.find((f) => f.endsWith('.json')),
              'utf8',
            ),
          ),
        );
        const weights = loadWeights(
          manifest,
          new Uint8Array(readFileSync(ckpt.find((f) => f.endsWith('.safetensors')))),
        );
        for (const [name, bytes] of exportHuggingFace(manifest, weights)) {
          assert.equal(
            Buffer.compare(readFileSync(join(folder, name)), bytes),
            0,
            `${name} in the zip differs from exportHuggingFace's`,
          );
        }

        const { AutoModelForCausalLM, AutoTokenizer, env } = await import('@huggingface/transformers');
        env.allowRemoteModels = false;
        env.useFSCache = false;
        const tokenizer = await AutoTokenizer.from_pretrained(folder);
        const model = await AutoModelForCausalLM.from_pretrained(folder);
        const { logits } = await model(tokenizer('7+5=<think>'));
        assert.deepEqual(logits.dims, [1, 5, manifest.model.vocabSize]);
        assert.ok(Array.from(logits.data).every(Number.isFinite));
        await model.dispose();
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await p.close();
    }
  },
);
