/**
 * A checkpoint's recipe under the user's choices: the one place that decides which RL setting a run
 * uses, for `rlvr train`, `rlvr sweep` and the worker's session alike.
 *
 * Order: defaults ← checkpoint recipe ← user (preset, config file, --set / the setup form).
 * Difficulty merges knob by knob: the family's defaults ← the recipe's (or, for checkpoints without
 * a recipe, the difficulty their pass@k was measured at) ← the user's knobs.
 */
import { recommendedDifficulty, type Manifest } from '../model/checkpoint.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import { ConfigError, defaultConfig, validateConfig, type RunConfig } from './config.ts';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The recipe's fields for `task` (none when the checkpoint does not list the task). */
export function recipeFor(manifest: Manifest | null, task: string): Partial<RunConfig> {
  if (!manifest || !manifest.tasks.some((t) => t.task === task)) return {};
  const { difficulty: _d, ...knobs } = manifest.recipe ?? {};
  return { ...(knobs as Partial<RunConfig>), difficulty: recommendedDifficulty(manifest, task) ?? {} };
}

export function resolveWithRecipe(user: Partial<RunConfig>, manifest: Manifest | null): RunConfig {
  const task = user.task ?? defaultConfig.task;
  const recipe = recipeFor(manifest, task);
  let config: RunConfig;
  try {
    config = validateConfig({ ...recipe, ...user, difficulty: {} });
  } catch (e) {
    // A recipe field this build does not know is the checkpoint's problem, not the user's.
    if (e instanceof ConfigError && !(e.field in user) && e.field in recipe) throw new ConfigError(e.field, `the checkpoint's recipe: ${e.message}`);
    throw e;
  }
  const family = getTaskFamily(config.task);
  const difficulty = { ...family.defaultDifficulty, ...(recipe.difficulty ?? {}), ...(user.difficulty ?? {}) };
  try {
    family.generate(0, difficulty);
  } catch (e) {
    const knob = /knob "([^"]+)"/.exec(message(e))?.[1];
    throw new ConfigError(knob ? `difficulty.${knob}` : 'difficulty', message(e));
  }
  return { ...config, difficulty };
}
