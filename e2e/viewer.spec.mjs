// The run viewer ("Run viewer" tab, src/ui/components/viewer/) end to end on the production build
// (alone: `npx vite build && npx playwright test e2e/viewer.spec.mjs`).
//
// (a) A real TRL 1.13 GRPOTrainer run (scripts/trl-run-fixture.sh: a random-init Qwen2 with a BPE
//     tokenizer trained in the script, log_completions=True, reward functions `correctness` and
//     `has_tag`) opens with "Open a run folder…"; every step's groups, completions, rewards and
//     advantages equal what pandas reads from its completions/*.parquet, each group is sorted by
//     reward with its mean and n−1 std, the advantage derived on screen equals the logged one, and the
//     curves equal trainer_state.json's log_history.
// (b) A veRL rollout dump written exactly as veRL's _dump_generations writes it (e2e/fixtures/verl-dump.py)
//     opens, its lines grouped by input with their scores.
// (c) "This prompt over training" in two runs compared, side by side (and (a) overlays two runs' curves).
// (d) and (e): viewer-records.spec.mjs.
// Where scripts/setup-python.sh finds no Python wheels (exit 3) the TRL test prints a banner and is skipped.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from '@playwright/test';
import { note, openPage, RESULTS_DIR, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';
import {
  close,
  consecutiveGroups,
  makeTrlRun,
  openFolder,
  py,
  readGroups,
  sampleStd,
  showStep,
} from './viewer-lib.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-viewer-e2e-'));
// RLVR_TRL_RUN_DIR names a folder scripts/trl-run-fixture.sh already wrote (as src/runs/trl-real.test.ts
// takes it), so a suite that makes one real TRL run can share it; otherwise this file makes its own.
const TRL_DIR = process.env.RLVR_TRL_RUN_DIR || join(tmp, 'trl-run');
const VERL_DIR = join(tmp, 'verl-dump');
const VERL_B_DIR = join(tmp, 'verl-dump-b');
const BAD_DIR = join(tmp, 'bad-folder');
const BROKEN_DIR = join(tmp, 'verl-broken');
/** pandas' view of the TRL run (e2e/fixtures/trl-expected.py), or why there is none. */
let trl = null;
let trlSkip = '';
let verl;
let verlB;

test.describe.configure({ mode: 'serial' });

test.beforeAll(() => {
  verl = JSON.parse(py('python3', ['e2e/fixtures/verl-dump.py', VERL_DIR, '--steps', '4']));
  // A folder of nothing a reader knows, and a dump whose step 2 has a line that is not JSON.
  mkdirSync(BAD_DIR, { recursive: true });
  writeFileSync(join(BAD_DIR, 'notes.txt'), 'not a run\n');
  py('python3', ['e2e/fixtures/verl-dump.py', BROKEN_DIR, '--steps', '3']);
  const lines = readFileSync(join(BROKEN_DIR, '2.jsonl'), 'utf8').split('\n');
  lines[2] = '{"input": "cut off';
  writeFileSync(join(BROKEN_DIR, '2.jsonl'), lines.join('\n'));
  verlB = JSON.parse(py('python3', ['e2e/fixtures/verl-dump.py', VERL_B_DIR, '--steps', '3', '--seed', '7']));
});

test.afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test.describe('a real TRL run', () => {
  test.beforeAll(() => {
    test.setTimeout(600_000);
    ({ trl, skip: trlSkip = '' } = makeTrlRun(TRL_DIR, !!process.env.RLVR_TRL_RUN_DIR));
  });

  test('(a) a real TRL run opens with "Open a run folder…": its steps, groups, rewards, advantages, curves', async ({
    browser,
  }, testInfo) => {
    test.skip(!trl, trlSkip);
    test.setTimeout(180_000);
    const p = await openPage(browser, '/');
    await withPageDiagnostics(testInfo, p, 'viewer-trl', async () => {
      await openFolder(p, TRL_DIR);
      await p.page.waitForSelector('[data-testid="viewer-open"][data-format="trl"]');
      const steps = trl.steps.map((s) => s.step);
      await p.page.waitForSelector(`[data-testid="viewer-completion"][data-step="${steps[0]}"]`);
      assert.equal(
        await p.page.locator('[data-testid="viewer-scrubber"]').getAttribute('max'),
        String(steps.length - 1),
      );
      let compared = 0;
      for (let i = 0; i < steps.length; i++) {
        const want = trl.steps[i];
        if (i > 0) await showStep(p.page, steps, i);
        const groups = await readGroups(p.page);
        const expectGroups = consecutiveGroups(want.rows, (r) => r.prompt);
        assert.deepEqual(
          groups.map((g) => g.rows.map((r) => r.row).sort((a, b) => a - b)),
          expectGroups,
          `step ${want.step}: groups are the consecutive rows sharing a prompt`,
        );
        for (const g of groups) {
          const rewards = g.rows.map((r) => r.reward);
          assert.deepEqual(
            rewards,
            [...rewards].sort((a, b) => b - a),
            `step ${want.step} group ${g.index}: sorted by reward`,
          );
          assert.ok(close(g.std, sampleStd(rewards)), `step ${want.step} group ${g.index}: n−1 std`);
          for (const r of g.rows) {
            const e = want.rows[r.row];
            assert.equal(g.prompt, e.prompt);
            assert.equal(r.completion, e.completion, `step ${want.step} row ${r.row}: completion`);
            for (const n of trl.rewardNames)
              assert.ok(close(r.rewards[n], e.rewards[n]), `step ${want.step} row ${r.row}: ${n}`);
            const total = trl.rewardNames.reduce((a, n) => a + (e.rewards[n] ?? 0), 0);
            assert.ok(
              Math.abs(r.reward - total) < 1e-6,
              `step ${want.step} row ${r.row}: reward = the sum of the functions'`,
            );
            assert.ok(
              close(r.advantage, e.advantage),
              `step ${want.step} row ${r.row}: advantage ${r.advantage} vs ${e.advantage}`,
            );
            compared++;
          }
        }
      }
      note(testInfo, `${compared} completions over ${steps.length} steps equal the parquet's`);
      // The advantage derived on screen from the group's rewards equals the logged one (TRL's scale_rewards="group").
      await p.page.locator('[data-testid="viewer-scaling"]', { hasText: 'scale_rewards="group"' }).waitFor();
      await p.page.locator('[data-testid="viewer-completion"]').first().click();
      await p.page.locator('[data-testid="viewer-derivation"] .ok').waitFor();
      // Curves: each one drawn holds log_history's values at its steps.
      const curves = await p.page.$$eval('[data-testid="viewer-curve"]', (fs) =>
        fs.map((f) => ({ key: f.getAttribute('data-key'), values: JSON.parse(f.getAttribute('data-values')) })),
      );
      assert.ok(
        curves.some((c) => c.key === 'reward'),
        `the reward curve is drawn (drawn: ${curves.map((c) => c.key)})`,
      );
      for (const c of curves) {
        const logged = trl.logHistory.filter((h) => typeof h[c.key] === 'number').map((h) => [h.step, h[c.key]]);
        assert.deepEqual(c.values, logged, `curve ${c.key} equals log_history`);
      }
      await screenshot(p.page, 'viewer-trl');
      // Compare: another run's curves overlaid on this one's (a playground record, which logs `reward` too).
      const recordDir = join(tmp, 'compare-record');
      mkdirSync(recordDir, { recursive: true });
      copyFileSync(join(ROOT, 'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz'), join(recordDir, 'other.rlvr.gz'));
      await p.page.setInputFiles('[data-testid="run-folder-input"]', recordDir);
      await p.page.waitForSelector('[data-testid="viewer-open"][data-format="record"]');
      await p.page
        .locator(`[data-testid="viewer-run"][data-name="${basename(TRL_DIR)}"]`)
        .getByTestId('viewer-run-open')
        .click();
      await p.page.waitForSelector(`[data-testid="viewer-open"][data-name="${basename(TRL_DIR)}"]`);
      await p.page.locator('[data-testid="viewer-run"][data-format="record"]').getByTestId('viewer-compare').check();
      const reward = p.page.locator('[data-testid="viewer-curve"][data-key="reward"]');
      await reward.locator('.recharts-legend-item', { hasText: 'compare-record' }).waitFor();
      assert.equal(await reward.locator('.recharts-line').count(), 2, 'both runs drawn on the reward curve');
      await reward.screenshot({ path: join(RESULTS_DIR, 'viewer-compare-curve.png') });
      // The TRL run in Compare beside live runs: side C, drawn by the charts that draw the live runs A and B.
      await p.page.locator('[data-testid="viewer-compare-live"]').click();
      await p.page.waitForSelector('[data-testid="view-compare"]');
      const rewardSteps = trl.logHistory.filter((h) => typeof h.reward === 'number').length;
      await p.page.waitForFunction(
        (n) =>
          Number(document.querySelector('[data-testid="compare-chart-reward"]')?.getAttribute('data-points')) === n,
        rewardSteps,
      );
      const c = await p.page.evaluate(() => window.__rlvr.state().compare.c);
      assert.equal(c.state, 'recorded');
      assert.match(c.label, new RegExp(`^C: ${basename(TRL_DIR)} \\(trl\\)$`));
      assert.deepEqual(
        c.metrics.map((m) => [m.step, m.reward]),
        trl.logHistory.filter((h) => typeof h.reward === 'number').map((h) => [h.step, h.reward]),
      );
      await p.page.click('[data-testid="compare-start"]');
      await p.page.waitForFunction(
        () => ['a', 'b'].every((k) => window.__rlvr.state().compare[k].metrics.length >= 1),
        undefined,
        { timeout: 120_000 },
      );
      await p.page.locator('[data-testid="compare-chart-reward"]').scrollIntoViewIfNeeded();
      await p.page.waitForFunction(
        () => document.querySelectorAll('[data-testid="compare-chart-reward"] .recharts-line').length >= 3,
        undefined,
        { timeout: 60_000 },
      );
      await screenshot(p.page, 'viewer-trl-in-compare');
      await p.page.getByRole('button', { name: 'Stop and free the workers' }).click();
    });
    await p.close();
  });
});

test('(b) a veRL rollout dump, as _dump_generations writes it, opens grouped by input with its scores', async ({
  browser,
}, testInfo) => {
  test.setTimeout(300_000);
  const p = await openPage(browser, '/');
  await withPageDiagnostics(testInfo, p, 'viewer-verl', async () => {
    // The page's own run state: nothing the viewer opens may touch it. (Training a step first would make
    // this the live-run case, but a step on this shared machine can take minutes; e2e/recording.spec.mjs
    // trains one for the recordings, which are opened the same way, off the trainer worker.)
    const { page } = p;
    await page.waitForFunction(() => window.__rlvr?.bootDone());
    const live = () =>
      page.evaluate(() => {
        const s = window.__rlvr.state();
        return JSON.stringify([s.run.step, s.run.state, s.run.config, s.run.metrics, s.run.evals, s.autosave]);
      });
    const before = await live();
    // A folder with nothing recognisable says so; a dump with a broken line opens and lists it.
    await openFolder(p, BAD_DIR);
    const error = await page.locator('[data-testid="viewer-error"]').textContent();
    note(testInfo, `nothing recognisable: "${error}"`);
    assert.match(error, /bad-folder/);
    await page.setInputFiles('[data-testid="run-folder-input"]', BROKEN_DIR);
    await page.waitForSelector('[data-testid="viewer-open"][data-name="verl-broken"]');
    await page.waitForSelector('[data-testid="viewer-completion"][data-step="1"]');
    // Step 2 opens without its broken line, and lists it.
    await showStep(page, [1, 2, 3], 1);
    await page.locator('[data-testid="viewer-problems"] summary').first().click();
    const problem = await page.locator('[data-testid="viewer-problem"]').first().textContent();
    note(testInfo, `a broken line: "${problem}"`);
    assert.match(problem, /^2\.jsonl,? line 3: /);
    assert.equal(await live(), before, 'the live run and its autosave are as they were');
    // Not served by `rlvr view` (no mark in the page): runs.json was never asked for, so a static host
    // sees no request for a file it does not have.
    const asked = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.deepEqual(
      asked.filter((u) => u.includes('runs.json')),
      [],
    );

    await page.setInputFiles('[data-testid="run-folder-input"]', VERL_DIR);
    await p.page.waitForSelector('[data-testid="viewer-open"][data-name="verl-dump"][data-format="verl"]');
    const steps = verl.steps.map((s) => s.step);
    await p.page.waitForSelector(`[data-testid="viewer-completion"][data-step="${steps[0]}"]`);
    for (let i = 0; i < steps.length; i++) {
      const want = verl.steps[i];
      if (i > 0) await showStep(p.page, steps, i);
      const groups = await readGroups(p.page);
      assert.deepEqual(
        groups.map((g) => g.rows.map((r) => r.row).sort((a, b) => a - b)),
        consecutiveGroups(want.rows, (r) => r.input),
      );
      for (const g of groups) {
        for (const r of g.rows) {
          const e = want.rows[r.row];
          assert.equal(g.prompt, e.input);
          assert.equal(r.completion, e.output);
          assert.equal(r.reward, e.score, `step ${want.step} row ${r.row}: score`);
        }
      }
    }
    await screenshot(p.page, 'viewer-verl');
  });
  await p.close();
});

test('(b2) a folder dropped on the page opens in the run viewer, its files read through the dropped entry', async ({
  browser,
}, testInfo) => {
  test.setTimeout(120_000);
  // Playwright cannot drag a real directory from the OS, so the drop carries what Chromium's drop event
  // carries for one: a DataTransfer item whose webkitGetAsEntry() is a FileSystemDirectoryEntry, with
  // createReader().readEntries() answering in batches and then with none, and FileSystemFileEntry.file().
  // The entries are plain objects with those members; the files in them are the dump's real bytes.
  const files = ['1.jsonl', '2.jsonl', '3.jsonl', '4.jsonl'].map((name) => ({
    name,
    text: readFileSync(join(VERL_DIR, name), 'utf8'),
  }));
  const p = await openPage(browser, '/');
  await withPageDiagnostics(testInfo, p, 'viewer-drop-folder', async () => {
    const { page } = p;
    await page.waitForFunction(() => window.__rlvr?.bootDone());
    await page.evaluate((list) => {
      const fileEntry = (f) => ({
        isFile: true,
        isDirectory: false,
        name: f.name,
        file: (ok) => ok(new File([f.text], f.name)),
      });
      const dirEntry = (name, entries) => ({
        isFile: false,
        isDirectory: true,
        name,
        createReader: () => {
          let given = false;
          // Two batches, then none, as Chromium answers a folder of more than its batch size.
          const batches = [entries.slice(0, 2), entries.slice(2), []];
          return {
            readEntries: (ok) =>
              setTimeout(() => ok(given ? (batches.shift() ?? []) : ((given = true), batches.shift()))),
          };
        },
      });
      const root = dirEntry('dropped-verl', list.map(fileEntry));
      const drop = new DragEvent('drop', { bubbles: true, cancelable: true });
      const items = [{ kind: 'file', webkitGetAsEntry: () => root }];
      Object.defineProperty(drop, 'dataTransfer', { value: { items, files: [], types: ['Files'] } });
      document.querySelector('main').dispatchEvent(drop);
    }, files);
    await page.waitForSelector('[data-testid="viewer-open"][data-name="dropped-verl"][data-format="verl"]');
    const steps = verl.steps.map((s) => s.step);
    await page.waitForSelector(`[data-testid="viewer-completion"][data-step="${steps[0]}"]`);
    await showStep(page, steps, steps.length - 1);
    const groups = await readGroups(page);
    const want = verl.steps[steps.length - 1];
    assert.deepEqual(
      groups.map((g) => g.rows.map((r) => r.row).sort((a, b) => a - b)),
      consecutiveGroups(want.rows, (r) => r.input),
    );
    assert.deepEqual(p.pageErrors, []);
  });
  await p.close();
});

test("(c) this prompt over training, and two runs compared: the same prompt's completions side by side", async ({
  browser,
}, testInfo) => {
  test.setTimeout(120_000);
  const p = await openPage(browser, '/');
  await withPageDiagnostics(testInfo, p, 'viewer-prompt-compare', async () => {
    await openFolder(p, VERL_DIR);
    await p.page.waitForSelector('[data-testid="viewer-completion"][data-step="1"]');
    await p.page.setInputFiles('[data-testid="run-folder-input"]', VERL_B_DIR);
    // The second folder opens beside the first (and is shown); the first is opened again and compared with it.
    await p.page.waitForSelector('[data-testid="viewer-open"][data-name="verl-dump-b"]');
    await p.page.locator('[data-testid="viewer-run"][data-name="verl-dump"]').getByTestId('viewer-run-open').click();
    await p.page.waitForSelector('[data-testid="viewer-open"][data-name="verl-dump"]');
    await p.page.locator('[data-testid="viewer-run"][data-name="verl-dump-b"]').getByTestId('viewer-compare').check();
    const prompt = verl.steps[0].rows[0].input;
    await p.page.locator('[data-testid="viewer-group"]', { hasText: prompt }).getByTestId('viewer-follow').click();
    const columns = p.page.locator('[data-testid="viewer-prompt-run"]');
    await columns.nth(1).locator('[data-testid="viewer-prompt-count"]').waitFor();
    await columns.nth(0).locator('[data-testid="viewer-prompt-count"]').waitFor();
    for (const [i, dump] of [verl, verlB].entries()) {
      const want = dump.steps
        .map((s) => ({ step: s.step, rows: s.rows.filter((r) => r.input === prompt) }))
        .filter((s) => s.rows.length);
      const shown = await columns
        .nth(i)
        .locator('[data-testid="viewer-prompt-step"]')
        .evaluateAll((els) =>
          els.map((el) => ({
            step: Number(el.getAttribute('data-step')),
            // The completion as written: a word diff against an earlier one shows the deleted words too.
            outputs: [...el.querySelectorAll('li pre')]
              .map((x) => {
                const shownText = x.cloneNode(true);
                for (const d of shownText.querySelectorAll('del')) d.remove();
                return shownText.textContent;
              })
              .sort(),
            rewards: [...el.querySelectorAll('li')].map((x) => Number(x.getAttribute('data-reward'))),
          })),
        );
      assert.deepEqual(
        shown.map((s) => ({ step: s.step, outputs: s.outputs })),
        want.map((s) => ({ step: s.step, outputs: s.rows.map((r) => r.output).sort() })),
        `run ${i}: every step where the prompt was sampled, with its completions`,
      );
      for (const s of shown)
        assert.deepEqual(
          s.rewards,
          [...s.rewards].sort((a, b) => b - a),
          'best first',
        );
    }
    await screenshot(p.page, 'viewer-prompt-compare');
  });
  await p.close();
});
