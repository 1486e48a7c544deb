// Nothing on screen contradicts itself, on the production build (alone:
// `npx vite build && npx playwright test e2e/class-truth-setup.spec.mjs`): the pass@k verdict against the
// plotted numbers, the checkpoint note against the difficulty knobs, a wrong num_generations in a link and
// the 800 px layout.
import assert from 'node:assert/strict';
import { test } from '@playwright/test';
import { note, openPage, screenshot, waitForPage, withPageDiagnostics } from './lib.mjs';
import { browser, classTruthHooks, SMALL, text } from './class-truth-lib.mjs';

classTruthHooks(test);

/**
 * Who the verdict says is ahead at k, read off its words (old and new phrasings alike); undefined when it says nothing
 * about k.
 */
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

test(
  'the pass@k verdict says what the plotted numbers ' + 'say (identical base and current: level, not ' + '"ahead")',
  async ({}, testInfo) => {
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
            `k = ${k}: base ${curve.base[String(k)]}, current ${curve.current[String(k)]}` +
              `; the caption says ${said ?? 'nothing'}: ${caption}`,
          );
        }
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'the checkpoint note names the difficulty RL starts ' + "at: the recipe's, which the knobs show",
  async ({}, testInfo) => {
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
  },
);

test(
  'a wrong num_generations in a link: the guide still ' + 'shows the task, and names what is wrong elsewhere',
  async ({}, testInfo) => {
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
  },
);

test('at 800 px wide, a chart is on the first screen after Start', async ({}, testInfo) => {
  test.setTimeout(240_000);
  const viewport = { width: 800, height: 900 };
  const p = await openPage(browser, `/?${SMALL}&eval_every=0&steps=2`, { viewport });
  try {
    await withPageDiagnostics(testInfo, p, 'class-truth-narrow', async () => {
      const { page } = p;
      await page.waitForSelector('[data-testid="guide"]', { timeout: 30_000 }); // a first visit: the guide is open
      await page.click('[data-testid="start"]');
      await page.waitForFunction(() => window.__rlvr.state().run.metrics.length >= 1, undefined, {
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
        `the first chart starts at ${top.toFixed(0)} px: on ` +
          `the first screen of ${viewport.height} px with ` +
          'room to show it',
      );
    });
  } finally {
    await p.close();
  }
});
