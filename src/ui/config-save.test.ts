import { describe, expect, it } from 'vitest';
import { appDefaults, validateDraft, type SetupDraft } from './config-form.ts';
import { parseConfigFile } from './config-file.ts';
import { ConfigSaveError, setupFileObject, setupFileText } from './config-save.ts';

const drafts: SetupDraft[] = [
  { task: 'sat', presetId: 'grpo', edits: {}, knobs: {} },
  { task: 'countdown', presetId: 'dapo', edits: { learning_rate: '0.0005', 'reward_weights.format': '0.2', delta: '', hints: true, loss_type: 'bnpo' }, knobs: { count: '3' } },
  { task: 'arithmetic', presetId: 'gspo', edits: { eval_prompts: '8', num_generations: '4', top_k: '5' }, knobs: { digits: '2', ops: '+-' } },
];

describe('Save config', () => {
  it.each(drafts)('save then Load config gives the same setup ($presetId on $task)', (d) => {
    const text = setupFileText(d);
    const back = parseConfigFile(text, 'saved.json');
    expect(back.presetId).toBe(d.presetId);
    expect(back.task).toBe(d.task);
    expect(back.knobs).toEqual(d.knobs);
    // The app's own starting values are written out (so `rlvr train --config` runs what the page runs); nothing else is added.
    const added = Object.keys(back.edits).filter((k) => !(k in d.edits));
    expect(added.sort()).toEqual(Object.keys(appDefaults).filter((k) => !(k in d.edits)).sort());
    for (const [k, v] of Object.entries(d.edits)) expect(back.edits[k]).toEqual(v);
    const want = validateDraft(d).config;
    expect(want).not.toBeNull();
    expect(validateDraft(back).config).toEqual(want);
  });

  it('writes the rlvr train --config format: typed values, "preset", nested reward_weights and difficulty', () => {
    expect(setupFileObject(drafts[1]!)).toEqual({
      preset: 'dapo',
      task: 'countdown',
      eval_prompts: 64,
      learning_rate: 0.0005,
      reward_weights: { format: 0.2 },
      delta: null,
      hints: true,
      loss_type: 'bnpo',
      difficulty: { count: 3 },
    });
  });

  it('refuses an invalid setup, naming every invalid field', () => {
    const bad: SetupDraft = { task: 'sat', presetId: 'grpo', edits: { learning_rate: 'fast', num_generations: '1' }, knobs: {} };
    expect(() => setupFileText(bad)).toThrow(ConfigSaveError);
    expect(() => setupFileText(bad)).toThrow(/these 2 settings.*learning_rate.*num_generations|these 2 settings.*num_generations.*learning_rate/);
  });
});
