// A file given to the wrong place is named by its content, in the page: a Parquet
// file picked in "Your data" is "a Parquet file", not "not UTF-8"; TRL's trainer_state.json picked in
// Keep & share → "Load a config file…" is named as TRL's trainer_state.json, not listed as 80 unknown
// config fields; the setup is left as it was. The two files are written by the tools that write them in
// a TRL run (pandas' to_parquet, as TRL's --log_completions does, and transformers'
// TrainerState.save_to_json) with the Python from scripts/setup-python.sh; without its wheels the test
// prints a banner and is skipped. Alone: `npx playwright test e2e/wrong-files.spec.mjs`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from '@playwright/test';
import { openPage, ROOT, setupPython, withPageDiagnostics } from './lib.mjs';

let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

/** Writes completions_00001.parquet and trainer_state.json with pandas and transformers; null without them. */
function trlFiles() {
  const setup = setupPython();
  if (setup.status !== 0) return { skip: setup.stderr.trim().split('\n').pop() };
  const python = resolve(ROOT, setup.stdout.trim().split('\n').pop());
  const out = mkdtempSync(join(tmpdir(), 'rlvr-wrong-files-'));
  const script = [
    'import sys, pandas as pd',
    'from transformers import TrainerState',
    'out = sys.argv[1]',
    'pd.DataFrame({"step": ["1"], "prompt": ["2+2="], "completion": ["4"], "advantage": [0.5]})' +
      '.to_parquet(out + "/completions_00001.parquet")',
    's = TrainerState(global_step=20, max_steps=20, log_history=[{"loss": 0.1, "step": 10}])',
    's.save_to_json(out + "/trainer_state.json")',
  ].join('\n');
  const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' };
  const r = spawnSync(python, ['-c', script, out], { encoding: 'utf8', env });
  assert.equal(r.status, 0, `writing the files failed: ${r.stderr.slice(-2000)}`);
  return { parquet: join(out, 'completions_00001.parquet'), state: join(out, 'trainer_state.json') };
}

test(
  'a Parquet file in Your data and a ' + 'trainer_state.json in Load a config file are named ' + 'for what they are',
  async ({}, testInfo) => {
    test.setTimeout(300_000);
    const files = trlFiles();
    if (files.skip) {
      const bar = '!'.repeat(100);
      console.error(
        `\n${bar}\n!!  SKIPPED: e2e/wrong-files.spec.mjs; the Python wheels are missing:\n!!  ${files.skip}\n${bar}\n`,
      );
      test.skip(true, 'scripts/setup-python.sh: the Python wheels are missing');
    }
    const p = await openPage(browser, '/?backend=wasm&eval_every=0');
    try {
      await withPageDiagnostics(testInfo, p, 'wrong-files', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-data"]');
        await page.setInputFiles('[data-testid="dataset-file"]', files.parquet);
        await page.waitForSelector('[data-testid="dataset-error"]');
        const dataset = await page.textContent('[data-testid="dataset-error"]');
        assert.match(dataset, /completions_00001\.parquet is a Parquet file/);
        assert.doesNotMatch(dataset, /UTF-8|Latin-1/);

        const before = await page.evaluate(() => JSON.stringify(window.__rlvr.state().setup));
        await page.click('[data-testid="tab-share"]');
        await page.setInputFiles('[data-testid="load-config"]', files.state);
        await page.waitForSelector('[data-testid="error-message"]');
        const config = await page.textContent('[data-testid="error-message"]');
        assert.match(config, /trainer_state\.json is TRL's trainer_state\.json/);
        assert.doesNotMatch(config, /unknown (config )?field/i);
        assert.match(config, /Nothing was changed/);
        assert.equal(
          await page.evaluate(() => JSON.stringify(window.__rlvr.state().setup)),
          before,
          'the setup is unchanged',
        );
        assert.deepEqual(p.pageErrors, []);
      });
    } finally {
      await p.close();
    }
  },
);
