// Config files and links: every bad input gives one clear message and changes nothing (docs/reliability.md).
import { describe, expect, it } from 'vitest';
import { ConfigFileError, parseConfigFile } from './config-file.ts';
import { checkImportSize, IMPORT_LIMITS, ImportTooLarge, readDatasetFile } from './import-limits.ts';
import { capNotes, guardSearch, MAX_SEARCH_CHARS } from './url-guard.ts';

describe('parseConfigFile', () => {
  it('turns a valid file (the rlvr train --config format, plus an optional preset) into a draft', () => {
    const d = parseConfigFile(
      JSON.stringify({
        preset: 'dapo',
        task: 'countdown',
        learning_rate: 0.0005,
        reward_weights: { format: 0.2 },
        delta: null,
        difficulty: { count: 3 },
      }),
      'run.json',
    );
    // eval_prompts and eval_samples, which the app starts at its own values, are pinned to the file's (the library
    // defaults here).
    // Every value from the file is marked as the saved config's (the form says "saved config" beside it).
    const saved = 'saved config';
    expect(d).toEqual({
      task: 'countdown',
      presetId: 'dapo',
      edits: {
        eval_prompts: '32',
        eval_samples: '0',
        learning_rate: '0.0005',
        'reward_weights.format': '0.2',
        delta: '',
      },
      knobs: { count: '3' },
      origins: {
        task: saved,
        eval_prompts: saved,
        eval_samples: saved,
        learning_rate: saved,
        'reward_weights.format': saved,
        delta: saved,
        'difficulty.count': saved,
      },
    });
    expect(parseConfigFile('\ufeff{}')).toEqual({
      task: 'sat',
      presetId: 'grpo',
      edits: { eval_prompts: '32', eval_samples: '0' },
      knobs: {},
      origins: { task: saved, eval_prompts: saved, eval_samples: saved },
    });
    expect(parseConfigFile('{"eval_prompts": 8}').edits).toEqual({ eval_prompts: '8', eval_samples: '0' });
    // A value valid only over the preset's own values (DAPO's epsilon_high 0.28) is accepted with it.
    expect(parseConfigFile(JSON.stringify({ preset: 'dapo', epsilon: 0.25 })).edits.epsilon).toBe('0.25');
  });

  const bad: [string, string, RegExp][] = [
    ['invalid JSON', '{"learning_rate": 0.1,', /not valid JSON/],
    ['an empty file', '', /not valid JSON/],
    ['an array', '[1, 2]', /must hold one JSON object.*array/],
    ['null', 'null', /must hold one JSON object.*null/],
    ['a string', '"grpo"', /must hold one JSON object.*string/],
    ['an unknown field', '{"learning_rat": 0.1}', /learning_rat: unknown field/],
    ['an unknown nested field', '{"reward_weights": {"style": 1}}', /reward_weights\.style: unknown field/],
    ['an out-of-range value', '{"num_generations": 1}', /num_generations: must be >= 2/],
    ['a wrong type', '{"learning_rate": "fast"}', /learning_rate: must be a number/],
    ['a non-finite number', '{"learning_rate": 1e999}', /learning_rate: must be a number/],
    ['an unknown preset', '{"preset": "ppo-xl"}', /unknown preset "ppo-xl" \(known: /],
    ['an unknown task', '{"task": "chess"}', /unknown task "chess"/],
    ['a bad difficulty knob', '{"difficulty": {"digits": 0}}', /difficulty\.digits/],
    ['a prototype-pollution key', '{"__proto__": {"polluted": 1}}', /__proto__: unknown field/],
    ['an inherited name as a field', '{"constructor": 1}', /constructor: unknown field/],
  ];
  it.each(bad)('refuses %s with a clear message', (_what, text, message) => {
    expect(() => parseConfigFile(text, 'run.json')).toThrow(ConfigFileError);
    expect(() => parseConfigFile(text, 'run.json')).toThrow(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a file over the size cap before parsing it', () => {
    const huge = `{"seed": 1, "pad": "${'x'.repeat(IMPORT_LIMITS.config)}"}`;
    expect(() => parseConfigFile(huge, 'huge.json')).toThrow(
      /huge\.json is 256 KB; a config file may be at most 256 KB/,
    );
  });
});

describe('import size caps', () => {
  it('name the file, its size and the cap', () => {
    expect(() => checkImportSize('checkpoint', 'model.safetensors', 2048 * 1024 * 1024)).toThrow(ImportTooLarge);
    expect(() => checkImportSize('checkpoint', 'model.safetensors', 2048 * 1024 * 1024)).toThrow(
      'model.safetensors is 2048 MB; a checkpoint weights may be at most 1024 MB, so it was not read',
    );
    expect(() => checkImportSize('manifest', 'manifest.json', 2 * 1024 * 1024)).toThrow(/manifest\.json is 2\.0 MB/);
    expect(() => checkImportSize('checkpoint', 'ok.safetensors', 1000)).not.toThrow();
    // A released small model's weights file: SmolLM2-135M in float32 (e2e/hf-import-smollm2.spec.mjs).
    expect(() => checkImportSize('checkpoint', 'model.safetensors', 538_090_408)).not.toThrow();
  });

  it('a dataset file is refused over the cap without being read, and streamed under it', async () => {
    const fake = {
      name: 'big.jsonl',
      size: IMPORT_LIMITS.dataset + 1,
      stream: () => {
        throw new Error('must not be read');
      },
    } as unknown as Blob & { name: string };
    await expect(readDatasetFile(fake)).rejects.toThrow(/big\.jsonl is 100 MB; a dataset may be at most 100 MB/);
    const file = new Blob(['{"prompt":"1+1=","answer":"2"}\nnot json\n', '{"prompt":"2+2=","answer":4}\n']);
    const ds = await readDatasetFile(file);
    expect(ds.records.map((r) => r.answer)).toEqual(['2', '4']);
    expect(ds.errors).toEqual([{ line: 2, reason: expect.stringMatching(/not valid JSON/) }]);
    await expect(readDatasetFile(new Blob([]))).rejects.toThrow(/dataset is empty/);
  });
});

describe('links', () => {
  it('a very long query string is ignored with a note; notes are capped', () => {
    expect(guardSearch('?preset=dapo')).toEqual({ search: '?preset=dapo', note: null });
    const long = '?' + 'a=1&'.repeat(50_000);
    const g = guardSearch(long);
    expect(g.search).toBe('');
    expect(g.note).toMatch(/200,001 characters long \(at most 8,192\): it was ignored/);
    expect(guardSearch('?' + 'x'.repeat(MAX_SEARCH_CHARS - 1)).note).toBeNull();
    const notes = Array.from({ length: 1000 }, (_, i) => `unknown setting "k${i}"`);
    const capped = capNotes(notes);
    expect(capped).toHaveLength(8);
    expect(capped[7]).toBe('…and 993 more problems with this link');
  });
});
