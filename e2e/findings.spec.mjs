// The run viewer's Findings panel under `rlvr view` (started here as a child process, as view.spec.mjs does):
// the run with every kind of finding planted at known steps and rows (src/runs/fixtures/planted-findings.jsonl,
// written by src/runs/findings/planted.ts, whose plantedExpectations say where each is) is opened from a link
// with `finding=truncation`; the panel lists that kind only; then for every kind, choosing it lists its
// findings and clicking each opens its step with exactly its rows marked, and the link names the kind. The
// same file opened as a folder in the page is judged in the run reader's worker, with the same rows marked.
//
// Needs dist/ (`npx vite build`); run with `npx playwright test e2e/findings.spec.mjs`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { freePort, importTs, openPage, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';

/** `rlvr view DIR --port P`; resolves with its URL once it prints that it serves. */
async function startView(dir) {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/rlvr.mjs', 'view', dir, '--port', String(port)], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  let out = '';
  const exited = new Promise((ok) => child.once('exit', ok));
  const url = await new Promise((ok, fail) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^serving \d+ runs at (http:\/\/\S+)\n/m.exec(out);
      if (m) ok(m[1]);
    });
    child.stderr.on('data', (d) => (out += d));
    exited.then((code) => fail(new Error(`rlvr view exited (${code}) before serving:\n${out}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

test('each planted finding is listed, and clicking it marks its rows at its step', async ({ browser }, testInfo) => {
  test.setTimeout(60_000);
  const { plantedExpectations } = await importTs('src/runs/findings/planted.ts');
  const { findingKinds } = await importTs('src/runs/findings/types.ts');
  const dir = mkdtempSync(join(tmpdir(), 'rlvr-e2e-findings-'));
  copyFileSync(join(ROOT, 'src/runs/fixtures/planted-findings.jsonl'), join(dir, 'planted.jsonl'));
  const view = await startView(dir);
  const p = await openPage(browser, '/?view=planted.jsonl&finding=truncation', { base: view.url });
  try {
    await withPageDiagnostics(testInfo, p, 'findings', async () => {
      const { page } = p;
      const items = page.locator('[data-testid="viewer-finding"]');
      await page.waitForSelector('[data-testid="viewer-finding"][data-kind="truncation"]', { timeout: 30_000 });
      assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.dataset.kind)), ['truncation']);
      for (const kind of findingKinds) {
        await page.selectOption('[data-testid="viewer-findings-kind"]', kind);
        await page.waitForFunction((k) => new URL(location.href).searchParams.get('finding') === k, kind);
        const listed = await items.evaluateAll((els) => els.map((e) => e.dataset.kind));
        assert.equal(listed.length, plantedExpectations[kind].length, `${kind}: ${listed}`);
        for (const e of plantedExpectations[kind]) {
          const item = `[data-testid="viewer-finding"][data-kind="${kind}"][data-step="${e.step}"]`;
          await page.click(`${item}[data-rows="${e.rows.join(',')}"] button`);
          await page.waitForFunction(
            (s) => document.querySelector('[data-testid="viewer-step"]')?.textContent?.startsWith(`step ${s} `),
            e.step,
          );
          const marked = () =>
            page.$$eval(`tr[data-marked="true"][data-step="${e.step}"]`, (rows) =>
              rows.map((r) => Number(r.dataset.row)),
            );
          await page.waitForFunction(
            ([s, n]) => document.querySelectorAll(`tr[data-marked="true"][data-step="${s}"]`).length === n,
            [e.step, e.rows.length],
          );
          assert.deepEqual(
            (await marked()).sort((a, b) => a - b),
            e.rows,
            `${kind} at step ${e.step}`,
          );
          assert.equal(await page.locator('tr[data-marked="true"]').count(), e.rows.length, 'no other row marked');
        }
      }
      await screenshot(page, 'findings');
      // The same run opened as a folder in the page: its findings are computed in the run reader's worker.
      await page.setInputFiles('[data-testid="run-folder-input"]', dir);
      await page.waitForSelector('[data-testid="viewer-open"][data-format="jsonl"][data-name$="/planted.jsonl"]');
      await page.selectOption('[data-testid="viewer-findings-kind"]', 'truncation');
      const [truncation] = plantedExpectations.truncation;
      await page.click(`[data-testid="viewer-finding"][data-kind="truncation"][data-step="${truncation.step}"] button`);
      await page.waitForFunction(
        ([s, n]) => document.querySelectorAll(`tr[data-marked="true"][data-step="${s}"]`).length === n,
        [truncation.step, truncation.rows.length],
      );
      const inPage = await page.$$eval('tr[data-marked="true"]', (rows) => rows.map((r) => Number(r.dataset.row)));
      assert.deepEqual(
        inPage.sort((a, b) => a - b),
        truncation.rows,
        'the folder run marks the planted rows',
      );
      assert.deepEqual(p.pageErrors, []);
      assert.deepEqual(p.externalRequests, []);
    });
  } finally {
    await p.close();
    await view.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
