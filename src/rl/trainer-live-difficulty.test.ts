// A live difficulty change whose prompts outgrow the run's compiled grid is refused by name (it would
// otherwise fail at the next step); one that fits applies.
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { modelPresets } from '../model/config.ts';
import { Policy } from '../model/policy.ts';
import { initParams } from '../model/transformer.ts';
import { ConfigError, validateConfig } from './config.ts';
import { resolveLiveEdit } from './resolve-config.ts';
import { Trainer } from './trainer.ts';
import { getTaskFamily } from '../tasks/registry.ts';

describe('live difficulty changes', () => {
  it('fit the grid or are refused naming difficulty', async () => {
    const cfg = modelPresets.nano;
    const policy = await Policy.create(
      createNodeBackend(1),
      cfg,
      { promptLen: 8, completionLen: 24 },
      initParams(cfg, 7),
    );
    const trainer = await Trainer.create(
      policy,
      validateConfig({
        task: 'sat',
        difficulty: { n: 5, k: 3, m: 6 },
        prompts_per_step: 2,
        num_generations: 2,
        max_completion_length: 24,
      }),
    );
    const grid = policy.layout.promptLen;
    expect(trainer.updateConfig({ difficulty: { n: 5, k: 3, m: 5 } })).toEqual(['difficulty']);
    expect(() => trainer.updateConfig({ difficulty: { n: 5, k: 3, m: 9 } })).toThrow(ConfigError);
    expect(() => trainer.updateConfig({ difficulty: { n: 5, k: 3, m: 9 } })).toThrow(
      new RegExp(`^difficulty: these prompts need \\d+ tokens, more than the ${grid} this run's graphs were built for`),
    );
    // resolved as every config is: the knobs not given are the family's defaults
    expect(trainer.config.difficulty).toEqual({ ...getTaskFamily('sat').defaultDifficulty, n: 5, k: 3, m: 5 });
    await policy.dispose();
  });
});

describe('live edits through the resolver', () => {
  it(
    "an edit the resolver refuses is refused by the trainer with the resolver's message; a restart field by " +
      'the one rule',
    async () => {
      const cfg = modelPresets.nano;
      const policy = await Policy.create(
        createNodeBackend(1),
        cfg,
        { promptLen: 8, completionLen: 24 },
        initParams(cfg, 7),
      );
      const config = validateConfig({
        task: 'sat',
        difficulty: { n: 5, k: 3, m: 6 },
        prompts_per_step: 2,
        num_generations: 2,
        max_completion_length: 24,
      });
      const trainer = await Trainer.create(policy, config);
      // A knob sat does not have: the resolver checks the difficulty against the task, so it names the knob.
      const edit = { difficulty: { n: 5, k: 3, m: 6, digits: 2 } };
      const expected = resolveLiveEdit(config, edit).errors[0]!;
      expect(expected.field).toBe('difficulty.digits');
      expect(() => trainer.updateConfig(edit)).toThrow(`${expected.field}: ${expected.message}`);
      expect(() => trainer.updateConfig({ num_generations: 4 })).toThrow(
        /^num_generations: cannot change while training/,
      );
      expect(trainer.config).toEqual(config);
      await policy.dispose();
    },
  );
});

describe('the ladder’s start', () => {
  it('ladder_start picks the first level; one past the levels that fit is refused by name', async () => {
    const cfg = modelPresets.nano;
    const policy = await Policy.create(
      createNodeBackend(1),
      cfg,
      { promptLen: 8, completionLen: 24 },
      initParams(cfg, 7),
    );
    const base = {
      task: 'sat',
      curriculum: 'ladder' as const,
      prompts_per_step: 2,
      num_generations: 2,
      max_completion_length: 24,
    };
    const t = await Trainer.create(policy, validateConfig({ ...base, ladder_start: 3 }));
    expect(t.ladderState()?.level).toBe(3);
    expect(t.difficulty).toEqual(getTaskFamily('sat').levels[3]);
    await expect(Trainer.create(policy, validateConfig({ ...base, ladder_start: 99 }))).rejects.toThrow(
      /^ladder_start: must be below \d+: the "sat" ladder has \d+ levels that fit/,
    );
    await policy.dispose();
  });
});
