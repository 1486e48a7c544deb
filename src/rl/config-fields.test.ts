import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configTableMarkdown, setFlagHelp } from './config-doc.ts';
import { configFields, defaultConfig, fieldTable, restartFields, validateConfig } from './config.ts';
import { contextOverflow } from './context-fit.ts';

describe('the config field table', () => {
  it('gives the defaults, which validate, and the restart fields', () => {
    expect(validateConfig({})).toEqual(defaultConfig);
    expect(Object.keys(defaultConfig)).toEqual(configFields);
    expect(defaultConfig.reward_weights).toEqual({ correctness: 0.9, format: 0.1, partial: 0 });
    expect(defaultConfig.delta).toBeNull();
    expect(restartFields).toEqual([
      'task',
      'seed',
      'prompts_per_step',
      'num_generations',
      'max_completion_length',
      'minibatches',
      'lora_r',
      'lora_alpha',
      'lora_dropout',
      'target_modules',
      'curriculum',
      'ladder_start',
    ]);
    for (const k of configFields) expect(fieldTable[k].help.length, k).toBeGreaterThan(10);
  });

  it('validates ranges from the table: the boundary passes, one step past it fails naming the field', () => {
    for (const k of configFields) {
      const d = fieldTable[k] as { kind: string; min?: number; max?: number; exclusiveMin?: boolean };
      if ((d.kind !== 'int' && d.kind !== 'num') || k === 'version') continue;
      const step = d.kind === 'int' ? 1 : 1e-9;
      // Fields in a rule between fields (epsilon ≤ epsilon_high…) have their boundaries tested there.
      if (!d.exclusiveMin && !['epsilon_high', 'ladder_advance_at', 'ladder_step_back_at'].includes(k))
        expect(() => validateConfig({ [k]: d.min }), k).not.toThrow();
      expect(() => validateConfig({ [k]: d.min! - step }), k).toThrow(new RegExp(`^${k}: must be >`));
      expect(() => validateConfig({ [k]: d.max! + (d.kind === 'int' ? 1 : Math.max(1e-6, d.max! * 1e-6)) }), k).toThrow(
        new RegExp(`^${k}: must be <= ${d.max}`),
      );
    }
  });

  it(
    "the manual's table (docs/config.md) and the --set help are generated from it (run node " +
      'scripts/config-table.mjs)',
    () => {
      const readme = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
      const table = readme
        .slice(
          readme.indexOf('<!-- config-fields:start -->') + '<!-- config-fields:start -->'.length,
          readme.indexOf('<!-- config-fields:end -->'),
        )
        .trim();
      expect(table).toBe(configTableMarkdown());
      const help = setFlagHelp();
      for (const k of configFields) if (k !== 'version') expect(help).toContain(`\n  ${k} `);
      expect(help).toMatch(/max_completion_length +int 1\.\.512, default 48, new run: /);
    },
  );
});

describe('context fit (the check Start would fail on)', () => {
  it('names the numbers when prompt + completion exceed the context', () => {
    const c = { ...defaultConfig, max_completion_length: 500 };
    expect(contextOverflow(c, { n: 5, k: 3, m: 6 }, 128)).toMatch(
      /^task "sat" needs \d+ prompt tokens \+ max_completion_length 500 = \d+ positions, but the model has 128/,
    );
    expect(contextOverflow(defaultConfig, { n: 5, k: 3, m: 6 }, 128)).toBeNull();
  });
});
