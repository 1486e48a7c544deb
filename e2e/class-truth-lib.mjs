// Helpers of the class-truth specs (e2e/class-truth*.spec.mjs): the browser, a small run, and text on screen.

/** @type {import('playwright-core').Browser} */
export let browser;
/** Registers the file's hook that hands its tests the browser. */
export function classTruthHooks(test) {
  test.beforeAll(({ browser: b }) => {
    browser = b;
  });
}

export const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);
export const SMALL = 'backend=wasm&prompts_per_step=2&num_generations=4';
