import { beforeAll, describe, expect, it } from 'vitest';
import { appDefaults, validateDraft, type SetupDraft } from './config-form.ts';
import { parseConfigFile } from './config-file.ts';
import { ConfigSaveError, setupFileObject, setupFileText } from './config-save.ts';

const drafts: SetupDraft[] = [
  { task: 'sat', presetId: 'grpo', edits: {}, knobs: {} },
  {
    task: 'countdown',
    presetId: 'dapo',
    edits: { learning_rate: '0.0005', 'reward_weights.format': '0.2', delta: '', hints: true, loss_type: 'bnpo' },
    knobs: { count: '3' },
  },
  {
    task: 'arithmetic',
    presetId: 'gspo',
    edits: { eval_prompts: '8', num_generations: '4', top_k: '5' },
    knobs: { digits: '2', ops: '+-' },
  },
];

describe('Save config', () => {
  it.each(drafts)('save then Load config gives the same setup ($presetId on $task)', (d) => {
    const text = setupFileText(d);
    const back = parseConfigFile(text, 'saved.json');
    expect(back.presetId).toBe(d.presetId);
    expect(back.task).toBe(d.task);
    expect(back.knobs).toEqual(d.knobs);
    // The app's own starting values are written out (so `rlvr train --config` runs what the page runs); nothing else is
    // added.
    const added = Object.keys(back.edits).filter((k) => !(k in d.edits));
    expect(added.sort()).toEqual(
      Object.keys(appDefaults)
        .filter((k) => !(k in d.edits))
        .sort(),
    );
    for (const [k, v] of Object.entries(d.edits)) expect(back.edits[k]).toEqual(v);
    const want = validateDraft(d).config;
    expect(want).not.toBeNull();
    expect(validateDraft(back).config).toEqual(want);
  });

  it('writes the rlvr train --config format: typed values, "preset", nested reward_weights and difficulty', () => {
    expect(setupFileObject(drafts[1]!)).toEqual({
      preset: 'dapo',
      task: 'countdown',
      eval_prompts: 160,
      eval_samples: 2,
      learning_rate: 0.0005,
      reward_weights: { format: 0.2 },
      delta: null,
      hints: true,
      loss_type: 'bnpo',
      difficulty: { count: 3 },
    });
  });

  it('refuses an invalid setup, naming every invalid field', () => {
    const bad: SetupDraft = {
      task: 'sat',
      presetId: 'grpo',
      edits: { learning_rate: 'fast', num_generations: '1' },
      knobs: {},
    };
    expect(() => setupFileText(bad)).toThrow(ConfigSaveError);
    expect(() => setupFileText(bad)).toThrow(
      /these 2 settings.*learning_rate.*num_generations|these 2 settings.*num_generations.*learning_rate/,
    );
  });
});

describe('Save config with your own data', () => {
  const d: SetupDraft = { task: 'custom', presetId: 'grpo', edits: {}, knobs: {} };
  const small = {
    name: 'sums.jsonl',
    text: '{"prompt": "1+2=", "answer": "3"}\n',
    verifier: { kind: 'exact' as const },
  };
  // The page binds the custom family when a dataset is imported (dataset-import.ts); so does this test.
  beforeAll(async () => {
    const { loadTrainingDataset } = await import('../../tasks/dataset-load.ts');
    const { bindCustomFamily } = await import('../../tasks/registry.ts');
    bindCustomFamily(loadTrainingDataset(small).family);
  });
  it('embeds the dataset, and Load config (the same parser rlvr train --config uses) reads it back', async () => {
    const { parseRunConfigFile } = await import('../../rl/config-file.ts');
    const text = setupFileText(d, {}, small);
    expect(JSON.parse(text).dataset).toEqual(small);
    expect(parseRunConfigFile(text, 'saved.json').dataset).toEqual(small);
    expect(() => setupFileObject(d)).toThrow(/no dataset is imported/);
  });
  it('names a dataset too large to embed, with a note, and keeps the file under the config import cap', async () => {
    const { EMBED_DATASET_MAX } = await import('./config-save.ts');
    const { IMPORT_LIMITS } = await import('./import-limits.ts');
    const line = '{"prompt": "1+2=", "answer": "3"}\n';
    const big = { ...small, name: 'big.jsonl', text: line.repeat(Math.ceil((EMBED_DATASET_MAX + 1) / line.length)) };
    const o = setupFileObject(d, {}, big).dataset as Record<string, unknown>;
    expect(o.text).toBeUndefined();
    expect(o.name).toBe('big.jsonl');
    expect(o.note).toMatch(/^big\.jsonl is .* more than the .* a config file embeds: keep the file beside this config/);
    // The largest text that is embedded: the saved file still loads (under the config import cap).
    const fits = line.repeat(Math.floor((EMBED_DATASET_MAX - 2) / (JSON.stringify(line).length - 2)));
    const embedded = setupFileText(d, {}, { ...small, text: fits });
    expect(JSON.parse(embedded).dataset.text).toBe(fits);
    expect(new TextEncoder().encode(embedded).length).toBeLessThan(IMPORT_LIMITS.config);
  });
  it('refuses a dataset entry on another task, and a malformed one, naming the file', async () => {
    const { parseRunConfigFile } = await import('../../rl/config-file.ts');
    expect(() => parseRunConfigFile(JSON.stringify({ task: 'sat', dataset: small }), 'f.json')).toThrow(
      'f.json: "dataset" is for the custom task, but the file\'s task is "sat"',
    );
    expect(() =>
      parseRunConfigFile(
        JSON.stringify({ task: 'custom', dataset: { name: 'x.jsonl', verifier: { kind: 'fuzzy' } } }),
        'f.json',
      ),
    ).toThrow(/"dataset\.verifier\.kind" must be one of exact, numeric, regex/);
  });
});
