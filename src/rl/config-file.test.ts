// One config file format: the playground's file loader and `rlvr train --config FILE` read the same
// file into the same RunConfig, through the one parser in src/rl/config-file.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { userConfigInputs, type UserConfigSources } from '../cli/training-run.ts';
import { resolveOrThrow } from './resolve-config.ts';

/** What `rlvr train --config` makes of the file with no checkpoint (no recipe), through the one resolver. */
const resolveCliConfig = (o: UserConfigSources) => resolveOrThrow(userConfigInputs(o));
import { parseConfigFile } from '../ui/derive/config-file.ts';
import { validateDraft } from '../ui/derive/config-form.ts';
import { defaultConfig, validateConfig } from './config.ts';
import { configFileText, ConfigFileError, parseRunConfigFile } from './config-file.ts';
import { getPreset } from './presets.ts';
import { getTaskFamily } from '../tasks/registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-config-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The RunConfig the playground builds from the file (load it, then the form's own validation). */
function uiConfig(text: string) {
  const { config, errors } = validateDraft(parseConfigFile(text, 'run.json'));
  expect(errors).toEqual({});
  return config;
}

describe('one config file format for the playground and rlvr train --config', () => {
  const files: [string, object][] = [
    [
      'a preset with fields over it',
      {
        preset: 'dapo',
        task: 'countdown',
        learning_rate: 0.0005,
        reward_weights: { format: 0.2 },
        delta: null,
        difficulty: { count: 3 },
      },
    ],
    [
      'fields only',
      {
        task: 'sort',
        num_generations: 4,
        prompts_per_step: 6,
        minibatches: 2,
        temperature: 0.7,
        mask_truncated_completions: true,
        eval_prompts: 24,
      },
    ],
    ['a preset only', { preset: 'gspo' }],
    ['nothing', {}],
    [
      'a full config as rlvr train writes it',
      { ...defaultConfig, task: 'chain', seed: 5, beta: 0.04, kl_estimator: 'k1', difficulty: { length: 4 } },
    ],
    [
      'a saved file (preset and every field)',
      JSON.parse(
        configFileText(
          validateConfig({ ...getPreset('lite_ppo').config, task: 'sudoku', learning_rate: 3e-5, top_k: 20 }),
          'lite_ppo',
        ),
      ),
    ],
  ];
  it.each(files)('%s: both paths give the same RunConfig', (_what, file) => {
    const text = JSON.stringify(file, null, 2);
    const cli = resolveCliConfig({ file: write('run.json', text), sets: [] });
    expect(uiConfig(text)).toEqual(cli);
    expect(parseRunConfigFile(text).config).toEqual(cli);
  });

  it('a saved file loads back to the same config and preset', () => {
    const config = validateConfig({
      ...getPreset('dapo').config,
      task: 'arithmetic',
      epsilon: 0.25,
      difficulty: { digits: 2 },
    });
    const back = parseRunConfigFile(configFileText(config, 'dapo'), 'saved.json');
    expect(back.preset).toBe('dapo');
    // The file resolves through the one resolver, which fills the difficulty from the family's defaults.
    expect(back.config).toEqual({
      ...config,
      difficulty: { ...getTaskFamily('arithmetic').defaultDifficulty, digits: 2 },
    });
  });

  it("rlvr train: the file's preset applies without --preset; the same --preset is fine; another is an error", () => {
    const path = write('dapo.json', JSON.stringify({ preset: 'dapo', learning_rate: 0.0002 }));
    const fromFile = resolveCliConfig({ file: path, sets: [] });
    expect(fromFile.loss_type).toBe('dapo');
    expect(fromFile.epsilon_high).toBe(0.28);
    expect(fromFile.learning_rate).toBe(0.0002);
    expect(resolveCliConfig({ file: path, preset: 'dapo', sets: [] })).toEqual(fromFile);
    expect(() => resolveCliConfig({ file: path, preset: 'gspo', sets: [] })).toThrow(
      /--preset: gspo disagrees with "preset": "dapo" in .*dapo\.json; give one of them/,
    );
    // Without a preset in the file, --preset lies under the file's fields, as before.
    const plain = write('plain.json', JSON.stringify({ epsilon_high: 0.3 }));
    expect(resolveCliConfig({ file: plain, preset: 'gspo', sets: ['seed=4'] })).toMatchObject({
      importance_sampling_level: 'sequence',
      epsilon: 3e-4,
      epsilon_high: 0.3,
      seed: 4,
    });
  });

  const bad: [string, string, RegExp][] = [
    ['invalid JSON', '{"seed": 1,', /bad\.json is not valid JSON/],
    ['an array', '[]', /bad\.json must hold one JSON object of config fields, got an array/],
    ['an unknown preset', '{"preset": "ppo"}', /bad\.json: unknown preset "ppo" \(known: grpo, /],
    ['an unknown field', '{"learning_rat": 1}', /bad\.json: learning_rat: unknown field/],
    ['an out-of-range value', '{"top_p": 0}', /bad\.json: top_p: must be > 0/],
    ['an unknown task', '{"task": "chess"}', /bad\.json: unknown task "chess"/],
  ];
  it.each(bad)('both paths refuse %s with the same message', (_what, text, message) => {
    const path = write('bad.json', text);
    expect(() => resolveCliConfig({ file: path, sets: [] })).toThrow(message);
    expect(() => parseConfigFile(text, 'bad.json')).toThrow(message);
    expect(() => parseRunConfigFile(text, 'bad.json')).toThrow(ConfigFileError);
  });
});
