/**
 * One headless training run, as `rlvr train` and `rlvr sweep` do it: the run pipeline of
 * src/rl/run.ts (the same one the worker's session drives), with files in and out.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { wrongFileMessage } from '../util/file-kind.ts';
import { dirname, join } from 'node:path';
import type { Backend } from '../engine/backend.ts';
import { readCheckpoint, writeCheckpoint } from '../node/checkpoint-files.ts';
import type { Manifest } from '../model/checkpoint.ts';
import { ConfigError, parseAssignment, type RunConfig } from '../rl/config.ts';
import { parseRunConfigFile } from '../rl/config-file.ts';
import { getPreset } from '../rl/presets.ts';
import {
  resolveConfig,
  taskOf,
  type ConfigInputs,
  type ConfigLayer,
  type ResolvedConfig,
} from '../rl/resolve-config.ts';
import { TrainingRun, type EvalPoint } from '../rl/run.ts';
import { RunRecorder } from '../record/run-record.ts';
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
 * `key=value` assignments as one sparse layer: dotted keys (reward_weights.format, difficulty.digits) set only that
 * part.
 */
function assignmentLayer(assignments: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of assignments) {
    const [key, value] = parseAssignment(a);
    const parts = key.split('.');
    let obj = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof obj[p] !== 'object' || obj[p] === null) obj[p] = {};
      obj = obj[p] as Record<string, unknown>;
    }
    obj[parts[parts.length - 1]!] = value;
  }
  return out;
}

/**
 * What the user chose, as the resolver's layers (src/rl/resolve-config.ts): the preset, then the
 * config file, then --set, then --task/--seed. The file is the playground's config file format
 * (src/rl/config-file.ts); its optional "preset" is used when --preset is not given, and a --preset
 * that names another preset is an error (the file's fields were written over its own preset).
 */
export function userConfigInputs(opts: UserConfigSources): ConfigInputs {
  let preset = opts.preset;
  const layers: ConfigLayer[] = [];
  if (opts.file) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(opts.file);
    } catch (e) {
      throw new ConfigError('--config', `cannot read ${opts.file}: ${(e as Error).message}`);
    }
    // TRL's trainer_state.json, a Parquet log, ...: named for what it is, not as a config with bad fields.
    const wrong = wrongFileMessage(opts.file, bytes, 'a run config', 'cli');
    if (wrong) throw new ConfigError('--config', wrong);
    const text = new TextDecoder('utf-8').decode(bytes);
    const file = parseRunConfigFile(text, opts.file);
    if (file.preset && opts.preset && file.preset !== opts.preset) {
      throw new ConfigError(
        '--preset',
        `${opts.preset} disagrees with "preset": "${file.preset}" in ${opts.file}; give one of them`,
      );
    }
    preset = opts.preset ?? file.preset;
    layers.push({ source: { kind: 'config file', file: opts.file }, values: file.fields });
  }
  if (opts.sets.length) layers.push({ source: { kind: 'flag', flag: '--set' }, values: assignmentLayer(opts.sets) });
  if (opts.task) layers.push({ source: { kind: 'flag', flag: '--task' }, values: { task: opts.task } });
  if (opts.seed !== undefined) layers.push({ source: { kind: 'flag', flag: '--seed' }, values: { seed: opts.seed } });
  // an unknown preset is the user's error, named before any checkpoint is read
  if (preset !== undefined) getPreset(preset);
  return { ...(preset === undefined ? {} : { preset }), layers };
}

/**
 * The base checkpoint the user's choices start from (`model`, else the task's shipped one), and the run config over its
 * recipe.
 */
export function resolveOverBase(
  user: ConfigInputs,
  model?: string,
): { path: string; checkpoint: ReturnType<typeof readCheckpoint>; resolved: ResolvedConfig; config: RunConfig } {
  const path = model ?? shippedFor(taskOf(user));
  const checkpoint = readCheckpoint(path);
  const resolved = resolveConfig({ ...user, manifest: checkpoint.manifest });
  const first = resolved.errors[0];
  if (first) throw new ConfigError(first.field, first.message);
  return { path, checkpoint, resolved, config: resolved.config };
}

export interface TrainingRunOptions {
  user: ConfigInputs;
  /** Base checkpoint manifest (default: the shipped one for the task). */
  modelPath?: string;
  steps: number;
  out: string;
  rollouts: 'all' | 'last' | 'none';
  /**
   * Also write a run record (src/record/run-record.ts) to `path`: every step's rollouts, and checkpoints after these
   * step numbers (0 = the base).
   */
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

/**
 * An evaluation's standard error of pass@1 as metrics.jsonl carries it (src/ui/state/exporters.ts writes the
 * same key).
 */
const seField = (e: EvalPoint) => (e.pass1_se === undefined ? {} : { eval_pass1_se: e.pass1_se });

/**
 * The run pipeline of src/rl/run.ts with files: metrics.jsonl (steps numbered by updates done; step 0 = the base's
 * evaluation), rollouts.jsonl, config.json, the checkpoint.
 */
export async function runTraining(o: TrainingRunOptions): Promise<TrainingRunResult> {
  const { path, checkpoint: base, config } = resolveOverBase(o.user, o.modelPath);
  const run = await TrainingRun.create(o.backend, base, config);
  try {
    mkdirSync(o.out, { recursive: true });
    writeFileSync(join(o.out, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    const metricsPath = join(o.out, 'metrics.jsonl');
    const rolloutsPath = join(o.out, 'rollouts.jsonl');
    writeFileSync(metricsPath, '');
    writeFileSync(rolloutsPath, '');
    // The run record: the same writer the worker's Keep & share and `rlvr lesson run` use.
    const recorder = o.record
      ? new RunRecorder(config, {
          writer: 'rlvr train',
          command: o.command,
          created: new Date().toISOString(),
          base: { name: base.manifest.name, manifest: base.manifest },
        })
      : null;
    const checkpointAt = async (step: number) => {
      if (!recorder || !o.record!.checkpointSteps.includes(step)) return;
      const name = step === 0 ? base.manifest.name : `${base.manifest.name}+${o.label}-step${step}`;
      recorder.addCheckpoint(
        step,
        step === 0 ? base.manifest : run.trainedManifest(name, o.command),
        await run.weightBytes(name),
      );
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
      for (const e of evals)
        if (e.step < step)
          appendFileSync(
            metricsPath,
            JSON.stringify({ step: e.step, eval: e.pass_at_k, ...seField(e), wall_time: seconds() }) + '\n',
          );
      const line: Record<string, unknown> = {
        ...r.metrics,
        difficulty: r.difficulty,
        advantage_histogram: r.advantageHistogram,
      };
      const after = evals.find((e) => e.step === step);
      if (after) Object.assign(line, { eval: after.pass_at_k, ...seField(after) });
      line.wall_time = seconds();
      appendFileSync(metricsPath, JSON.stringify(line) + '\n');
      if (o.rollouts === 'all' || (o.rollouts === 'last' && step === o.steps))
        appendFileSync(rolloutsPath, r.rollouts.map((x) => JSON.stringify(x)).join('\n') + '\n');
      const last = run.evals[run.evals.length - 1];
      o.onStep?.(
        step,
        o.steps,
        `reward ${(r.metrics.reward ?? 0).toFixed(3)} acc ${(r.metrics.accuracy ?? 0).toFixed(2)}` +
          `${last ? ` pass@1 ${(last.pass_at_k['1'] ?? 0).toFixed(3)}` : ''}` +
          `${r.skipped ? ' (skipped: non-finite)' : ''}`,
      );
    }
    const manifest = run.trainedManifest(`${base.manifest.name}+${o.label}`, o.command);
    writeCheckpoint(o.out, manifest, await run.policy.getWeights(), run.base.tokenizerFiles);
    let record: TrainingRunResult['record'];
    if (recorder && o.record) {
      const bytes = await recorder.encode();
      mkdirSync(dirname(o.record.path), { recursive: true });
      writeFileSync(o.record.path, bytes);
      record = { path: o.record.path, bytes: bytes.length };
    }
    const at = (step: number) => run.evals.find((e) => e.step === step)?.pass_at_k ?? null;
    return {
      out: o.out,
      steps: o.steps,
      config,
      base: { path, manifest: base.manifest },
      initial_pass_at_k: at(0),
      final_pass_at_k: at(o.steps),
      wall_time: seconds(),
      ...(record ? { record } : {}),
    };
  } finally {
    await run.dispose();
  }
}
