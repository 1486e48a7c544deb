// A live difficulty change whose prompts outgrow the run's compiled grid is refused by name (it would
// otherwise fail at the next step); one that fits applies.
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { modelPresets } from '../model/config.ts';
import { Policy } from '../model/policy.ts';
import { initParams } from '../model/transformer.ts';
import { ConfigError, validateConfig } from './config.ts';
import { Trainer } from './trainer.ts';
import { getTaskFamily } from '../tasks/registry.ts';

describe('live difficulty changes', () => {
  it('fit the grid or are refused naming difficulty', async () => {
    const cfg = modelPresets.nano;
    const policy = await Policy.create(createNodeBackend(1), cfg, { promptLen: 8, completionLen: 24 }, initParams(cfg, 7));
    const trainer = await Trainer.create(policy, validateConfig({ task: 'sat', difficulty: { n: 5, k: 3, m: 6 }, prompts_per_step: 2, num_generations: 2, max_completion_length: 24 }));
    const grid = policy.layout.promptLen;
    expect(trainer.updateConfig({ difficulty: { n: 5, k: 3, m: 5 } })).toEqual(['difficulty']);
    expect(() => trainer.updateConfig({ difficulty: { n: 5, k: 3, m: 9 } })).toThrow(ConfigError);
    expect(() => trainer.updateConfig({ difficulty: { n: 5, k: 3, m: 9 } })).toThrow(new RegExp(`^difficulty: these prompts need \\d+ tokens, more than the ${grid} this run's graphs were built for`));
    expect(trainer.config.difficulty).toEqual({ n: 5, k: 3, m: 5 });
    await policy.dispose();
  });
});

describe('the ladder’s start', () => {
  it('ladder_start picks the first level; one past the levels that fit is refused by name', async () => {
    const cfg = modelPresets.nano;
    const policy = await Policy.create(createNodeBackend(1), cfg, { promptLen: 8, completionLen: 24 }, initParams(cfg, 7));
    const base = { task: 'sat', curriculum: 'ladder' as const, prompts_per_step: 2, num_generations: 2, max_completion_length: 24 };
    const t = await Trainer.create(policy, validateConfig({ ...base, ladder_start: 3 }));
    expect(t.ladderState()?.level).toBe(3);
    expect(t.difficulty).toEqual(getTaskFamily('sat').levels[3]);
    await expect(Trainer.create(policy, validateConfig({ ...base, ladder_start: 99 }))).rejects.toThrow(/^ladder_start: must be below \d+: the "sat" ladder has \d+ levels that fit/);
    await policy.dispose();
  });
});
