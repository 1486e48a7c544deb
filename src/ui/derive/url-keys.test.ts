// Every URL key the page reads is in the one table of src/ui/derive/url-state.ts, flagged as experiment or
// page state, and no other file under src/ reads the query string itself.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifest } from '../../model/checkpoint.ts';
import { resolveDraft } from './config-form.ts';
import { emptySetup, experimentKey, searchToSetup, setupToSearch, urlKeys, viewerToSearch } from './url-state.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}

describe('the one table of URL keys', () => {
  it('flags every key, the page-state keys included', () => {
    const scope = Object.fromEntries(urlKeys.map((k) => [k.key, k.scope]));
    expect(scope).toMatchObject({
      preset: 'experiment',
      task: 'experiment',
      checkpoint: 'experiment',
      dataset: 'experiment',
      model: 'experiment',
      'difficulty.': 'experiment',
      learning_rate: 'experiment',
      'reward_weights.format': 'experiment',
      steps: 'experiment',
      lesson: 'experiment',
    });
    expect(scope).toMatchObject({ v: 'page', backend: 'page', bench: 'page', bench_steps: 'page', run: 'page' });
    expect(scope).toMatchObject({ view: 'page', step: 'page', prompt: 'page' });
    expect(urlKeys.every((k) => k.scope === 'experiment' || k.scope === 'page')).toBe(true);
  });

  it('reads the page state through the table, and the experiment is what the experiment keys say', () => {
    const r = searchToSetup(
      '?v=1&task=sort&lesson=why-groups&backend=wasm&bench=1&bench_steps=7&run=records%2Fa.rlvr.gz',
    );
    expect(r.notes).toEqual([]);
    expect(r.page).toEqual({
      bench: { open: true, steps: 7, note: null },
      run: 'records/a.rlvr.gz',
      lesson: 'why-groups',
      viewer: { name: null, step: null, prompt: null },
    });
    expect(r.setup.backend).toBe('wasm');
    expect(r.experimentKeys).toEqual(['task', 'lesson']);
    expect(experimentKey('v=1&task=sort&backend=wasm&bench=1&run=x')).toBe('v=1&task=sort');
    expect(searchToSetup('?lesson=bogus').page.lesson).toBe('bogus');
    expect(searchToSetup('?bench=1&bench_steps=0').page.bench.note).toMatch(/bench_steps=0 is not a whole number/);
  });

  it("the run viewer's place: view, step and prompt, read and written through the table", () => {
    const r = searchToSetup('?view=trl%2Frun+1&step=12&prompt=What+is+2%2B2%3F');
    expect(r.notes).toEqual([]);
    expect(r.hasExperiment).toBe(false);
    expect(r.page.viewer).toEqual({ name: 'trl/run 1', step: 12, prompt: 'What is 2+2?' });
    expect(searchToSetup(`?${viewerToSearch(r.page.viewer)}`).page.viewer).toEqual(r.page.viewer);
    expect(viewerToSearch({ name: null, step: 3, prompt: null })).toBe('');
    expect(searchToSetup('?view=a&step=x').notes).toEqual([
      'step=x is not a step number; the run viewer opens the first step',
    ]);
  });

  it('no other source file parses the query string', () => {
    const readers = sources('src')
      .filter((p) => !p.endsWith(join('ui', 'derive', 'url-state.ts')))
      .filter((p) =>
        /URLSearchParams\((location\.)?search\b|\.get\('(bench|lesson|run|backend)'\)/.test(readFileSync(p, 'utf8')),
      );
    expect(readers).toEqual([]);
  });

  it("writes a value the person typed over the checkpoint's recipe, even where it equals the library default", () => {
    const sortTiny = validateManifest(JSON.parse(readFileSync('public/checkpoints/sort-tiny/manifest.json', 'utf8')));
    const setup = {
      ...emptySetup(),
      draft: { task: 'sort', presetId: 'grpo', edits: { prompts_per_step: '8' }, knobs: {} },
    };
    // The recipe's 64 is what the form starts at; 8 is the person's (and the library default).
    const q = setupToSearch(setup, sortTiny);
    expect(new URLSearchParams(q).get('prompts_per_step')).toBe('8');
    const back = resolveDraft(searchToSetup(q).setup.draft, sortTiny);
    expect(back.config.prompts_per_step).toBe(8);
    expect(back.source.prompts_per_step).toEqual({ kind: 'link' });
  });
});
