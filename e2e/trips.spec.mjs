// What a teacher and a student trip on, end to end on the production build (alone:
// `npx vite build && npx playwright test e2e/trips.spec.mjs`): lessons and recordings, and Keep & share.
// Progress lines and Cancel: trips-progress.spec.mjs; a run's numbers and its reload: trips-run.spec.mjs.
// Tests share one page where they can and open the shipped recordings (public/records/) instead of
// training wherever the point is not training.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, note, openPage, ROOT, screenshot, withPageDiagnostics } from './lib.mjs';
import { browser, lastMean, measured, openLessonCold, state, tripsHooks } from './trips-lib.mjs';

tripsHooks(test);

test(
  'a lesson draws what its verdict judges: the mean ' +
    'over its seeds, each seed faint, rollouts of a ' +
    'seed it names',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const { perSeedVerdicts, getLesson } = await importTs('src/lessons/index.ts');
    const p = await openPage(browser, '/');
    try {
      await withPageDiagnostics(testInfo, p, 'trips-why-groups', async () => {
        const m = measured['why-groups'];
        const t0 = Date.now();
        await openLessonCold(p, 'why-groups');
        note(
          testInfo,
          `?lesson=why-groups opened with its ${m.seeds.length} ` +
            `seeds' records in ${((Date.now() - t0) / 1000).toFixed(1)} ` +
            's (page load included)',
        );
        const s = await state(p.page);
        // The curves drawn are the ones the verdict judges: the banner's numbers come back from them.
        const gain =
          lastMean(s.compare.b.metrics, 'accuracy/first_round', 20) -
          lastMean(s.compare.a.metrics, 'accuracy/first_round', 20);
        const judged = m.runs[1].values['accuracy/first_round'] - m.runs[0].values['accuracy/first_round'];
        note(testInfo, `drawn first-round accuracy gain ${gain.toFixed(3)}, the verdict's ${judged.toFixed(3)}`);
        assert.ok(
          Math.abs(gain - judged) < 0.005,
          `the drawn curves give a gain of ${gain}, the verdict judged ${judged}`,
        );
        const zero = lastMean(s.compare.a.metrics, 'frac_reward_zero_std', 150);
        assert.ok(Math.abs(zero - m.runs[0].values.frac_reward_zero_std) < 0.005, `drawn zero-variance share ${zero}`);
        assert.equal(s.compare.a.seeds.length, m.seeds.length, 'each seed is drawn');
        // One faint line per arm and seed (charts draw once in view, at a bounded rate: waited for).
        await p.page.locator('[data-testid="compare-focus-charts"]').scrollIntoViewIfNeeded();
        await p.page.waitForFunction(
          (n) =>
            Number(
              document.querySelector('[data-testid="compare-chart-accuracy"]')?.getAttribute('data-seed-lines'),
            ) === n,
          2 * m.seeds.length,
          { timeout: 10_000 },
        );
        // The scrubber and rollouts show a seed on which the effect shows, and the banner names it.
        const per = perSeedVerdicts(getLesson('why-groups'), m);
        const shown = s.recording.record.provenance.lesson.seed;
        assert.ok(per.find((x) => x.seed === shown).verdict.shows, `seed ${shown} shows the effect alone`);
        const banner = await p.page.textContent('[data-testid="lesson-banner"]');
        assert.match(banner, new RegExp(`mean over seeds ${m.seeds.join(', ')}`));
        assert.match(
          banner,
          new RegExp(`shows on ${per.filter((x) => x.verdict.shows).length} of the ${m.seeds.length} seeds alone`),
        );
        assert.match(banner, new RegExp(`rollouts show seed ${shown}, one on which it shows`));
        await p.page.locator('[data-testid="lesson-banner"]').scrollIntoViewIfNeeded();
        note(testInfo, `screenshot: ${await screenshot(p.page, 'trips-why-groups-cold')}`);

        // Sharpening shows on none of its seeds alone: the mean is drawn and the banner says so.
        const sh = measured.sharpening;
        await openLessonCold(p, 'sharpening');
        const t = await state(p.page);
        const lastEval = t.compare.a.evals.at(-1);
        const judged1 = sh.runs[0].final_pass_at_k['1'];
        assert.ok(
          Math.abs(lastEval.pass_at_k['1'] - judged1) < 0.005,
          `drawn final pass@1 ${lastEval.pass_at_k['1']}, measured mean ${judged1}`,
        );
        assert.match(await p.page.textContent('[data-testid="lesson-banner"]'), /shows on 0 of the 3 seeds alone/);
        await p.page.locator('[data-testid="compare-focus-charts"]').scrollIntoViewIfNeeded();
        await p.page.waitForFunction(
          () => Number(document.querySelector('[data-testid="compare-chart-eval"]')?.getAttribute('data-points')) > 0,
          undefined,
          { timeout: 10_000 },
        );
        note(testInfo, `screenshot: ${await screenshot(p.page, 'trips-sharpening-cold')}`);
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'closing a lesson, or its recording, gives back the ' +
    'setup the person had before it, step budget text ' +
    'included',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const p = await openPage(browser, '/?preset=dr_grpo&steps=12&learning_rate=0.0003');
    const { page } = p;
    const setupOf = () =>
      page.evaluate(() => {
        const s = window.__rlvr.state().setup;
        return JSON.stringify({
          draft: { task: s.draft.task, presetId: s.draft.presetId, edits: s.draft.edits, knobs: s.draft.knobs },
          checkpoint: s.checkpoint,
          stepBudget: s.stepBudget,
        });
      });
    try {
      await withPageDiagnostics(testInfo, p, 'trips-lesson-close', async () => {
        await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
        const before = await setupOf();
        const estimate = await page.textContent('[data-testid="time-estimate"]');
        assert.match(estimate, /^12 steps/, "the status line names the setup's own budget");
        for (const close of ['lesson-close', 'recording-close']) {
          await page.click('[data-testid="tab-lessons"]');
          await page.click('[data-testid="lesson-open-why-groups"]');
          await page.waitForFunction(
            () =>
              window.__rlvr.state().compare.a.state === 'recorded' && window.__rlvr.state().setup.stepBudget === 150,
            undefined,
            { timeout: 30_000 },
          );
          assert.notEqual(await setupOf(), before, 'the lesson put its setup in place');
          await page.click(`[data-testid="${close}"]`);
          await page.waitForFunction(() => !window.__rlvr.state().lesson.active, undefined, { timeout: 10_000 });
          assert.equal(await setupOf(), before, `after ${close}: the setup from before the lesson`);
          assert.equal(
            await page.textContent('[data-testid="time-estimate"]'),
            estimate,
            `after ${close}: the status line's step budget`,
          );
          assert.equal(
            await page.locator('[data-testid="recording-banner"]').count(),
            0,
            "the lesson's recording went with it",
          );
        }
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'text says what happens: Open shows recordings, the ' +
    'banner and verdict come into view, the header says ' +
    '"recording"',
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const p = await openPage(browser, '/');
    const { page } = p;
    try {
      await withPageDiagnostics(testInfo, p, 'trips-open-texts', async () => {
        await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
        await page.click('[data-testid="tab-lessons"]');
        const intro = await page.textContent('.lessons-intro');
        assert.doesNotMatch(intro, /Open\s+starts the runs/, 'Open does not start runs');
        assert.match(intro, /Open\s+shows the lesson’s recorded runs/);
        assert.match(intro, /nothing trains until you press Run it live/);
        // A card low in the gallery, opened with the page scrolled to it.
        const last = page.locator('[data-testid^="lesson-open-"]').last();
        const id = (await last.getAttribute('data-testid')).slice('lesson-open-'.length);
        await last.scrollIntoViewIfNeeded();
        const scrolledTo = await page.evaluate(() => window.scrollY);
        await last.click();
        await page.waitForSelector('[data-testid="lesson-banner-verdict"]', { timeout: 30_000 });
        // The banner and its verdict in view (the header is sticky: below it), whatever the scroll was.
        await page.waitForFunction(
          () => {
            const v = document.querySelector('[data-testid="lesson-banner-verdict"]').getBoundingClientRect();
            const header =
              document.querySelector('[data-testid="status-bar"]')?.closest('header')?.getBoundingClientRect().bottom ??
              0;
            return v.top >= header - 1 && v.bottom <= window.innerHeight;
          },
          undefined,
          { timeout: 5_000 },
        );
        note(
          testInfo,
          `lesson ${id} opened from a card with the page at scrollY ${scrolledTo}: banner and verdict in view`,
        );
        // The header over a recording says it is one.
        const rec = await page.evaluate(() => window.__rlvr.state().recording);
        assert.equal(await page.textContent('[data-testid="run-state"]'), 'recording (not training)');
        assert.equal(
          await page.textContent('[data-testid="step-count"]'),
          `Recorded step ${rec.series.step} of ${rec.steps.at(-1)}`,
        );
        await screenshot(page, 'trips-open-texts');
      });
    } finally {
      await p.close();
    }
  },
);

test(
  'Keep & share: "Export for TRL" downloads exactly ' +
    'the project `rlvr export --format trl` writes for ' +
    "the same config, and shows its README's commands",
  async ({}, testInfo) => {
    test.setTimeout(120_000);
    const p = await openPage(browser, '/?preset=dapo&task=countdown&learning_rate=0.0002&steps=7');
    const { page } = p;
    try {
      await withPageDiagnostics(testInfo, p, 'trips-trl-export', async () => {
        await page.waitForFunction(() => window.__rlvr?.state().booted, undefined, { timeout: 30_000 });
        await page.click('[data-testid="tab-share"]');
        const dir = mkdtempSync(join(tmpdir(), 'rlvr-trl-e2e-'));
        const [dl] = await Promise.all([
          page.waitForEvent('download', { timeout: 60_000 }),
          page.getByRole('button', { name: 'Export for TRL', exact: true }).click(),
        ]);
        const zip = join(dir, dl.suggestedFilename());
        await dl.saveAs(zip);
        execFileSync('python3', ['-m', 'zipfile', '-e', zip, join(dir, 'page')]);
        // The CLI on the config the page exported (the page's resolved run config, as run_config.json carries it).
        execFileSync(
          'node',
          [
            'scripts/rlvr.mjs',
            'export',
            '--format',
            'trl',
            '--config',
            join(dir, 'page', 'run_config.json'),
            '--out',
            join(dir, 'cli'),
          ],
          { cwd: ROOT, stdio: 'pipe' },
        );
        const pageFiles = readdirSync(join(dir, 'page')).sort();
        const cliFiles = readdirSync(join(dir, 'cli')).sort();
        assert.deepEqual(pageFiles, cliFiles, 'the same files');
        for (const f of cliFiles)
          assert.equal(
            readFileSync(join(dir, 'page', f), 'utf8'),
            readFileSync(join(dir, 'cli', f), 'utf8'),
            `${f}: the same text`,
          );
        const config = JSON.parse(readFileSync(join(dir, 'page', 'run_config.json'), 'utf8'));
        assert.equal(config.task, 'countdown');
        assert.equal(config.learning_rate, 0.0002, "the setup's own config");
        note(
          testInfo,
          `Export for TRL: ${pageFiles.join(', ')}; identical to rlvr export --format trl on the same run_config.json`,
        );
        // The README's commands, in the page.
        const shown = await page.textContent('[data-testid="trl-commands"]');
        assert.match(shown, /accelerate launch train_grpo\.py --model \.\/hf --steps 200 --output_dir grpo-out/);
        assert.match(shown, /npx rlvr export --format hf/);
      });
    } finally {
      await p.close();
    }
  },
);
