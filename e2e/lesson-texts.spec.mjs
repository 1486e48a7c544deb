// The new or re-staged lessons as a newcomer reads them, in the production build's Lessons tab
// (playwright.config.ts's webServer serves it; alone: `npx vite build && npx playwright test
// e2e/lesson-texts.spec.mjs`).
//
// For each lesson the card must show the paper's claim, the whole lesson text, one "look at" chip per
// lookAt entry, and either the measured outcome with its verdict or "Not measured yet"; its card is saved
// as test-results/lesson-card-<id>.png (docs/lessons.md's "Lessons, as a newcomer reads them" shows copies
// of these from docs/screenshots/).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { importTs, note, openPage, RESULTS_DIR, ROOT, withPageDiagnostics } from './lib.mjs';

const { getLesson } = await importTs('src/lessons/index.ts');
const { metricTitle, verdictBody } = await importTs('src/ui/derive/lesson-plan.ts');

/** The lessons added or re-staged since the first gallery. */
const NEW_LESSONS = [
  'zero-loss',
  'no-signal',
  'forking-tokens',
  'cispo-vs-clip',
  'length-normalisation',
  'noisy-verifiers',
  'sharpening',
  'easy-to-hard',
];

/** What the build serves (copied from public/ at build time). */
const measuredFile = join(ROOT, 'dist', 'lessons', 'measured.json');
const measured = existsSync(measuredFile) ? JSON.parse(readFileSync(measuredFile, 'utf8')) : {};

/** Whitespace as the page renders it, so a long text compares as one line. */
const squash = (s) => s.replace(/\s+/g, ' ').trim();

test('each new lesson card shows its claim, full text, what to look at, and its outcome', async ({
  browser,
}, testInfo) => {
  test.setTimeout(90_000);
  const p = await openPage(browser, '/', { viewport: { width: 1280, height: 800 } });
  try {
    await withPageDiagnostics(testInfo, p, 'lesson-texts', async () => {
      const { page } = p;
      await page.waitForFunction(() => !!window.__rlvr, undefined, { timeout: 20_000 });
      await page.click('[data-testid="tab-lessons"]');
      await page.waitForSelector('[data-testid="lessons-gallery"]');
      await page.waitForFunction(
        () =>
          document.querySelectorAll('[data-measured="loading"]').length === 0 &&
          document.querySelectorAll('[data-measured]').length > 0,
      );
      mkdirSync(RESULTS_DIR, { recursive: true });
      const sizes = [];
      for (const id of NEW_LESSONS) {
        const l = getLesson(id);
        const card = page.locator(`[data-testid="lesson-${id}"]`);
        assert.equal(await card.count(), 1, `${id}: one card`);
        assert.equal(squash(await card.locator('h3').textContent()), squash(l.title), `${id}: title`);

        const claim = card.locator(`[data-testid="lesson-claim-${id}"]`);
        assert.equal(await claim.count(), 1, `${id}: the card shows the paper's claim`);
        assert.ok(await claim.isVisible(), `${id}: the claim is visible`);
        assert.equal(squash(await claim.textContent()), squash(l.claim), `${id}: the claim, whole`);

        const text = card.locator('.lesson-text');
        assert.ok(await text.isVisible(), `${id}: the lesson text is visible`);
        assert.equal(squash(await text.textContent()), squash(l.text), `${id}: the lesson text, whole`);

        const chips = await card.locator(`[data-testid="lesson-look-${id}"] li button`).allTextContents();
        assert.deepEqual(
          chips.map(squash),
          l.lookAt.map((m) => squash(metricTitle(m))),
          `${id}: one "look at" chip per lookAt entry, in order`,
        );

        const outcome = card.locator(`[data-testid="measured-${id}"]`);
        const m = measured[id];
        assert.equal(await outcome.getAttribute('data-measured'), m ? 'true' : 'false', `${id}: measured or not`);
        if (m) {
          assert.equal(
            squash(await card.locator(`[data-testid="measured-summary-${id}"]`).textContent()),
            squash(m.summary),
            `${id}: measured summary`,
          );
          const verdict = l.verdict(m);
          const shown = card.locator(`[data-testid="measured-verdict-${id}"]`);
          assert.equal(await shown.getAttribute('data-shows'), String(verdict.shows), `${id}: verdict`);
          assert.ok(squash(await shown.textContent()).includes(squash(verdictBody(verdict))), `${id}: verdict text`);
          assert.equal(
            await card.locator(`[data-testid="measured-table-${id}"] tbody tr`).count(),
            m.runs.length + (m.base_pass_at_k && l.measures.some((x) => x.metric === 'eval') ? 1 : 0),
            `${id}: a row per run (and the base)`,
          );
        } else {
          assert.match(
            squash(await outcome.textContent()),
            new RegExp(`Not measured yet.*rlvr lesson run ${id}`),
            `${id}: says it is not measured yet`,
          );
        }

        // Clipped from a full-page shot: an element shot would scroll the card under the sticky header.
        await page.evaluate(() => window.scrollTo(0, 0));
        const box = await card.boundingBox();
        assert.ok(box && box.height > 0, `${id}: the card has a size`);
        const file = join(RESULTS_DIR, `lesson-card-${id}.png`);
        await page.screenshot({ path: file, fullPage: true, clip: box });
        sizes.push(`${id} ${Math.round(box.width)}×${Math.round(box.height)}`);
      }
      note(
        testInfo,
        `cards: ${sizes.join('; ')}; measured: ${NEW_LESSONS.filter((id) => measured[id]).join(', ') || 'none'}`,
      );
    });
  } finally {
    await p.close();
  }
});
