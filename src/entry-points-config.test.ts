// One config resolver (src/rl/resolve-config.ts): every entry point that builds a run config from the
// same inputs gets the same config and the same sources. The inputs: a checkpoint whose recipe sets
// several fields, eval_prompts and eval_samples among them (fields the page also starts at its own values), a preset,
// and the same overrides given as --set / --seed, as form edits, and through a share link. Each
// entry point is called through its real code path: the CLI's config building (rlvr train, rlvr
// export --format trl), one rlvr sweep cell, the worker's resolution of an init request, the form
// (what it sends, what it shows in each field, its validation) and the link (written, then read back).
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveOverBase, userConfigInputs } from './cli/training-run.ts';
import { sweepCellInputs } from './cli/commands/sweep.ts';
import { explainRows, sourceText, type ResolvedConfig, type Source } from './rl/resolve-config.ts';
import { validateManifest } from './model/checkpoint.ts';
import {
  baseValue,
  fieldSpecs,
  parseText,
  resolveDraft,
  validateDraft,
  valueAt,
  type SetupDraft,
} from './ui/derive/config-form.ts';
import { initRequest } from './ui/state/setup-state.ts';
import { setState } from './ui/state/store.ts';
import { emptySetup, searchToSetup, setupToSearch } from './ui/derive/url-state.ts';
import { resolveInitRequest } from '../workers/open-run.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-entry-points-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// sat-tiny with a recipe that sets eval_prompts, eval_samples, temperature, prompts_per_step, a reward weight and the
// difficulty.
const shipped = resolve('public/checkpoints/sat-tiny');
const manifestJson = JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')) as Record<string, unknown>;
manifestJson.name = 'sat-recipe';
manifestJson.recipe = {
  difficulty: { n: 5, k: 3, m: 6, ratio: 0 },
  eval_prompts: 24,
  eval_samples: 4,
  temperature: 0.7,
  prompts_per_step: 16,
  reward_weights: { partial: 0.3 },
};
const manifestPath = join(dir, 'manifest.json');
writeFileSync(manifestPath, JSON.stringify(manifestJson));
copyFileSync(join(shipped, manifestJson.weights as string), join(dir, manifestJson.weights as string));
const manifest = validateManifest(manifestJson);

const preset = 'dapo';
const task = 'sat';
const sets = ['learning_rate=0.0005', 'reward_weights.format=0.2', 'difficulty.m=7'];
const seed = 3;
const draft: SetupDraft = {
  task,
  presetId: preset,
  edits: { learning_rate: '0.0005', 'reward_weights.format': '0.2', seed: '3' },
  knobs: { m: '7' },
};

/**
 * Sources with the person's own layer named alike: `--set`, `--seed`, `edited` and `from the link` are the same layer
 * seen from different doors.
 */
function layerOf(s: Source): string {
  return ['flag', 'edited', 'link', 'saved config', 'config file'].includes(s.kind) ? 'the person' : sourceText(s);
}
const sourcesOf = (r: ResolvedConfig) => Object.fromEntries(Object.entries(r.source).map(([k, s]) => [k, layerOf(s)]));

describe('every entry point resolves the same inputs to the same config and sources', () => {
  const cli = resolveOverBase(userConfigInputs({ preset, sets, task, seed }), manifestPath).resolved;
  const sweep = resolveOverBase(sweepCellInputs({ preset, sets, task, seed }), manifestPath).resolved;
  const form = resolveDraft(draft, manifest);
  const link = resolveDraft(searchToSetup(setupToSearch({ ...emptySetup(), draft })).setup.draft, manifest);
  setState({
    setup: { ...emptySetup(), draft, checkpoint: 'upload' },
    uploaded: { name: 'sat-recipe', manifest, bytes: new Uint8Array() },
  });
  const worker = resolveInitRequest(initRequest(), manifest);

  it('the recipe, the preset and the overrides each take their documented place', () => {
    expect(cli.errors).toEqual([]);
    expect(cli.config).toMatchObject({
      eval_prompts: 24,
      temperature: 0.7,
      prompts_per_step: 16,
      loss_type: 'dapo',
      epsilon_high: 0.28,
      learning_rate: 0.0005,
      seed: 3,
    });
    expect(cli.config.reward_weights).toEqual({ correctness: 0.9, format: 0.2, partial: 0.3 });
    expect(cli.config.difficulty).toEqual({ n: 5, k: 3, m: 7, ratio: 0 });
    expect(sourceText(cli.source.eval_prompts!)).toBe('recipe of sat-recipe');
    expect(sourceText(cli.source.epsilon_high!)).toBe('preset dapo');
    expect(sourceText(cli.source['difficulty.n']!)).toBe('recipe of sat-recipe');
    expect(sourceText(cli.source['difficulty.m']!)).toBe('--set');
    expect(sourceText(cli.source.seed!)).toBe('flag --seed');
    expect(sourceText(cli.source.top_k!)).toBe('default');
    expect(form.source.learning_rate).toEqual({ kind: 'edited' });
    expect(link.source.learning_rate).toEqual({ kind: 'link' });
  });

  const doors: [string, () => unknown][] = [
    ['rlvr sweep (one cell)', () => sweep.config],
    ['the worker (an init request from the form)', () => worker.config],
    ['the form', () => form.config],
    ['a share link, read back', () => link.config],
  ];
  it.each(doors)("%s gives rlvr train's config", (_door, config) => {
    expect(config()).toEqual(cli.config);
  });

  it.each([
    ['rlvr sweep (one cell)', sweep],
    ['the worker (an init request from the form)', worker],
    ['the form', form],
    ['a share link, read back', link],
  ] as const)("%s gives rlvr train's sources", (_door, r) => {
    expect(r.errors).toEqual([]);
    expect(sourcesOf(r)).toEqual(sourcesOf(cli));
  });

  it('each form field shows the value the run gets, and the form validates it alike', () => {
    for (const f of fieldSpecs) {
      const shown =
        draft.edits[f.path] !== undefined
          ? parseText(f.kind, draft.edits[f.path]!)
          : baseValue(f.path, preset, manifest, task);
      expect(shown, f.path).toEqual(valueAt(cli.config, f.path));
    }
    expect(validateDraft(draft, manifest.recipe!.difficulty as Record<string, number>).errors).toEqual({});
  });

  it('rlvr train --explain-config lists every field with its source', () => {
    const rows = explainRows(cli);
    expect(rows.find((r) => r.field === 'eval_prompts')).toEqual({
      field: 'eval_prompts',
      value: 24,
      source: { kind: 'recipe', checkpoint: 'sat-recipe' },
    });
    expect(rows.map((r) => r.field)).toContain('reward_weights.partial');
    expect(rows.map((r) => r.field)).toContain('difficulty.m');
  });
});
