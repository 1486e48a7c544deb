// Nothing on screen contradicts itself, buttons do what they say, and the page passes axe-core in both
// themes. Production build through `vite preview` (playwright.config.ts's webServer starts it), WASM:
//   npx vite build && npx playwright test e2e/class-truth.spec.mjs
//
// One small run is checked number against number: every chart's "latest (step N)" against the header's
// "Step N" and the CSV export, the held-out chart's standard-error band against the recorded evaluations,
// the status bar's task, preset and backend, and the token panel's advantage against its group's rewards;
// then axe-core runs over the charts and the rollout inspector in the light and the dark theme. Further
// tests: the pass@k verdict against the plotted numbers, the checkpoint note against the difficulty knobs,
// "Train on this dataset" after Try the policy, a Windows-1252 file, a wrong num_generations in a link
// and the 800 px layout.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, openPage, ROOT, screenshot, waitForPage, withPageDiagnostics } from './lib.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);
const SMALL = 'backend=wasm&prompts_per_step=2&num_generations=4';

/** axe-core's serious and critical violations on the page as it is now (each: rule, impact, first targets). */
async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined')))
    await page.addScriptTag({ path: join(ROOT, 'node_modules/axe-core/axe.min.js') });
  const r = await page.evaluate(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes
        .slice(0, 5)
        .map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join('')}`),
    }));
  });
  return r.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The lowest text contrast over the open completion's token chips, as drawn: each chip's translucent
 * background composited over the backgrounds behind it, its opacity applied, WCAG's ratio. axe-core
 * leaves translucent backgrounds "to review" rather than failing them, so the chips are measured here.
 */
async function lowestChipContrast(page) {
  // Every colouring of the chips (advantage, log-prob, ratio, entropy…): each has its own hues.
  const channels = await page.$$eval('[data-testid="channel"] option', (os) => os.map((o) => o.value));
  const first = await page.inputValue('[data-testid="channel"]');
  let worst = { ratio: Infinity };
  for (const c of channels) {
    await page.selectOption('[data-testid="channel"]', c);
    await page.waitForFunction((ch) => document.querySelector('[data-testid="token"]')?.dataset.channel === ch, c);
    const w = await chipContrastNow(page);
    if (w.ratio < worst.ratio) worst = { ...w, channel: c };
  }
  await page.selectOption('[data-testid="channel"]', first);
  return worst;
}

function chipContrastNow(page) {
  return page.evaluate(() => {
    const rgba = (c) => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return [0, 0, 0, 0];
      const v = m[1]
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return [v[0], v[1], v[2], v[3] ?? 1];
    };
    const over = (top, under) => [0, 1, 2].map((i) => top[3] * top[i] + (1 - top[3]) * under[i]);
    const lum = (c) => {
      const l = c.map((x) => {
        const v = x / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    /** The opaque colour behind an element: its ancestors' backgrounds, composited from the page up. */
    const behind = (el) => {
      const layers = [];
      for (let e = el.parentElement; e; e = e.parentElement) layers.push(rgba(getComputedStyle(e).backgroundColor));
      let c = [255, 255, 255];
      for (const l of layers.reverse()) c = over(l, c);
      return c;
    };
    let worst = { ratio: Infinity, text: '', background: '' };
    for (const el of document.querySelectorAll('[data-testid="token"]')) {
      const st = getComputedStyle(el);
      const under = behind(el);
      const o = Number(st.opacity);
      const bg = over(rgba(st.backgroundColor), under);
      const fg = over(rgba(st.color), bg);
      const r = ratio(over([...fg, o], under), over([...bg, o], under));
      if (r < worst.ratio) worst = { ratio: r, text: JSON.stringify(el.textContent), background: st.backgroundColor };
    }
    return worst;
  });
}

test('one run, one set of numbers: chart summaries, header, CSV, status bar, the held-out band and the token panel agree; axe passes in both themes', async ({}, testInfo) => {
  test.setTimeout(420_000);
  // bypassCSP: the app's CSP (vite.config.ts) rightly refuses inline scripts, and axe-core is injected as one.
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
    serviceWorkers: 'block',
  });
  const page = await context.newPage();
  const p = { page, context, consoleMessages: [], pageErrors: [] };
  page.on('console', (m) => p.consoleMessages.push({ source: 'page', type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => p.pageErrors.push(String(e)));
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-numbers', async () => {
      // Each disagreement is collected, so one run reports every one of them (and each is named).
      const problems = [];
      const check = (ok, message) => {
        if (!ok) problems.push(message);
      };
      const maybeText = async (testid) => (await page.$(`[data-testid="${testid}"]`)) && (await text(page, testid));
      await page.goto(`${process.env.E2E_BASE_URL}/?${SMALL}&eval_every=2&eval_prompts=4&steps=3`, {
        waitUntil: 'load',
      });
      await page.waitForSelector('[data-testid="preset"]', { timeout: 30_000 });
      check(
        /task sat · preset GRPO/.test((await maybeText('status-what')) ?? ''),
        `status bar before Start: ${await text(page, 'status-bar')}`,
      );
      await page.selectOption('[data-testid="preset"]', 'dapo');
      // The status bar follows the pick on the next render: wait for it (a wrong bar is reported below).
      await page
        .waitForFunction(
          () => /preset DAPO/.test(document.querySelector('[data-testid="status-what"]')?.textContent ?? ''),
          undefined,
          { timeout: 10_000 },
        )
        .catch(() => undefined);
      check(
        /preset DAPO/.test((await maybeText('status-what')) ?? ''),
        `status bar after picking DAPO: ${await text(page, 'status-bar')}`,
      );
      await page.selectOption('[data-testid="preset"]', 'grpo');

      await page.click('[data-testid="start"]');
      await page.waitForFunction(
        () => window.__rlvr.state().run.state === 'done' && window.__rlvr.state().run.step === 3,
        undefined,
        { timeout: 300_000, polling: 250 },
      );
      await page.click('[data-testid="tab-charts"]');
      const header = (await text(page, 'step-count')).trim();
      assert.equal(header, 'Step 3');
      // Every chart's summary names the step the header names. Charts redraw at most once a second while
      // data streams in (CHART_UPDATE_MS, src/ui/components/charts/render-budget.ts), so the last step may
      // land up to a second after the header's: wait for that (at most 3 s), then read them.
      const chartsCaughtUp = await page
        .waitForFunction(
          () =>
            [...document.querySelectorAll('[data-testid^="chart-"][data-testid$="-summary"]')].every(
              (e) =>
                !/latest \((after )?step \d+\)/.test(e.textContent) || /latest \((after )?step 3\)/.test(e.textContent),
            ),
          undefined,
          { timeout: 3_000, polling: 100 },
        )
        .then(
          () => true,
          () => false,
        );
      note(testInfo, `chart summaries caught up with the header within 3 s: ${chartsCaughtUp}`);
      const summaries = await page.$$eval('[data-testid^="chart-"][data-testid$="-summary"]', (els) =>
        els.map((e) => `${e.getAttribute('data-testid')}: ${e.textContent}`),
      );
      assert.ok(summaries.length >= 4, `chart summaries: ${summaries.length}`);
      for (const s of summaries) check(/latest \((after )?step 3\)/.test(s), `header "${header}", but ${s}`);
      // The CSV's last row is the same step.
      await page.click('[data-testid="tab-share"]');
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
      const csv = readFileSync(await dl.path(), 'utf8')
        .trim()
        .split('\n');
      const stepCol = csv[0].split(',').indexOf('step');
      assert.equal(csv[csv.length - 1].split(',')[stepCol], '3', 'the CSV ends at the step the header names');
      // The status bar names the task, the preset and the backend that ran.
      check(
        /task sat · preset GRPO/.test((await maybeText('status-what')) ?? ''),
        `status bar after the run: ${await text(page, 'status-bar')}`,
      );
      check(/^backend WASM, \d+ threads?/.test(await text(page, 'backend')), `backend: ${await text(page, 'backend')}`);

      // The held-out chart: each evaluation carries its standard error, drawn as a band.
      const evals = (await page.evaluate(() => window.__rlvr.state().evals)).map((e) => ({
        step: e.step,
        se: e.pass1_se,
        ks: Object.keys(e.pass_at_k),
      }));
      assert.deepEqual(
        evals.map((e) => e.step),
        [0, 2, 3],
      );
      // The page's evaluation takes eval_samples (2) per prompt, not a group of num_generations (4): pass@1 and pass@2.
      for (const e of evals)
        check(e.ks.join(',') === '1,2', `step ${e.step}: pass@k measured for k = ${e.ks.join(', ')}`);
      for (const e of evals)
        check(Number.isFinite(e.se) && e.se >= 0 && e.se <= 0.5, `step ${e.step}: standard error of pass@1 ${e.se}`);
      await page.click('[data-testid="tab-charts"]');
      await page.waitForSelector('[data-testid="chart-eval"]');
      check(
        (await page.$('[data-testid="chart-eval"] .recharts-area-area')) !== null,
        'the held-out chart draws no standard-error band',
      );
      check(
        /± [\d.]+ standard error over 4 prompts × 2 samples/.test(await text(page, 'chart-eval-summary')),
        `held-out summary: ${await text(page, 'chart-eval-summary')}`,
      );
      const lightCharts = await axeViolations(page);

      // The token panel: the advantage, derived from its group's rewards.
      const kept = await page.evaluate(() => window.__rlvr.state().run.rolloutSteps);
      let pick = null;
      for (const s of [...kept].reverse()) {
        const recs = (await page.evaluate((n) => window.__rlvr.getRollouts(n), s)).records;
        const byGroup = new Map();
        for (const r of recs) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r]);
        for (const [g, rs] of byGroup)
          if (Math.max(...rs.map((r) => r.reward)) > Math.min(...rs.map((r) => r.reward)))
            pick ??= { step: s, group: g, recs: rs.sort((a, b) => a.index - b.index) };
        if (pick) break;
      }
      assert.ok(pick, 'some kept step has a group whose rewards differ');
      await page.click('[data-testid="tab-rollouts"]');
      await page.selectOption('[data-testid="rollout-step"]', String(pick.step));
      await page.waitForSelector(`[data-testid="inspector"][data-step="${pick.step}"]`, { timeout: 30_000 });
      const chosen = pick.recs[0];
      await page.click(`[data-testid="open-rollout-${pick.group}-${chosen.index}"]`);
      await page.click('[data-testid="token"][data-index="0"]');
      await page.waitForSelector('[data-testid="objective-panel"]');
      const rewards = pick.recs.map((r) => r.reward);
      const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
      const std = Math.sqrt(rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / (rewards.length - 1));
      const expected = (chosen.reward - mean) / (std + 1e-4); // GRPO, scale_rewards "group" (src/rl/advantages.ts)
      assert.ok(
        Math.abs(expected - chosen.advantage) < 1e-4,
        `the record's advantage ${chosen.advantage} is GRPO's ${expected}`,
      );
      if (await page.$('[data-testid="obj-advantage-derivation"]')) {
        const shown = await text(page, 'obj-group-rewards');
        check(
          JSON.stringify(shown.split(',').map((x) => Number(x.trim()))) ===
            JSON.stringify(rewards.map((r) => Number(r.toFixed(4)))),
          `group rewards shown ${shown}, recorded ${rewards}`,
        );
        check(
          Number(await text(page, 'obj-group-mean')) === Number(mean.toFixed(4)),
          `mean shown ${await text(page, 'obj-group-mean')}, expected ${mean}`,
        );
        check(
          Number(await text(page, 'obj-group-std')) === Number(std.toFixed(4)),
          `std shown ${await text(page, 'obj-group-std')}, expected ${std}`,
        );
        const formula = await text(page, 'obj-advantage-formula');
        check(
          /A = \(r − mean\) \/ \(std of the group \+ 0\.0001\)/.test(formula) &&
            formula.includes(`= ${expected.toFixed(4)}`),
          `formula ${formula}, expected it to end in ${expected.toFixed(4)}`,
        );
        check(
          (await page.getAttribute('[data-testid="obj-advantage-derivation"]', 'data-matches')) === 'true',
          'the derived advantage differs from the recorded one',
        );
      } else
        check(
          false,
          `the token panel shows the advantage (${await text(page, 'obj-advantage')}) without deriving it from the group's rewards ${JSON.stringify(rewards)}`,
        );
      note(
        testInfo,
        `step ${pick.step}, group ${pick.group}: rewards ${JSON.stringify(rewards)} → A = ${expected.toFixed(4)} (recorded ${chosen.advantage.toFixed(4)})`,
      );
      const lightInspector = await axeViolations(page);
      const lightChips = await lowestChipContrast(page);
      check(
        lightChips.ratio >= 4.5,
        `light theme: a token chip at ${lightChips.ratio.toFixed(2)}:1 (${lightChips.text} on ${lightChips.background}, coloured by ${lightChips.channel})`,
      );

      // Dark theme: the same two views.
      await page.click('[data-testid="theme-toggle"]');
      await waitForPage(page, () => document.documentElement.dataset.theme === 'dark', { timeout: 5_000 });
      const darkInspector = await axeViolations(page);
      const darkChips = await lowestChipContrast(page);
      check(
        darkChips.ratio >= 4.5,
        `dark theme: a token chip at ${darkChips.ratio.toFixed(2)}:1 (${darkChips.text} on ${darkChips.background}, coloured by ${darkChips.channel})`,
      );
      note(
        testInfo,
        `lowest token-chip contrast: light ${lightChips.ratio.toFixed(2)}:1, dark ${darkChips.ratio.toFixed(2)}:1`,
      );
      await screenshot(page, 'class-truth-dark-inspector');
      await page.click('[data-testid="tab-charts"]');
      await page.waitForSelector('[data-testid="chart-eval"]');
      const darkCharts = await axeViolations(page);
      const all = { lightCharts, lightInspector, darkCharts, darkInspector };
      note(
        testInfo,
        `axe serious/critical: ${JSON.stringify(Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.length])))}`,
      );
      for (const [where, v] of Object.entries(all))
        check(v.length === 0, `axe, ${where}: ${JSON.stringify(v, null, 1)}`);
      assert.deepEqual(problems, [], `${problems.length} disagreement(s):\n${problems.join('\n')}`);
    });
  } finally {
    await context.close();
  }
});

/** Who the verdict says is ahead at k, read off its words (old and new phrasings alike); undefined when it says nothing about k. */
function claimAt(verdict, k, lastK) {
  const parts = verdict.replace(/\.$/, '').split(/;\s*/);
  for (const part of parts) {
    const who = /the base policy is ahead/i.test(part)
      ? 'base'
      : /the current policy is ahead/i.test(part)
        ? 'current'
        : /level/i.test(part)
          ? 'level'
          : null;
    if (!who) continue;
    let m;
    if (/at every k/.test(part)) return who;
    if ((m = /from k = (\d+)/.exec(part)) && k >= Number(m[1]) && k <= lastK) return who;
    if ((m = /at k = (\d+) to (\d+)/.exec(part)) && k >= Number(m[1]) && k <= Number(m[2])) return who;
    if ((m = /at k = (\d+)(?! to)/.exec(part)) && k === Number(m[1])) return who;
  }
  return undefined;
}

test('the pass@k verdict says what the plotted numbers say (identical base and current: level, not "ahead")', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const p = await openPage(browser, `/?${SMALL}&eval_every=0&eval_prompts=2`);
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-passk', async () => {
      const { page } = p;
      await page.click('[data-testid="tab-passk"]');
      await page.click('[data-testid="run-passk"]');
      await page.waitForSelector('[data-testid="passk-chart"]', { timeout: 200_000 });
      const curve = await page.evaluate(() => window.__rlvr.state().passk.curve);
      const caption = await page.textContent('[data-testid="passk-chart"] figcaption');
      note(testInfo, `step ${curve.step}: ${caption}`);
      const lastK = curve.ks[curve.ks.length - 1];
      for (const k of curve.ks) {
        const d = curve.current[String(k)] - curve.base[String(k)];
        const truth = d > 0.005 ? 'current' : d < -0.005 ? 'base' : 'level';
        const said = claimAt(caption, k, lastK);
        assert.equal(
          said,
          truth,
          `k = ${k}: base ${curve.base[String(k)]}, current ${curve.current[String(k)]}; the caption says ${said ?? 'nothing'}: ${caption}`,
        );
      }
    });
  } finally {
    await p.close();
  }
});

test("the checkpoint note names the difficulty RL starts at: the recipe's, which the knobs show", async ({}, testInfo) => {
  test.setTimeout(90_000);
  const p = await openPage(browser, '/');
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-checkpoint-note', async () => {
      const { page } = p;
      await page.waitForFunction(() => window.__rlvr?.state().checkpoints.some((c) => c.manifest), undefined, {
        timeout: 30_000,
      });
      for (const [task, knob, value] of [
        ['sudoku', 'blanks', '7'],
        ['countdown', 'maxTarget', '50'],
      ]) {
        await page.selectOption('[data-testid="task"]', task);
        await page.waitForFunction(
          ([k, v]) => document.querySelector(`[data-testid="knob-${k}"]`)?.value === v,
          [knob, value],
          { timeout: 10_000 },
        );
        const noteText = await page.textContent('#checkpoint ~ p.help');
        const start = /RL starts at[^.]*\./.exec(noteText)?.[0] ?? '';
        assert.ok(
          start.includes(`${knob}=${value}`),
          `${task}: the note's "RL starts at" names ${knob}=${value} as the knob does: ${noteText}`,
        );
        // Every knob in the form is in that sentence, with the form's value.
        const knobs = await page.$$eval('[data-testid^="knob-"]', (els) =>
          els.map((e) => [e.getAttribute('data-testid').slice(5), e.value]),
        );
        for (const [k, v] of knobs) assert.ok(start.includes(`${k}=${v}`), `${task}: ${k}=${v} in "${start}"`);
        note(testInfo, `${task}: ${noteText}`);
      }
    });
  } finally {
    await p.close();
  }
});

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

test('a Windows-1252 file is refused as "not UTF-8", naming the line and byte, and nothing is lost', async ({}, testInfo) => {
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
});

test('a wrong num_generations in a link: the guide still shows the task, and names what is wrong elsewhere', async ({}, testInfo) => {
  test.setTimeout(60_000);
  const p = await openPage(browser, '/?num_generations=1');
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-guide', async () => {
      const { page } = p;
      await page.waitForSelector('[data-testid="guide"]', { timeout: 30_000 });
      await page.waitForFunction(() => window.__rlvr?.state().checkpoints.some((c) => c.manifest), undefined, {
        timeout: 30_000,
      });
      await page.waitForSelector('[data-testid="error-num_generations"]', { timeout: 10_000 });
      await waitForPage(
        page,
        () =>
          document.querySelector('[data-testid="guide-example"]') ||
          /No example/.test(document.querySelector('[data-testid="guide"]')?.textContent ?? ''),
        { timeout: 10_000 },
      );
      assert.doesNotMatch(await text(page, 'guide'), /fix the (setup's )?task or difficulty/);
      assert.ok(await page.$('[data-testid="guide-example"]'), 'the guide shows an example of the task');
      assert.ok((await text(page, 'guide-prompt')).length > 0);
    });
  } finally {
    await p.close();
  }
});

test('at 800 px wide, a chart is on the first screen after Start', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const viewport = { width: 800, height: 900 };
  const p = await openPage(browser, `/?${SMALL}&eval_every=0&steps=2`, { viewport });
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-narrow', async () => {
      const { page } = p;
      await page.waitForSelector('[data-testid="guide"]', { timeout: 30_000 }); // a first visit: the guide is open
      await page.click('[data-testid="start"]');
      await page.waitForFunction(() => window.__rlvr.state().metrics.length >= 1, undefined, {
        timeout: 200_000,
        polling: 250,
      });
      await page.evaluate(() => window.scrollTo(0, 0));
      const top = await page.evaluate(() => {
        const charts = [...document.querySelectorAll('figure.chart')];
        return charts.length
          ? Math.min(...charts.map((c) => c.getBoundingClientRect().top + window.scrollY))
          : Infinity;
      });
      await screenshot(page, 'class-truth-narrow');
      note(testInfo, `first chart at ${top.toFixed(0)} px (viewport ${viewport.height} px)`);
      assert.ok(
        top < viewport.height - 100,
        `the first chart starts at ${top.toFixed(0)} px: on the first screen of ${viewport.height} px with room to show it`,
      );
    });
  } finally {
    await p.close();
  }
});
