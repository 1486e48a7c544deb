// Keep & share → "Import Hugging Face" at a real size: a LlamaForCausalLM folder with SmolLM2-135M's
// config.json (30 layers, hidden 576, 9/3 heads, vocabulary 49,152, tied embeddings; 134.5M parameters),
// random weights and a 49,152-token byte-level BPE tokenizer, built by the real transformers and tokenizers
// (scripts/hf_llama_fixture.py --shape smollm2-135m: one float32 model.safetensors of 538 MB, as
// save_pretrained writes it). It imports as a folder, is named with its architecture and parameter count,
// and Score a text (the worker, on WASM) gives each line's ids exactly as transformers' tokenizer and each
// token's log-prob within 1e-4 of transformers' float32 ones. Without the Python wheels (scripts/setup-python.sh
// exits 3) the test prints a banner and is skipped. Alone: `npx playwright test e2e/hf-import-smollm2.spec.mjs`.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import {
  buildHfFixtures,
  checkShown,
  importAndWait,
  parameterCount,
  scoreAndCompare,
  skipWithoutWheels,
} from './hf-import-lib.mjs';
import { openPage, screenshot, withPageDiagnostics } from './lib.mjs';

const TITLE =
  'a model at the SmolLM2-135M shape (one 538 MB safetensors file) imports in the page and scores as ' +
  'transformers does (1e-4)';

test(TITLE, async ({ browser }, testInfo) => {
  test.setTimeout(600_000);
  const tmp = mkdtempSync(join(tmpdir(), 'rlvr-hf-import-smollm2-e2e-'));
  const dir = join(tmp, 'smollm2-135m');
  const built = await buildHfFixtures(tmp, [{ dir, args: ['--arch', 'llama', '--shape', 'smollm2-135m', '--tied'] }]);
  skipWithoutWheels(built, 'e2e/hf-import-smollm2.spec.mjs');
  const weights = statSync(join(dir, 'model.safetensors')).size;
  // The size of a released small model's weights file, far beyond any preset's (~19 MB at most).
  assert.ok(weights > 500 * 1024 * 1024, `model.safetensors is ${weights} bytes`);
  const p = await openPage(browser, '/?backend=wasm&task=arithmetic', { viewport: { width: 1280, height: 900 } });
  try {
    await withPageDiagnostics(testInfo, p, 'hf-import-smollm2', async () => {
      const { page } = p;
      await page.click('[data-testid="tab-share"]');
      await importAndWait(page, 'import-hf-folder', dir, 'llama-hf-import', 240_000);
      await checkShown(page, 'llama-hf-import', 'LlamaForCausalLM', parameterCount(dir));
      // Six lines and the last four (138 tokens): at this size the page scores about 8 tokens a second under load,
      // and the tiny shapes (e2e/hf-import-llama.spec.mjs) already score 20 lines each.
      await scoreAndCompare(page, dir, 'SmolLM2-135M shape (folder)', 240_000, 6);
      await screenshot(page, 'hf-import-smollm2-score');
      assert.deepEqual(p.pageErrors, []);
    });
  } finally {
    await p.close();
  }
});
