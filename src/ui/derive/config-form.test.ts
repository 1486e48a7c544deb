import { describe, expect, it } from 'vitest';
import { appDefaults, baseValue, draftPatch, fieldSpecs, parseText, validateDraft } from './config-form.ts';
import { choosePreset } from './preset-change.ts';
import { passAt1StandardError } from '../../rl/passk.ts';
import { emptySetup, experimentKey, searchToSetup, setupToSearch } from './url-state.ts';
import { configFields } from '../../rl/config.ts';

describe('setup form', () => {
  it('documents every config field (except the ones with their own controls)', () => {
    const documented = new Set(fieldSpecs.map((f) => f.path.split('.')[0]));
    const own = ['version', 'task', 'difficulty'];
    expect(configFields.filter((k) => !own.includes(k) && !documented.has(k))).toEqual([]);
    for (const f of fieldSpecs) expect(f.help.length).toBeGreaterThan(10);
  });

  it('collects every invalid value, keyed by field, knobs included', () => {
    const d = {
      task: 'arithmetic',
      presetId: 'grpo',
      edits: { num_generations: '-3', learning_rate: 'fast', loss_type: 'nope' },
      knobs: { digits: '0' },
    };
    const { config, errors } = validateDraft(d, { digits: 3, ops: '+-', mulDigits: 1 });
    expect(config).toBeNull();
    expect(Object.keys(errors).sort()).toEqual(['difficulty.digits', 'learning_rate', 'loss_type', 'num_generations']);
    expect(errors.num_generations).toMatch(/>= 2/);
    expect(errors['difficulty.digits']).toMatch(/digits/);
  });

  it('a valid draft gives the config; presets are values of it', () => {
    const { config, errors } = validateDraft({
      task: 'arithmetic',
      presetId: 'dapo',
      edits: { 'reward_weights.format': '0.2', delta: '' },
      knobs: {},
    });
    expect(errors).toEqual({});
    expect(config).toMatchObject({
      loss_type: 'dapo',
      epsilon_high: 0.28,
      delta: null,
      reward_weights: { correctness: 0.9, format: 0.2, partial: 0 },
    });
    expect(draftPatch({ task: 'arithmetic', presetId: 'grpo', edits: {}, knobs: { digits: '2' } }).difficulty).toEqual({
      digits: 2,
    });
  });
});

describe("the page's held-out evaluation", () => {
  it("bounds one point's standard error of pass@1 at 0.04 whatever the pass rates", () => {
    const prompts = appDefaults.eval_prompts!;
    const n = appDefaults.eval_samples!;
    // The largest spread the per-prompt pass rates can have: half the prompts always solved, half never.
    const worst = Array.from({ length: prompts }, (_, i) => (i % 2 ? n : 0));
    expect(passAt1StandardError(worst, n)).toBeLessThanOrEqual(0.04);
    // It stays a pass@k curve (k = 1, 2) and costs less sampling than the 64 prompts × 8 it replaced.
    expect(n).toBeGreaterThanOrEqual(2);
    expect(prompts * n).toBeLessThan(64 * 8);
  });
});

describe('config in the URL', () => {
  it('writes only non-default values with a version, and reads them back', () => {
    const s = emptySetup();
    expect(setupToSearch(s)).toBe('');
    s.draft.presetId = 'dapo';
    s.draft.edits = { learning_rate: '0.002', epsilon_high: '0.28', mask_truncated_completions: true };
    s.draft.knobs = { m: '7' };
    s.stepBudget = 100;
    s.backend = 'wasm';
    const q = setupToSearch(s);
    expect(q).toBe(
      'v=1&preset=dapo&difficulty.m=7&learning_rate=0.002&mask_truncated_completions=true&steps=100&backend=wasm',
    );
    const back = searchToSetup(q);
    expect(back.notes).toEqual([]);
    expect(back.hasExperiment).toBe(true);
    // Each value read from the link is marked as such, so the form says "from the link" beside it.
    expect(back.setup.draft).toEqual({
      task: 'sat',
      presetId: 'dapo',
      edits: { learning_rate: '0.002', mask_truncated_completions: true },
      knobs: { m: '7' },
      origins: { 'difficulty.m': 'link', learning_rate: 'link', mask_truncated_completions: 'link' },
    });
    expect(experimentKey(q)).not.toContain('backend');
  });

  it('`threads` is page state: read, written back, refused outside 1-16, and not part of the experiment', () => {
    const r = searchToSetup('?threads=1');
    expect(r.notes).toEqual([]);
    expect(r.setup.threads).toBe(1);
    expect(setupToSearch(r.setup)).toBe('threads=1');
    expect(experimentKey('?threads=1&learning_rate=0.002')).toBe(experimentKey('?learning_rate=0.002'));
    for (const bad of ['0', '17', '1.5', 'many']) {
      const b = searchToSetup(`?threads=${bad}`);
      expect(b.notes).toEqual([`threads=${bad} is not a whole number from 1 to 16; choosing automatically`]);
      expect(b.setup.threads ?? null).toBeNull();
    }
  });

  it('reports unknown keys and bad values instead of dropping them silently', () => {
    const r = searchToSetup('?v=1&preset=nope&lr=3&model=nano&backend=cuda');
    expect(r.notes.length).toBe(3);
    expect(r.setup.model).toBe('nano');
  });
});

describe('the form and the URL come from the config table', () => {
  it('every table field has a form field, and every form field round-trips through the URL', () => {
    for (const f of fieldSpecs) {
      const s = emptySetup();
      const v =
        f.kind === 'bool'
          ? true
          : f.kind === 'enum'
            ? f.options![f.options!.length - 1]!
            : f.kind === 'nullable-num'
              ? '2'
              : '0.5';
      s.draft.edits = { [f.path]: v };
      const q = setupToSearch(s);
      const back = searchToSetup(q);
      expect(back.notes, f.path).toEqual([]);
      // A value equal to the default is not written (and so not read back).
      if (q) expect(back.setup.draft.edits, f.path).toEqual({ [f.path]: v });
      else expect(JSON.stringify(parseText(f.kind, v))).toBe(JSON.stringify(baseValue(f.path, 'grpo')));
    }
  });

  it('max_completion_length that does not fit the model context is refused inline, before Start', () => {
    const d = { task: 'sat', presetId: 'grpo', edits: { max_completion_length: '500' }, knobs: {} };
    expect(validateDraft(d, { n: 5, k: 3, m: 6 }).errors).toEqual({});
    const { config, errors } = validateDraft(d, { n: 5, k: 3, m: 6 }, 128);
    expect(config).toBeNull();
    expect(errors.max_completion_length).toMatch(
      /needs \d+ prompt tokens \+ max_completion_length 500 = \d+ positions, but the model has 128/,
    );
    expect(validateDraft({ ...d, edits: { max_completion_length: '64' } }, { n: 5, k: 3, m: 6 }, 128).errors).toEqual(
      {},
    );
  });
});

describe('choosing a preset', () => {
  it('keeps typed values, drops edits the preset now equals, and names the fields the preset also sets', () => {
    const d = {
      task: 'sat',
      presetId: 'grpo',
      edits: { learning_rate: '2e-4', epsilon_high: '0.28', scale_rewards: 'batch' },
      knobs: { m: '7' },
    };
    const r = choosePreset(d, 'dapo');
    expect(r.draft).toEqual({
      task: 'sat',
      presetId: 'dapo',
      edits: { learning_rate: '2e-4', scale_rewards: 'batch' },
      knobs: { m: '7' },
    });
    expect(r.kept).toEqual([
      { path: 'learning_rate', value: '2e-4', preset: undefined },
      { path: 'scale_rewards', value: 'batch', preset: undefined },
    ]);
    const r2 = choosePreset(d, 'dr_grpo');
    expect(r2.kept.find((k) => k.path === 'scale_rewards')).toEqual({
      path: 'scale_rewards',
      value: 'batch',
      preset: 'none',
    });
    expect(validateDraft(r2.draft).config).toMatchObject({
      loss_type: 'dr_grpo',
      learning_rate: 2e-4,
      scale_rewards: 'batch',
    });
  });
});

it('the context check shows alongside other errors', () => {
  const d = { task: 'sat', presetId: 'grpo', edits: { max_completion_length: '500', num_generations: '1' }, knobs: {} };
  expect(Object.keys(validateDraft(d, { n: 5, k: 3, m: 6 }, 128).errors).sort()).toEqual([
    'max_completion_length',
    'num_generations',
  ]);
});
