/**
 * One headless training run, as `rlvr train` and `rlvr sweep` do it: resolve the config over the base
 * checkpoint's recipe, train, write metrics/rollouts/config/checkpoint into a folder.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../engine/backend.ts';
import { readCheckpoint, writeCheckpoint } from './checkpoint-files.ts';
import type { Manifest } from '../model/checkpoint.ts';
import { Policy } from '../model/policy.ts';
import { applyAssignments, ConfigError, type RunConfig } from '../rl/config.ts';
import { parseRunConfigFile } from '../rl/config-file.ts';
import { getPreset } from '../rl/presets.ts';
import { resolveWithRecipe } from '../rl/recipe.ts';
import { Trainer } from '../rl/trainer.ts';
import { shippedFor } from './shipped.ts';

export interface UserConfigSources {
  preset?: string;
  /** A JSON config file (partial; applied after the preset, before the assignments). */
  file?: string;
  sets: string[];
  task?: string;
  seed?: number;
}

/**
 * What the user chose: preset ← config file ← --set ← --task/--seed, as a partial config (no
 * defaults or recipe yet). The file is the playground's config file format (src/rl/config-file.ts);
 * its optional "preset" is used when --preset is not given, and a --preset that names another preset
 * is an error (the file's fields were written over its own preset).
 */
export function userConfigPatch(opts: UserConfigSources): Partial<RunConfig> {
  let preset = opts.preset;
  let fields: Record<string, unknown> = {};
  if (opts.file) {
    let text: string;
    try {
      text = readFileSync(opts.file, 'utf8');
    } catch (e) {
      throw new ConfigError('--config', `cannot read ${opts.file}: ${(e as Error).message}`);
    }
    const file = parseRunConfigFile(text, opts.file);
    if (file.preset && opts.preset && file.preset !== opts.preset) {
      throw new ConfigError('--preset', `${opts.preset} disagrees with "preset": "${file.preset}" in ${opts.file}; give one of them`);
    }
    preset = opts.preset ?? file.preset;
    fields = file.fields;
  }
  let patch: Record<string, unknown> = preset ? { ...getPreset(preset).config } : {};
  patch = applyAssignments({ ...patch, ...fields }, opts.sets);
  if (opts.task) patch.task = opts.task;
  if (opts.seed !== undefined) patch.seed = opts.seed;
  return patch as Partial<RunConfig>;
}

/** The run config `rlvr train` would use: the user's choices over the base checkpoint's recipe. */
export function resolveRunConfig(opts: UserConfigSources & { model?: string }): RunConfig {
  return resolveOverBase(userConfigPatch(opts), opts.model);
}

export function resolveOverBase(user: Partial<RunConfig>, model?: string): RunConfig {
  const path = model ?? shippedFor(user.task ?? resolveWithRecipe(user, null).task);
  return resolveWithRecipe(user, readCheckpoint(path).manifest);
}

export interface TrainingRunOptions {
  user: Partial<RunConfig>;
  /** Base checkpoint manifest (default: the shipped one for the task). */
  modelPath?: string;
  steps: number;
  out: string;
  rollouts: 'all' | 'last' | 'none';
  backend: Backend;
  /** Recorded in the manifest: the label after the base's name, and the command that made it. */
  label: string;
  command: string;
  onStep?: (done: number, total: number, status: string) => void;
}

export interface TrainingRunResult {
  out: string;
  steps: number;
  config: RunConfig;
  base: { path: string; manifest: Manifest };
  initial_pass_at_k: Record<string, number>;
  final_pass_at_k: Record<string, number>;
  wall_time: number;
}

export async function runTraining(o: TrainingRunOptions): Promise<TrainingRunResult> {
  const path = o.modelPath ?? shippedFor(o.user.task ?? resolveWithRecipe(o.user, null).task);
  const { manifest: base, weights } = readCheckpoint(path);
  const config = resolveWithRecipe(o.user, base);
  const policy = await Policy.create(o.backend, base.model, base.layout, weights);
  try {
    const trainer = await Trainer.create(policy, config);
    mkdirSync(o.out, { recursive: true });
    writeFileSync(join(o.out, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    const metricsPath = join(o.out, 'metrics.jsonl');
    const rolloutsPath = join(o.out, 'rollouts.jsonl');
    writeFileSync(metricsPath, '');
    writeFileSync(rolloutsPath, '');
    const t0 = performance.now();
    const latest: { pass_at_k: Record<string, number> | null } = { pass_at_k: null };
    const evalNow = async () => (latest.pass_at_k = (await trainer.evaluate()).pass_at_k);
    const initial = await evalNow();
    appendFileSync(metricsPath, JSON.stringify({ step: -1, eval: initial, wall_time: 0 }) + '\n');
    for (let s = 0; s < o.steps; s++) {
      const r = await trainer.trainStep();
      const line: Record<string, unknown> = { ...r.metrics, difficulty: r.difficulty, advantage_histogram: r.advantageHistogram };
      const final = s === o.steps - 1;
      if (config.eval_every > 0 && ((s + 1) % config.eval_every === 0 || final)) line.eval = await evalNow();
      line.wall_time = (performance.now() - t0) / 1000;
      appendFileSync(metricsPath, JSON.stringify(line) + '\n');
      if (o.rollouts === 'all' || (o.rollouts === 'last' && final)) appendFileSync(rolloutsPath, r.rollouts.map((x) => JSON.stringify(x)).join('\n') + '\n');
      o.onStep?.(s + 1, o.steps, `reward ${(r.metrics.reward ?? 0).toFixed(3)} acc ${(r.metrics.accuracy ?? 0).toFixed(2)}${latest.pass_at_k ? ` pass@1 ${(latest.pass_at_k['1'] ?? 0).toFixed(3)}` : ''}${r.skipped ? ' (skipped: non-finite)' : ''}`);
    }
    const finalPass = config.eval_every > 0 && latest.pass_at_k ? latest.pass_at_k : await evalNow();
    const { rl_gain: _gain, ...inherited } = base;
    const manifest: Manifest = {
      ...inherited,
      name: `${base.name}+${o.label}`,
      layout: policy.layout,
      tasks: [{ task: config.task, difficulty: trainer.difficulty, pass_at_k: finalPass, eval: { prompts: config.eval_prompts, n: config.num_generations, seed: config.seed } }],
      training: { kind: 'rl', command: o.command, seed: config.seed, steps: o.steps, trained_on: [{ task: config.task, difficulty: trainer.difficulty }] },
      created: new Date().toISOString().slice(0, 10),
    };
    writeCheckpoint(o.out, manifest, await policy.getWeights());
    return { out: o.out, steps: o.steps, config, base: { path, manifest: base }, initial_pass_at_k: initial, final_pass_at_k: finalPass, wall_time: (performance.now() - t0) / 1000 };
  } finally {
    await policy.dispose();
  }
}
