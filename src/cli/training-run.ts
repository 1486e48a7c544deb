/**
 * One headless training run, as `rlvr train` and `rlvr sweep` do it: the run pipeline of
 * src/rl/run.ts (the same one the worker's session drives), with files in and out.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Backend } from '../engine/backend.ts';
import { readCheckpoint, writeCheckpoint } from './checkpoint-files.ts';
import type { Manifest } from '../model/checkpoint.ts';
import { applyAssignments, ConfigError, type RunConfig } from '../rl/config.ts';
import { parseRunConfigFile } from '../rl/config-file.ts';
import { getPreset } from '../rl/presets.ts';
import { resolveRunConfig as resolveOverRecipe, TrainingRun } from '../rl/run.ts';
import { RunRecorder } from '../rl/run-record.ts';
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

/** The base checkpoint the user's choices start from (`model`, else the task's shipped one), and the run config over its recipe. */
function resolveBase(user: Partial<RunConfig>, model?: string) {
  const path = model ?? shippedFor(user.task ?? resolveOverRecipe(user, null).task);
  const checkpoint = readCheckpoint(path);
  return { path, checkpoint, config: resolveOverRecipe(user, checkpoint.manifest) };
}

/** The run config `rlvr train` would use: the user's choices over the base checkpoint's recipe. */
export function resolveOverBase(user: Partial<RunConfig>, model?: string): RunConfig {
  return resolveBase(user, model).config;
}

export interface TrainingRunOptions {
  user: Partial<RunConfig>;
  /** Base checkpoint manifest (default: the shipped one for the task). */
  modelPath?: string;
  steps: number;
  out: string;
  rollouts: 'all' | 'last' | 'none';
  /** Also write a run record (src/rl/run-record.ts) to `path`: every step's rollouts, and checkpoints after these step numbers (0 = the base). */
  record?: { path: string; checkpointSteps: number[] };
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
  /** Held-out pass@k at step 0 and after the last step (null when eval_every is 0: nothing was evaluated). */
  initial_pass_at_k: Record<string, number> | null;
  final_pass_at_k: Record<string, number> | null;
  wall_time: number;
  /** The run record's path and size in bytes, when one was written. */
  record?: { path: string; bytes: number };
}

/** The run pipeline of src/rl/run.ts with files: metrics.jsonl (steps numbered by updates done; step 0 = the base's evaluation), rollouts.jsonl, config.json, the checkpoint. */
export async function runTraining(o: TrainingRunOptions): Promise<TrainingRunResult> {
  const { path, checkpoint: base, config } = resolveBase(o.user, o.modelPath);
  const run = await TrainingRun.create(o.backend, base, config);
  try {
    mkdirSync(o.out, { recursive: true });
    writeFileSync(join(o.out, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    const metricsPath = join(o.out, 'metrics.jsonl');
    const rolloutsPath = join(o.out, 'rollouts.jsonl');
    writeFileSync(metricsPath, '');
    writeFileSync(rolloutsPath, '');
    // The run record: the same writer the worker's Keep & share and `rlvr lesson run` use.
    const recorder = o.record ? new RunRecorder(config, { writer: 'rlvr train', command: o.command, created: new Date().toISOString(), base: { name: base.manifest.name, manifest: base.manifest } }) : null;
    const checkpointAt = async (step: number) => {
      if (!recorder || !o.record!.checkpointSteps.includes(step)) return;
      const name = step === 0 ? base.manifest.name : `${base.manifest.name}+${o.label}-step${step}`;
      recorder.addCheckpoint(step, step === 0 ? base.manifest : run.trainedManifest(name, o.command), await run.weightBytes(name));
    };
    await checkpointAt(0);
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    while (run.step < o.steps) {
      const { result: r, evals } = await run.advance(o.steps);
      const step = r.metrics.step;
      recorder?.addStep(r);
      for (const e of evals) recorder?.addEval(e);
      await checkpointAt(step);
      // An evaluation before this update (the base's, at step 0) gets its own line.
      for (const e of evals) if (e.step < step) appendFileSync(metricsPath, JSON.stringify({ step: e.step, eval: e.pass_at_k, wall_time: seconds() }) + '\n');
      const line: Record<string, unknown> = { ...r.metrics, difficulty: r.difficulty, advantage_histogram: r.advantageHistogram };
      const after = evals.find((e) => e.step === step);
      if (after) line.eval = after.pass_at_k;
      line.wall_time = seconds();
      appendFileSync(metricsPath, JSON.stringify(line) + '\n');
      if (o.rollouts === 'all' || (o.rollouts === 'last' && step === o.steps)) appendFileSync(rolloutsPath, r.rollouts.map((x) => JSON.stringify(x)).join('\n') + '\n');
      const last = run.evals[run.evals.length - 1];
      o.onStep?.(step, o.steps, `reward ${(r.metrics.reward ?? 0).toFixed(3)} acc ${(r.metrics.accuracy ?? 0).toFixed(2)}${last ? ` pass@1 ${(last.pass_at_k['1'] ?? 0).toFixed(3)}` : ''}${r.skipped ? ' (skipped: non-finite)' : ''}`);
    }
    const manifest = run.trainedManifest(`${base.manifest.name}+${o.label}`, o.command);
    writeCheckpoint(o.out, manifest, await run.policy.getWeights());
    let record: TrainingRunResult['record'];
    if (recorder && o.record) {
      const bytes = await recorder.encode();
      mkdirSync(dirname(o.record.path), { recursive: true });
      writeFileSync(o.record.path, bytes);
      record = { path: o.record.path, bytes: bytes.length };
    }
    const at = (step: number) => run.evals.find((e) => e.step === step)?.pass_at_k ?? null;
    return { out: o.out, steps: o.steps, config, base: { path, manifest: base.manifest }, initial_pass_at_k: at(0), final_pass_at_k: at(o.steps), wall_time: seconds(), ...(record ? { record } : {}) };
  } finally {
    await run.dispose();
  }
}
