// The one config resolver: the layer order its comment documents, per-part and per-knob sources, and
// every error by field with the layer beneath showing through.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateManifest } from '../model/checkpoint.ts';
import { defaultConfig } from './config.ts';
import { getPreset } from './presets.ts';
import { pageSourceText, resolveConfig, resolveOrThrow, sourceText, taskOf } from './resolve-config.ts';

const sortTiny = validateManifest(JSON.parse(readFileSync('public/checkpoints/sort-tiny/manifest.json', 'utf8')));
const countdownTiny = validateManifest(
  JSON.parse(readFileSync('public/checkpoints/countdown-tiny/manifest.json', 'utf8')),
);

describe('resolveConfig', () => {
  it(
    'layers: defaults ← app defaults ← recipe ← preset ← link ← edits, each field naming the last layer ' +
      'that set it',
    () => {
      const r = resolveConfig({
        manifest: sortTiny,
        appDefaults: { eval_prompts: 64, temperature: 0.5, top_k: 3 },
        preset: 'dapo',
        layers: [
          { source: { kind: 'link' }, values: { task: 'sort', epsilon_high: 0.3, learning_rate: 0.001 } },
          { source: { kind: 'edited' }, values: { learning_rate: 0.002 } },
        ],
      });
      expect(r.errors).toEqual([]);
      const at = (f: string) => pageSourceText(r.source[f]!);
      expect([r.config.top_p, at('top_p')]).toEqual([1, 'default']);
      expect([r.config.eval_prompts, at('eval_prompts')]).toEqual([64, 'app default']);
      // The recipe lies over the app defaults: sort-tiny's temperature 0.7, not the app's 0.5.
      expect([r.config.temperature, at('temperature')]).toEqual([0.7, 'recipe of sort-tiny']);
      expect([r.config.top_k, at('top_k')]).toEqual([3, 'app default']);
      expect([r.config.dynamic_sampling, at('dynamic_sampling')]).toEqual([true, 'preset dapo']);
      expect([r.config.epsilon_high, at('epsilon_high')]).toEqual([0.3, 'from the link']);
      expect([r.config.learning_rate, at('learning_rate')]).toEqual([0.002, 'edited']);
      expect(at('difficulty.length')).toBe('recipe of sort-tiny');
    },
  );

  it('merges a weights field part by part and the difficulty knob by knob', () => {
    const r = resolveConfig({
      manifest: countdownTiny,
      layers: [
        {
          source: { kind: 'flag', flag: '--set' },
          values: { task: 'countdown', reward_weights: { format: 0.2 }, difficulty: { count: 4 } },
        },
      ],
    });
    expect(r.errors).toEqual([]);
    expect(r.config.reward_weights).toEqual({ correctness: 0.9, format: 0.2, partial: 0.5 });
    expect(sourceText(r.source['reward_weights.partial']!)).toBe('recipe of countdown-tiny');
    expect(sourceText(r.source['reward_weights.format']!)).toBe('--set');
    expect(sourceText(r.source['reward_weights.correctness']!)).toBe('default');
    expect(r.config.difficulty.count).toBe(4);
    expect(sourceText(r.source['difficulty.count']!)).toBe('--set');
    expect(sourceText(r.source['difficulty.maxNumber']!)).toBe('recipe of countdown-tiny');
  });

  it('a checkpoint that does not list the task gives no recipe', () => {
    const r = resolveConfig({ manifest: sortTiny, layers: [{ source: { kind: 'edited' }, values: { task: 'sat' } }] });
    expect(r.config.temperature).toBe(defaultConfig.temperature);
    expect(Object.values(r.source).every((s) => s.kind !== 'recipe')).toBe(true);
  });

  it('lists every error by field, and a dropped value lets the layer beneath show', () => {
    const r = resolveConfig({
      manifest: sortTiny,
      preset: 'grpo',
      layers: [
        {
          source: { kind: 'edited' },
          values: {
            task: 'sort',
            top_p: 0,
            learning_rat: 1,
            temperature: 'hot',
            reward_weights: { format: 99 },
            difficulty: { length: 999 },
          },
        },
      ],
    });
    const fields = r.errors.map((e) => e.field).sort();
    expect(fields).toEqual(['difficulty.length', 'learning_rat', 'reward_weights.format', 'temperature', 'top_p']);
    expect(r.errors.find((e) => e.field === 'top_p')!.message).toMatch(/must be > 0/);
    expect(r.config.temperature).toBe(0.7);
    expect(sourceText(r.source.temperature!)).toBe('recipe of sort-tiny');
    expect(() => resolveOrThrow({ layers: [{ source: { kind: 'edited' }, values: { top_p: 0 } }] })).toThrow(
      /^top_p: must be > 0, got 0$/,
    );
  });

  it("names the checkpoint's recipe or the preset when the bad value is theirs", () => {
    const bad = { ...sortTiny, recipe: { ...sortTiny.recipe, top_k: -1 } };
    expect(
      resolveConfig({ manifest: bad, layers: [{ source: { kind: 'edited' }, values: { task: 'sort' } }] }).errors,
    ).toEqual([{ field: 'top_k', message: "the checkpoint's recipe: must be >= 0, got -1" }]);
    expect(resolveConfig({ preset: 'nope' }).errors[0]).toMatchObject({
      field: 'preset',
      message: expect.stringMatching(/unknown preset "nope"/),
    });
  });

  it('cross-field rules are checked over the merged layers (a preset allows what the defaults would not)', () => {
    expect(
      resolveConfig({ preset: 'dapo', layers: [{ source: { kind: 'edited' }, values: { epsilon: 0.25 } }] }).errors,
    ).toEqual([]);
    expect(
      resolveConfig({ layers: [{ source: { kind: 'edited' }, values: { epsilon: 0.25 } }] }).errors.map((e) => e.field),
    ).toEqual(['epsilon_high']);
  });

  it('taskOf reads the task the layers choose, before a checkpoint is known', () => {
    expect(
      taskOf({
        preset: 'dapo',
        layers: [
          { source: { kind: 'edited' }, values: { task: 'sort' } },
          { source: { kind: 'flag', flag: '--task' }, values: { task: 'chain' } },
        ],
      }),
    ).toBe('chain');
    expect(taskOf({})).toBe(defaultConfig.task);
    expect(getPreset('dapo').config).not.toHaveProperty('task');
  });
});
