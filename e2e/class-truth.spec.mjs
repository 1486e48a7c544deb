// Nothing on screen contradicts itself, buttons do what they say, and the page passes axe-core in both
// themes. Production build through `vite preview` (playwright.config.ts's webServer starts it), WASM:
//   npx vite build && npx playwright test e2e/class-truth.spec.mjs
//
// One small run is checked number against number: every chart's "latest (step N)" against the header's
// "Step N" and the CSV export, the held-out chart's standard-error band against the recorded evaluations,
// the status bar's task, preset and backend, and the token panel's advantage against its group's rewards;
// then axe-core runs over the charts and the rollout inspector in the light and the dark theme. Further
// tests: class-truth-setup.spec.mjs (the pass@k verdict against the plotted numbers, the checkpoint note
// against the difficulty knobs, a wrong num_generations in a link, the 800 px layout) and
// class-truth-data.spec.mjs ("Train on this dataset" after Try the policy, a Windows-1252 file).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { note, ROOT, screenshot, waitForPage, withPageDiagnostics } from './lib.mjs';
import { browser, classTruthHooks, SMALL, text } from './class-truth-lib.mjs';

classTruthHooks(test);

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

test(
  'one run, one set of numbers: chart summaries, ' +
    'header, CSV, status bar, the held-out band and the ' +
    'token panel agree; axe passes in both themes',
  async ({}, testInfo) => {
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
        // Every chart's summary names the step the header names. A chart draws only once it is on screen,
        // on its turn in a queue, at most once a second while data streams in
        // (src/ui/components/charts/render-budget.ts): so each chart is brought into view, and its summary
        // waited for. The ceiling only catches a chart that never catches up; how long it took is noted.
        // The metric charts (data-points) with a plot: the held-out chart is checked below, and a chart of a
        // constant has no summary.
        const charts = await page.$$eval('figure.chart[data-points]:not([data-constant])', (els) =>
          els.map((e) => e.getAttribute('data-testid')).filter((id) => id !== 'chart-eval'),
        );
        assert.ok(charts.length >= 4, `charts on the Charts tab: ${charts.join(', ')}`);
        const caughtUpStart = Date.now();
        const summaries = [];
        for (const id of charts) {
          await page.locator(`[data-testid="${id}"]`).scrollIntoViewIfNeeded();
          const summary = page.locator(`[data-testid="${id}-summary"]`);
          await page
            .waitForFunction(
              (sel) => /latest \((after )?step 3\)/.test(document.querySelector(sel)?.textContent ?? ''),
              `[data-testid="${id}-summary"]`,
              { timeout: Math.max(5_000, 120_000 - (Date.now() - caughtUpStart)), polling: 100 },
            )
            .catch(() => undefined);
          summaries.push(`${id}: ${(await summary.count()) ? await summary.textContent() : '(no summary drawn)'}`);
        }
        note(testInfo, `${charts.length} chart summaries in view caught up in ${Date.now() - caughtUpStart} ms`);
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
        check(
          /^backend WASM, \d+ threads?/.test(await text(page, 'backend')),
          `backend: ${await text(page, 'backend')}`,
        );

        // The held-out chart: each evaluation carries its standard error, drawn as a band.
        const evals = (await page.evaluate(() => window.__rlvr.state().run.evals)).map((e) => ({
          step: e.step,
          se: e.pass1_se,
          ks: Object.keys(e.pass_at_k),
        }));
        assert.deepEqual(
          evals.map((e) => e.step),
          [0, 2, 3],
        );
        // The page's evaluation takes eval_samples (2) per prompt, not a group of num_generations (4): pass@1
        // and pass@2.
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
            `the token panel shows the advantage (${await text(page, 'obj-advantage')}` +
              `) without deriving it from the group's rewards ${JSON.stringify(rewards)}`,
          );
        note(
          testInfo,
          `step ${pick.step}, group ${pick.group}: rewards ${JSON.stringify(rewards)} ` +
            `→ A = ${expected.toFixed(4)} (recorded ${chosen.advantage.toFixed(4)}` +
            ')',
        );
        const lightInspector = await axeViolations(page);
        const lightChips = await lowestChipContrast(page);
        check(
          lightChips.ratio >= 4.5,
          `light theme: a token chip at ${lightChips.ratio.toFixed(2)}` +
            `:1 (${lightChips.text} on ${lightChips.background}` +
            `, coloured by ${lightChips.channel})`,
        );

        // Dark theme: the same two views.
        await page.click('[data-testid="theme-toggle"]');
        await waitForPage(page, () => document.documentElement.dataset.theme === 'dark', { timeout: 5_000 });
        const darkInspector = await axeViolations(page);
        const darkChips = await lowestChipContrast(page);
        check(
          darkChips.ratio >= 4.5,
          `dark theme: a token chip at ${darkChips.ratio.toFixed(2)}` +
            `:1 (${darkChips.text} on ${darkChips.background}, ` +
            `coloured by ${darkChips.channel})`,
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
          `axe serious/critical: ` +
            JSON.stringify(Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.length]))),
        );
        for (const [where, v] of Object.entries(all))
          check(v.length === 0, `axe, ${where}: ${JSON.stringify(v, null, 1)}`);
        assert.deepEqual(problems, [], `${problems.length} disagreement(s):\n${problems.join('\n')}`);
      });
    } finally {
      await context.close();
    }
  },
);
