// Try the policy and Your data, end to end on the production build, on the WASM EP:
// a typed prompt answered by the base and the current policy (per-token probabilities in (0, 1]);
// a JSONL file imported through the file input and trained on for 3 steps (the rollouts show its
// prompts); a file with a bad line gives a line-numbered error and keeps what was loaded.
// Screenshots go to test-results/ (and to docs/screenshots/ with E2E_DOCS_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { openPage, RESULTS_DIR, ROOT, waitForPage, withPageDiagnostics as withDiagnostics } from './lib.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

/** A small, fast run: 2 prompts × 4 completions per step, no held-out evaluation. */
const FAST = 'backend=wasm&prompts_per_step=2&num_generations=4&eval_every=0';

/** Screenshot of one element (the view), kept for the manual (docs/) when asked. */
async function shot(page, selector, name) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.png`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await (await page.$(selector)).screenshot({ path: file });
  if (process.env.E2E_DOCS_SCREENSHOTS === '1') copyFileSync(file, join(ROOT, 'docs', 'screenshots', `${name}.png`));
}

const PROMPTS = ['1+2=', '3+4=', '5+1=', '2+6=', '7+2='];
const DATASET =
  PROMPTS.map((p) => JSON.stringify({ prompt: p, answer: String(Number(p[0]) + Number(p[2])) })).join('\n') + '\n';

test(
  'Try the policy: a typed prompt gets the base and ' +
    "the current policy's completions with per-token " +
    'probabilities (WASM)',
  async ({}, testInfo) => {
    test.setTimeout(180_000);
    const p = await openPage(browser, `/?${FAST}&task=arithmetic`, { viewport: { width: 1280, height: 900 } });
    try {
      await withDiagnostics(testInfo, p, 'newcomer-try', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-try"]');
        await page.waitForSelector('[data-testid="try-prompt"]');
        // Prefilled with an example prompt of the current task.
        const example = await page.inputValue('[data-testid="try-prompt"]');
        assert.match(example, /^\d+[+-]\d+=$/, `an arithmetic example prompt, got ${JSON.stringify(example)}`);
        // Outside the vocabulary: a clear error, no run needed to say so.
        await page.fill('[data-testid="try-prompt"]', 'caf\u00e9=');
        await page.click('[data-testid="try-run"]');
        await page.waitForSelector('[data-testid="try-error"]', { timeout: 90_000 });
        assert.match(await page.textContent('[data-testid="try-error"]'), /"é" \(code 233\).*not in the vocabulary/);
        // A typed prompt: busy state while sampling, then both sides answer.
        await page.fill('[data-testid="try-prompt"]', '12+7=');
        await page.fill('[data-testid="try-samples"]', '2');
        await page.click('[data-testid="try-run"]');
        await waitForPage(
          page,
          () =>
            document.querySelector('[data-testid="try-run"]')?.textContent === 'Sampling…' ||
            !!document.querySelector('[data-testid="try-result"]'),
          { timeout: 30_000 },
        );
        await page.waitForSelector('[data-testid="try-result"]', { timeout: 90_000 });
        assert.equal(await page.$('[data-testid="try-error"]'), null);
        for (const side of ['base', 'current']) {
          const completions = await page.$$eval(`[data-testid="try-${side}"] [data-testid="try-completion"]`, (els) =>
            els.map((e) => ({
              text: [...e.querySelectorAll('[data-testid="try-token"]')].map((s) => s.textContent).join(''),
              p: [...e.querySelectorAll('[data-testid="try-token"]')].map((s) => Number(s.dataset.p)),
            })),
          );
          assert.equal(completions.length, 3, `${side}: greedy + 2 samples`);
          for (const c of completions) {
            assert.ok(c.p.length > 0 && c.text.length > 0, `${side}: a non-empty completion`);
            for (const x of c.p) assert.ok(x > 0 && x <= 1, `${side}: probability ${x} in (0, 1]`);
          }
          console.log(
            `# try ${side} greedy: ${JSON.stringify(completions[0].text)} p[0]=${completions[0].p[0].toFixed(3)}`,
          );
        }
        await shot(page, '[data-testid="view-try"]', 'try-policy');
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'Your data: a JSONL file imported in the page ' + 'trains 3 steps, and the rollouts show its prompts',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await openPage(browser, `/?${FAST}&steps=3`, { viewport: { width: 1280, height: 900 } });
    try {
      await withDiagnostics(testInfo, p, 'newcomer-dataset', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-data"]');
        await page.setInputFiles('[data-testid="dataset-file"]', {
          name: 'sums.jsonl',
          mimeType: 'application/jsonl',
          buffer: Buffer.from(DATASET),
        });
        await page.waitForSelector('[data-testid="dataset-summary"]');
        assert.equal(
          await page.getAttribute('[data-testid="dataset-summary"]', 'data-records'),
          String(PROMPTS.length),
        );
        await shot(page, '[data-testid="view-data"]', 'dataset-import');
        await page.click('[data-testid="dataset-train"]');
        const done = await waitForPage(
          page,
          () => {
            const s = window.__rlvr.state();
            return s.run.state === 'done' && s.run.step === 3 ? s.run : null;
          },
          { timeout: 200_000 },
        );
        assert.equal(done.config.task, 'custom');
        assert.equal(await page.inputValue('[data-testid="task"]'), 'custom');
        // Every rollout of the last step is a prompt from the file, in the worker's records and in the Rollouts view.
        const prompts = await page.evaluate(async () =>
          (await window.__rlvr.getRollouts(2)).records.map((r) => r.prompt),
        );
        assert.ok(prompts.length > 0);
        for (const q of prompts)
          assert.ok(PROMPTS.includes(q), `rollout prompt ${JSON.stringify(q)} comes from the file`);
        await page.click('[data-testid="tab-rollouts"]');
        await page.waitForSelector('[data-testid="groups-table"]', { timeout: 30_000 });
        const shown = await page.$$eval('[data-testid="groups-table"] .prompt-cell pre', (els) =>
          els.map((e) => e.textContent),
        );
        assert.ok(
          shown.length > 0 && shown.every((q) => PROMPTS.includes(q)),
          `the Rollouts view shows the file's prompts: ${JSON.stringify(shown)}`,
        );
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'Your data: a bad line is reported with its line ' + 'number; a file with no good line changes nothing',
  async ({}, testInfo) => {
    test.setTimeout(60_000);
    const p = await openPage(browser, `/?${FAST}`);
    try {
      await withDiagnostics(testInfo, p, 'newcomer-dataset-errors', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-data"]');
        const text = [
          '{"prompt": "1+1=", "answer": "2"}',
          '{"prompt": "2+2=", "answer": }',
          '{"answer": "3"}',
          '{"prompt": "4+4=", "answer": 8}',
        ].join('\n');
        await page.setInputFiles('[data-testid="dataset-file"]', {
          name: 'mixed.jsonl',
          mimeType: 'application/jsonl',
          buffer: Buffer.from(text),
        });
        await page.waitForSelector('[data-testid="dataset-line-errors"]');
        const errors = await page.textContent('[data-testid="dataset-line-errors"]');
        assert.match(errors, /line 2: not valid JSON/);
        assert.match(errors, /line 3: missing "prompt"/);
        assert.equal(await page.getAttribute('[data-testid="dataset-summary"]', 'data-records'), '2');
        // Nothing usable: refused with the first lines' reasons; the dataset loaded before stays.
        await page.setInputFiles('[data-testid="dataset-file"]', {
          name: 'broken.jsonl',
          mimeType: 'application/jsonl',
          buffer: Buffer.from('{"prompt": 1}\nnot json\n'),
        });
        await page.waitForSelector('[data-testid="dataset-error"]');
        const refused = await page.textContent('[data-testid="dataset-error"]');
        assert.match(refused, /line 1: missing "prompt".*line 2: not valid JSON/);
        assert.match(refused, /Still using mixed\.jsonl/);
        assert.equal(await page.getAttribute('[data-testid="dataset-summary"]', 'data-records'), '2');
      });
    } finally {
      await p.close();
    }
  },
);

test(
  "Compare: B's overrides are checked as typed (every " +
    'error, by field), and the runs end with a held-out ' +
    'pass@1 verdict',
  async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await openPage(
      browser,
      '/?backend=wasm&task=arithmetic&prompts_per_step=2&num_generations=4&eval_every=2&eval_prompts=4',
    );
    try {
      await withDiagnostics(testInfo, p, 'newcomer-compare', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-compare"]');
        await page.fill('[data-testid="compare-edits-b"]', 'learning_rat=0.1, num_generations=1\ntemperature=hot');
        await page.waitForSelector('[data-testid="compare-edits-errors"]');
        const errors = await page.$$eval('[data-testid="compare-edits-errors"] li', (els) =>
          els.map((e) => e.textContent),
        );
        assert.equal(errors.length, 3, JSON.stringify(errors));
        assert.match(
          errors.join('\n'),
          new RegExp(
            String.raw`learning_rat: unknown field[\s\S]*num_generations: must be >= ` +
              String.raw`2|num_generations: must be >= 2[\s\S]*learning_rat: unknown field`,
          ),
        );
        assert.match(errors.join('\n'), /temperature: must be a number/);
        assert.equal(await page.isDisabled('[data-testid="compare-start"]'), true, 'Run both is disabled');
        // No worker loaded for either side.
        const c0 = await page.evaluate(() => window.__rlvr.state().compare);
        assert.equal(c0.a.state, 'idle');
        await page.fill('[data-testid="compare-edits-b"]', 'epsilon_high=0.28');
        await waitForPage(page, () => !document.querySelector('[data-testid="compare-edits-errors"]'));
        await page.fill('#compare-steps', '2');
        await page.click('[data-testid="compare-start"]');
        const verdict = await waitForPage(
          page,
          () =>
            document.querySelector('[data-testid="compare-verdict"]')?.dataset.significant !== undefined &&
            document.querySelector('[data-testid="compare-verdict"]').textContent,
          { timeout: 200_000 },
        );
        console.log(`# compare verdict: ${verdict}`);
        assert.match(
          verdict,
          new RegExp(
            String.raw`(did better on held-out pass@1 at step 2: [\d.]+% vs [\d.]+% \(\+[\d.]+ points\)` +
              '|tie on held-out pass@1 at step 2).*' +
              String.raw`standard error of the difference [\d.]+ points \(binomial, 4×2 and 4×2 samples\)`,
          ),
        );
      });
    } finally {
      await p.close();
    }
  },
);
