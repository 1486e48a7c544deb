// The objectives beyond the clip, end to end on the production build: a shared URL picks the preset,
// one step trains on WASM, and the objective panel of a token shows that objective's formula and
// knobs, filled with the numbers the update graph output for it (their weight × token loss equals the
// contribution the graph summed). The trainer's own records must obey the objective's formula:
// alone, `npx vite build && npx playwright test e2e/objectives.spec.mjs`.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage, screenshot, waitForPage, withPageDiagnostics as withDiagnostics } from './lib.mjs';

/** @type {import('playwright-core').Browser} */
let browser;
test.beforeAll(({ browser: b }) => {
  browser = b;
});

const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);
/** The page's number format (src/ui/derive/channels.ts num). */
const num = (v, digits) => (v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toFixed(digits));

/**
 * preset → what its panel must say, and the per-token rule its records must obey (beta = 0, so the
 * token loss is −obj; A is the completion's advantage).
 */
const CASES = {
  vespo: {
    formula: /VESPO/,
    knobs: /A ≥ 0: k = 2\.0000, λ = 3\.0000; A < 0: k = 3\.0000, λ = 2\.0000/,
    // obj = φ·A·logp with one φ per completion: obj / (A·logp) is the same on all its tokens
    check: (r) => {
      const phi = r.objective.map((o, i) => o / (r.advantage * r.newLogp[i]));
      for (const p of phi)
        assert.ok(Math.abs(p - phi[0]) <= 1e-4 * Math.max(1, Math.abs(phi[0])), `φ varies within a completion: ${phi}`);
      assert.ok(phi[0] > 0 && phi[0] <= 1.0001, `φ(w) in (0, 1] near w = 1, got ${phi[0]}`);
    },
  },
  cispo: {
    formula: /CISPO: ε_max = epsilon_high/,
    knobs: /ε_max = epsilon_high = 5\.0000/,
    // obj = min(ratio, 5)·A·logp
    check: (r) =>
      r.objective.forEach((o, i) =>
        assert.ok(
          Math.abs(o - Math.min(r.ratio[i], 5) * r.advantage * r.newLogp[i]) <= 1e-5 * Math.max(1, Math.abs(o)),
          `cispo obj at ${i}`,
        ),
      ),
  },
  kl_cov: {
    formula: /KL-Cov/,
    knobs: /penalty ppo_kl_coef = 1\.0000/,
    // obj = ratio·A, minus |logp − old| on the picked tokens
    check: (r) =>
      r.objective.forEach((o, i) => {
        const plain = r.ratio[i] * r.advantage;
        const penalty = Math.abs(r.newLogp[i] - r.oldLogp[i]);
        assert.ok(
          Math.abs(o - plain) <= 1e-5 || Math.abs(o - (plain - penalty)) <= 1e-5,
          `kl_cov obj at ${i}: ${o} is neither ratio·A nor ratio·A − |logp − old|`,
        );
      }),
  },
};

for (const [preset, want] of Object.entries(CASES)) {
  test(`${preset}: one step, its objective panel and its records follow its formula`, async ({}, testInfo) => {
    test.setTimeout(240_000);
    const p = await openPage(browser, `/?v=1&preset=${preset}&eval_every=0&prompts_per_step=4`, {
      viewport: { width: 1280, height: 900 },
    });
    try {
      await withDiagnostics(testInfo, p, `objectives-${preset}`, async () => {
        const { page } = p;
        await page.waitForSelector('[data-testid="preset"]');
        assert.equal(await page.inputValue('[data-testid="preset"]'), preset);
        await page.click('[data-testid="step-once"]');
        await waitForPage(page, () => window.__rlvr.state().run.metrics.length >= 1, { timeout: 200_000 });
        const records = await page.evaluate(async () => (await window.__rlvr.getRollouts(1)).records);
        for (const r of records) if (r.advantage !== 0) want.check(r);
        await page.click('[data-testid="tab-rollouts"]');
        await page.waitForSelector('[data-testid="groups-table"]', { timeout: 30_000 });
        const rec = records.find((r) => r.advantage !== 0 && r.tokens.length >= 3) ?? records[0];
        await page.click(`[data-testid="open-rollout-${rec.group}-${rec.index}"]`);
        await page.waitForSelector('[data-testid="token-view"]');
        const k = Math.min(2, rec.tokens.length - 1);
        await page.click(`[data-testid="token"][data-index="${k}"]`);
        await page.waitForSelector('[data-testid="objective-panel"]');
        assert.match(await text(page, 'objective-formula'), want.formula);
        assert.match(await text(page, 'obj-clipped'), want.knobs);
        assert.ok((await text(page, 'obj-obj')).startsWith(num(rec.objective[k], 6)), `obj shows ${rec.objective[k]}`);
        assert.equal(
          await page.getAttribute('[data-testid="obj-contribution"]', 'data-agree'),
          'true',
          "the graph's weight × token loss equals the loss contribution it summed",
        );
        await page.evaluate(() =>
          document.querySelector('[data-testid="objective-panel"]').scrollIntoView({ block: 'end' }),
        );
        await screenshot(page, `objectives-${preset}`);
        note(
          testInfo,
          `${preset}: ${records.length} completions checked ` +
            `against the formula; token ${k} of group ${rec.group} ` +
            `#${rec.index}: obj ${rec.objective[k]}`,
        );
        assert.deepEqual(p.pageErrors, []);
        assert.deepEqual(p.externalRequests, []);
      });
    } finally {
      await p.close();
    }
  });
}
