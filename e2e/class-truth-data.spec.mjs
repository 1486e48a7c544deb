// Your data, on the production build (alone: `npx vite build && npx playwright test e2e/class-truth-data.spec.mjs`):
// "Train on this dataset" trains, also after Try the policy; a Windows-1252 file is refused, naming the
// line and byte.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from '@playwright/test';
import { note, openPage, waitForPage, withPageDiagnostics } from './lib.mjs';
import { browser, classTruthHooks, SMALL, text } from './class-truth-lib.mjs';

classTruthHooks(test);

const DATASET =
  ['1+2=', '3+4=', '5+1=', '2+6=']
    .map((q) => JSON.stringify({ prompt: q, answer: String(Number(q[0]) + Number(q[2])) }))
    .join('\n') + '\n';

test('Train on this dataset trains, also after Try the policy loaded a 0-step run', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const p = await openPage(browser, `/?${SMALL}&eval_every=0&steps=2&task=arithmetic`);
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-dataset-train', async () => {
      const { page } = p;
      await page.click('[data-testid="tab-try"]');
      await page.fill('[data-testid="try-samples"]', '1');
      await page.click('[data-testid="try-run"]');
      await page.waitForSelector('[data-testid="try-result"]', { timeout: 150_000 });
      const before = await page.evaluate(() => window.__rlvr.state().run);
      assert.equal(before.step, 0);
      assert.equal(before.config.task, 'arithmetic', 'Try the policy loaded a 0-step arithmetic run');
      await page.click('[data-testid="tab-data"]');
      await page.setInputFiles('[data-testid="dataset-file"]', {
        name: 'sums.jsonl',
        mimeType: 'application/jsonl',
        buffer: Buffer.from(DATASET),
      });
      await page.waitForSelector('[data-testid="dataset-summary"]');
      const label = (await text(page, 'dataset-train')).trim();
      await page.click('[data-testid="dataset-train"]');
      // Either it trains on the dataset, or the panel says why it did not (then the button did not do what it said).
      const outcome = await waitForPage(
        page,
        () => {
          const r = window.__rlvr.state().run;
          if (r.config?.task === 'custom' && r.step >= 1) return { run: r };
          const said = document.querySelector('[data-testid="view-data"] .dataset-summary .note')?.textContent;
          return said ? { said } : null;
        },
        { timeout: 150_000 },
      );
      assert.ok(outcome.run, `the button "${label}" did not train: ${outcome.said}`);
      assert.equal(label, 'Train on this dataset', 'a 0-step run is replaced without a warning in the label');
      const run = outcome.run;
      const prompts = (await page.evaluate((s) => window.__rlvr.getRollouts(s), run.step)).records.map((r) => r.prompt);
      for (const q of prompts) assert.ok(DATASET.includes(JSON.stringify(q)), `rollout prompt ${q} is from the file`);
      note(testInfo, `trained on the dataset to step ${run.step}`);

      // The dataset travels: the link names it, Save config embeds it.
      await page.click('[data-testid="tab-share"]');
      const link = new URL(await page.inputValue('[data-testid="share-url"]'));
      assert.equal(link.searchParams.get('task'), 'custom');
      assert.equal(link.searchParams.get('dataset'), 'sums.jsonl', `the share link names the dataset: ${link.search}`);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="save-config"]')]);
      const saved = JSON.parse(readFileSync(await dl.path(), 'utf8'));
      assert.equal(saved.task, 'custom');
      assert.deepEqual(
        saved.dataset,
        { name: 'sums.jsonl', verifier: { kind: 'exact' }, text: DATASET },
        'the saved config embeds the dataset',
      );
      // Someone else opens the link: the Your data tab asks for that file; loading the saved config brings it.
      const other = await openPage(browser, `${link.pathname}${link.search}`);
      try {
        const q = other.page;
        await q.click('[data-testid="tab-data"]');
        await q.waitForSelector('[data-testid="dataset-wanted"]', { timeout: 30_000 });
        assert.match(await q.textContent('[data-testid="dataset-wanted"]'), /trains on sums\.jsonl/);
        await q.click('[data-testid="tab-share"]');
        await q.setInputFiles('[data-testid="load-config"]', {
          name: 'rlvr-config.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify(saved)),
        });
        await q.click('[data-testid="tab-data"]');
        await q.waitForSelector('[data-testid="dataset-summary"][data-records="4"]', { timeout: 10_000 });
        assert.equal(await q.$('[data-testid="dataset-wanted"]'), null);
        assert.equal(await q.inputValue('[data-testid="task"]'), 'custom');
      } finally {
        await other.close();
      }
    });
  } finally {
    await p.close();
  }
});

test(
  'a Windows-1252 file is refused as "not UTF-8", ' + 'naming the line and byte, and nothing is lost',
  async ({}, testInfo) => {
    test.setTimeout(60_000);
    const p = await openPage(browser, `/?${SMALL}`);
    try {
      await withPageDiagnostics(testInfo, p, 'class-truth-latin1', async () => {
        const { page } = p;
        await page.click('[data-testid="tab-data"]');
        await page.setInputFiles('[data-testid="dataset-file"]', {
          name: 'sums.jsonl',
          mimeType: 'application/jsonl',
          buffer: Buffer.from(DATASET),
        });
        await page.waitForSelector('[data-testid="dataset-summary"]');
        // Curly quotes saved by a word processor in Windows-1252: bytes 0x93 and 0x94.
        const cp1252 = Buffer.concat([
          Buffer.from('{"prompt": "1+1=", "answer": "2"}\n{'),
          Buffer.from([0x93]),
          Buffer.from('prompt'),
          Buffer.from([0x94]),
          Buffer.from(': "2+2=", "answer": "4"}\n'),
        ]);
        await page.setInputFiles('[data-testid="dataset-file"]', {
          name: 'word.jsonl',
          mimeType: 'application/jsonl',
          buffer: cp1252,
        });
        await waitForPage(
          page,
          () =>
            document.querySelector('[data-testid="dataset-error"]') ||
            document.querySelector('[data-testid="dataset-summary"] h3')?.textContent === 'word.jsonl',
          { timeout: 10_000 },
        );
        const err = (await page.$('[data-testid="dataset-error"]'))
          ? await text(page, 'dataset-error')
          : `(accepted) ${await page.textContent('[data-testid="dataset-summary"]')}`;
        assert.match(err, /^word\.jsonl is not UTF-8 text: line 2 has the byte 0x93/);
        assert.doesNotMatch(err, /not valid JSON/);
        assert.match(err, /Still using sums\.jsonl/);
        assert.equal(await page.getAttribute('[data-testid="dataset-summary"]', 'data-records'), '4');
        // A config file in Latin-1 (an accented value): the same message, and the setup is unchanged.
        await page.click('[data-testid="tab-share"]');
        const latin1 = Buffer.concat([
          Buffer.from('{"task": "sat", "learning_rate": 0.001, "note": "caf'),
          Buffer.from([0xe9]),
          Buffer.from('"}\n'),
        ]);
        await page.setInputFiles('[data-testid="load-config"]', {
          name: 'mine.json',
          mimeType: 'application/json',
          buffer: latin1,
        });
        await waitForPage(
          page,
          () =>
            document.querySelector('[data-testid="error-message"]') ||
            document.querySelector('[data-testid="url-notes"]'),
          { timeout: 10_000 },
        );
        assert.match(
          (await page.$('[data-testid="error-message"]'))
            ? await text(page, 'error-message')
            : `(loaded) ${await text(page, 'url-notes')}`,
          /^mine\.json is not UTF-8 text: line 1 has the byte 0xE9/,
        );
        note(testInfo, err);
      });
    } finally {
      await p.close();
    }
  },
);
