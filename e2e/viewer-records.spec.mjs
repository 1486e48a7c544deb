// The run viewer ("Run viewer" tab, src/ui/components/viewer/) end to end on the production build
// (alone: `npx vite build && npx playwright test e2e/viewer-records.spec.mjs`); (a)-(c) are in viewer.spec.mjs.
//
// (d) A run record's token heat map: each token and its sampling log-prob as recorded.
// (e) Served by `rlvr view`: a cold link `/?view=NAME&step=S&prompt=P`, a search over every step
//     cancelled while the reader waits on a step file the test holds, the link, a live run's new step.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, note, openPage, RESULTS_DIR, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';
import { openFolder, py, readGroups, startView } from './viewer-lib.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-viewer-e2e-'));

test.describe.configure({ mode: 'serial' });

test.afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// (d) Run records from three writers: the exported TRL project's train_grpo.py under real TRL
// (scripts/trl-record-fixture.sh), and the Python recorder, RecordingGRPOTrainer, on a Qwen2 with its own
// BPE tokenizer under real TRL on one process and on two under accelerate (scripts/recorder-fixture.sh).
for (const [fixtureName, writer] of [
  ['trl-arithmetic-2steps.rlvr.gz', 'trl train_grpo.py'],
  ['recorder-1proc.rlvr.gz', 'trl RecordingGRPOTrainer'],
  ['recorder-2proc.rlvr.gz', 'trl RecordingGRPOTrainer'],
]) {
  test(
    `(d) a run record (${fixtureName}) opens with its ` +
      'token heat map: each token and its sampling ' +
      'log-prob as recorded',
    async ({ browser }, testInfo) => {
      test.setTimeout(120_000);
      const { decodeRunRecord } = await importTs('src/record/run-record.ts');
      const fixture = join(ROOT, 'e2e/fixtures', fixtureName);
      const decoded = await decodeRunRecord(new Uint8Array(readFileSync(fixture)));
      assert.ok(decoded.ok, decoded.error);
      assert.equal(decoded.record.provenance.writer, writer);
      const dir = join(tmp, `record-run-${fixtureName}`);
      mkdirSync(dir, { recursive: true });
      copyFileSync(fixture, join(dir, 'run.rlvr.gz'));
      const first = decoded.record.rollouts[0];
      const p = await openPage(browser, '/');
      await withPageDiagnostics(testInfo, p, `viewer-record-${fixtureName}`, async () => {
        await openFolder(p, dir);
        await p.page.waitForSelector('[data-testid="viewer-open"][data-format="record"]');
        await p.page.waitForSelector(`[data-testid="viewer-completion"][data-step="${first.step}"]`);
        await p.page.locator('[data-testid="viewer-completion"][data-row="0"]').click();
        const tokens = await p.page.locator('[data-testid="viewer-token"]').evaluateAll((els) =>
          els.map((el) => ({
            text: el.getAttribute('title').split('\n')[0],
            logprob: Number(el.getAttribute('data-logprob')),
          })),
        );
        const rec = first.records[0];
        assert.equal(tokens.length, rec.tokenText.length, 'one chip per recorded token');
        tokens.forEach((t, i) => {
          assert.ok(t.text.startsWith(`token ${i}: ${JSON.stringify(rec.tokenText[i])}`), t.text);
          assert.ok(
            Math.abs(t.logprob - rec.oldLogp[i]) < 1e-6,
            `token ${i}: log-prob ${t.logprob} vs ${rec.oldLogp[i]}`,
          );
        });
        assert.equal(await p.page.locator('[data-testid="viewer-run"]').count(), 1, 'the record is listed');
        await p.page
          .locator('[data-testid="viewer-detail"]')
          .screenshot({ path: join(RESULTS_DIR, `viewer-record-tokens-logprob-${fixtureName}.png`) });
        await p.page.selectOption('[data-testid="viewer-colour"]', 'advantage');
        await screenshot(p.page, `viewer-record-tokens-${fixtureName}`);
      });
      await p.close();
    },
  );
}

test('(e) rlvr view: a cold link opens a run at its step and prompt, Cancel stops a search, new steps appear', async ({
  browser,
}, testInfo) => {
  test.setTimeout(180_000);
  const served = join(tmp, 'served');
  const dump = join(served, 'verl-live');
  const want = JSON.parse(py('python3', ['e2e/fixtures/verl-dump.py', dump, '--steps', '6']));
  const view = await startView(served);
  try {
    const runs = await (await fetch(new URL('runs.json', view.url))).json();
    const name = runs.find((r) => r.format === 'verl').name;
    const prompt = want.steps[2].rows[0].input;
    const coldLink = `/?view=${encodeURIComponent(name)}&step=3&prompt=${encodeURIComponent(prompt)}`;
    const p = await openPage(browser, coldLink, { base: view.url });
    await withPageDiagnostics(testInfo, p, 'viewer-served', async () => {
      const { page, context } = p;
      // The cold link: the run at step 3, its rows as the dump's.
      await page.waitForSelector('[data-testid="viewer-completion"][data-step="3"]');
      // ...on the first screen: the page brings the linked step into view.
      await page.waitForFunction(() => {
        const r = document.querySelector('[data-testid="viewer-step"]')?.getBoundingClientRect();
        return r && r.top >= 0 && r.bottom <= innerHeight;
      });
      const groups = await readGroups(page);
      assert.deepEqual(
        groups.flatMap((g) => g.rows.map((r) => r.completion)).sort(),
        want.steps[2].rows.map((r) => r.output).sort(),
      );
      // The prompt the link names, followed over training: every step that sampled it.
      await page.locator('[data-testid="viewer-prompt-count"]').waitFor();
      const sampled = await page
        .locator('[data-testid="viewer-prompt-step"]')
        .evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-step'))));
      assert.deepEqual(
        sampled,
        want.steps.filter((s) => s.rows.some((r) => r.input === prompt)).map((s) => s.step),
      );
      const link = new URL(await page.locator('[data-testid="viewer-link"]').getAttribute('href'));
      assert.deepEqual(
        [...link.searchParams],
        [
          ['view', name],
          ['step', '3'],
          ['prompt', prompt],
        ],
      );
      assert.equal(page.url(), link.href, 'the address bar is the link');
      // The search runs in rlvr view, near the files (GET /search.json, docs/viewer.md): a search whose
      // request is held here is cancelled before the server answers.
      const searchRequest = /\/search\.json\?/;
      let held;
      const reached = new Promise((ok) => {
        context.route(searchRequest, (route) => {
          held = route;
          ok();
        });
      });
      await page.fill('[data-testid="viewer-search-text"]', 'answer');
      await page.click('[data-testid="viewer-search-run"]');
      await reached;
      await page.waitForSelector('[data-testid="viewer-search-status"][data-running="true"]');
      await page.click('[data-testid="viewer-search-cancel"]');
      await held.continue().catch(() => undefined); // the page has let go of it
      await page.waitForSelector('[data-testid="viewer-search-status"][data-cancelled="true"]');
      const status = await page.locator('[data-testid="viewer-search-status"]').textContent();
      note(testInfo, `cancelled search: "${status}"`);
      assert.match(status, /^Cancelled: \d+ completions match in [0-5] steps? searched/);
      await context.unroute(searchRequest);
      // Not held: every row of the dump holds "answer" (its prompts ask for <answer>).
      await page.click('[data-testid="viewer-search-run"]');
      await page.waitForSelector('[data-testid="viewer-search-status"][data-running="false"][data-count]');
      const done = await page.locator('[data-testid="viewer-search-status"]').textContent();
      const rows = want.steps.reduce((n, s) => n + s.rows.length, 0);
      assert.match(done, new RegExp(`^${rows} completions match in 6 steps searched`));
      // The trainer writes step 7: it appears without a reload.
      py('python3', ['e2e/fixtures/verl-dump.py', join(tmp, 'step7'), '--steps', '7']);
      copyFileSync(join(tmp, 'step7', '7.jsonl'), join(dump, '7.jsonl'));
      await page.waitForFunction(
        () => document.querySelector('[data-testid="viewer-scrubber"]')?.getAttribute('max') === '6',
      );
      await screenshot(page, 'viewer-served');
    });
    await p.close();
  } finally {
    view.stop();
  }
});
