// A live edit of a running run goes through the one resolver (resolveLiveEdit in resolve-config.ts) and
// the one restart rule (needsRestart in config-fields.ts): the page's sync (src/ui/state/controller.ts) and the
// trainer (Trainer.updateConfig) both call it.
import { describe, expect, it } from 'vitest';
import { defaultConfig, type RunConfig } from './config.ts';
import { needsRestart } from './config-fields.ts';
import { resolveConfig, resolveLiveEdit } from './resolve-config.ts';

const running: RunConfig = resolveConfig({
  preset: 'grpo',
  layers: [{ source: { kind: 'edited' }, values: { task: 'arithmetic' } }],
}).config;

describe('live config edits', () => {
  it("an invalid edit is refused with the resolver's own message", () => {
    const edit = resolveLiveEdit(running, { learning_rate: -1 });
    const direct = resolveConfig({ layers: [{ source: { kind: 'edited' }, values: { learning_rate: -1 } }] });
    expect(direct.errors).toHaveLength(1);
    expect(edit.errors).toEqual(direct.errors);
    // A rule between fields too, which a field-by-field check would miss.
    const cross = resolveLiveEdit(running, { epsilon: 0.3, epsilon_high: 0.2 });
    expect(cross.errors.map((e) => e.field)).toEqual(['epsilon_high']);
    // An unknown field, and a difficulty knob the task does not have, by name.
    expect(resolveLiveEdit(running, { learning_rat: 0.1 }).errors[0]!.field).toBe('learning_rat');
    expect(resolveLiveEdit(running, { difficulty: { digits: 99 } }).errors[0]!.field).toBe('difficulty.digits');
  });

  it('a valid edit applies live, over the running config (not the defaults)', () => {
    const edit = resolveLiveEdit(running, { learning_rate: 0.0005, reward_weights: { format: 0.3 } });
    expect(edit.errors).toEqual([]);
    expect(edit.live).toEqual(['learning_rate', 'reward_weights']);
    expect(edit.restart).toEqual([]);
    expect(edit.config.task).toBe('arithmetic');
    expect(edit.config.reward_weights).toEqual({ ...running.reward_weights, format: 0.3 });
  });

  it('a restart field is reported once, as needing a new run, and not applied live', () => {
    const edit = resolveLiveEdit(running, { num_generations: running.num_generations * 2, learning_rate: 0.0005 });
    expect(edit.restart).toEqual(['num_generations']);
    expect(edit.live).toEqual(['learning_rate']);
    // The difficulty waits with its task, and under a ladder curriculum.
    const task = resolveLiveEdit(running, { task: 'sort', difficulty: defaultConfig.difficulty });
    expect(task.restart).toContain('task');
    expect(task.live).not.toContain('difficulty');
    const ladder = { ...running, curriculum: 'ladder' } as RunConfig;
    expect(resolveLiveEdit(ladder, { difficulty: { digits: 2 } }).restart).toEqual(['difficulty']);
    expect(needsRestart('learning_rate', running, ['learning_rate'])).toBe(false);
  });
});
