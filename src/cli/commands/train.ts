import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { VERIFIER_KINDS, type VerifierKind } from '../../tasks/dataset.ts';
import { loadTrainingDataset } from '../../tasks/dataset-load.ts';
import { bindCustomFamily } from '../../tasks/registry.ts';
import { shippedManifests } from '../shipped.ts';
import { ConfigError } from '../../rl/config.ts';
import { parseRunConfigFile } from '../../rl/config-file.ts';
import { setFlagHelp } from '../../rl/config-doc.ts';
import { presets } from '../../rl/presets.ts';
import { flag, flagUsage, intFlag, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { ProgressBar } from '../progress.ts';
import { resolveOverBase, runTraining, userConfigInputs } from '../training-run.ts';
import {
  explainRows,
  sourceText,
  taskOf,
  type ConfigInputs,
  type ConfigLayer,
  type Source,
} from '../../rl/resolve-config.ts';
import type { Command } from './command.ts';
import { BACKEND_FLAGS, backendFromFlags } from '../backend-flag.ts';

const FLAGS: FlagTable = {
  task: { value: 'T', help: 'task id (or custom, with --dataset)' },
  preset: { value: 'P', help: presets.map((p) => p.id).join(' | ') },
  set: {
    value: 'key=value',
    help: 'override any config field (repeatable; dotted keys for nested fields, e.g. difficulty.digits=2)',
  },
  config: {
    value: 'FILE',
    help:
      'a config file (the playground\'s format: config fields, optionally "preset"; applied\n' +
      "after the preset, before --set; --preset must agree with the file's preset)",
  },
  steps: { value: 'N', help: 'RL steps' },
  seed: { value: 'S', help: 'the run seed' },
  out: { value: 'DIR', help: 'the folder to write' },
  dataset: {
    value: 'FILE.jsonl',
    help:
      'train on your own {"prompt", "answer"} lines (the custom task; bad lines are\n' +
      'reported as FILE:LINE: reason and skipped); base checkpoint: the first shipped one.\n' +
      'Without it, a --config file\'s embedded "dataset" (the playground\'s Save config) is used',
  },
  verifier: { value: 'exact|numeric|regex', help: 'with --dataset: how answers are judged (default exact)' },
  tolerance: { value: 'X', help: 'with --verifier numeric: the accepted absolute error' },
  model: {
    value: 'MANIFEST',
    help:
      'base checkpoint (default: the shipped one for the task); its recipe (difficulty and\n' +
      'recommended knobs, see rlvr models) applies to every field you do not set',
  },
  'explain-config': {
    help:
      'print every field of the resolved config, one line each: name, value (JSON) and where\n' +
      'it came from (default, recipe of CHECKPOINT, preset P, config file, --set, flag --task,\n' +
      'flag --seed), then exit without training (--out and --steps are not needed)',
  },
  rollouts: { value: 'all|last|none', help: "which steps' rollouts to write (default all)" },
  record: {
    value: 'FILE',
    help:
      'also write the whole run as one run record (gzip; open it in the playground with no\n' +
      "training): the resolved config and base, every step's metrics, the evaluations and\n" +
      "every step's rollouts with their per-token channels. Name it FILE.rlvr.gz",
  },
  'record-checkpoints': {
    value: 'S,S,...',
    help:
      'with --record: also keep the weights after these steps (0 = the base),\n' +
      "e.g. 0,100,200 (each adds the model's safetensors to the record)",
  },
  ...BACKEND_FLAGS,
};

const help = `rlvr train --task T --preset P --steps N --seed S --out DIR [flags]
Runs the GRPO-family trainer on onnxruntime-node and writes, in DIR:
  metrics.jsonl (one line per step, numbered by updates done: line {"step":0,"eval":…} is the base's
  held-out pass@k, the first update is step 1), rollouts.jsonl, config.json, model.safetensors, manifest.json
${flagUsage(FLAGS)}

${setFlagHelp()}`;

export const trainCommand: Command = {
  name: 'train',
  summary: 'run GRPO-family RL headlessly (onnxruntime-node), writing metrics, rollouts and a checkpoint',
  help,
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    const explain = flag(a, 'explain-config') === 'true';
    let user: ConfigInputs;
    try {
      user = userConfigInputs({
        preset: flag(a, 'preset'),
        file: flag(a, 'config'),
        sets: a.flags.get('set') ?? [],
        task: flag(a, 'task'),
        seed: a.flags.has('seed') ? intFlag(a, 'seed') : undefined,
      });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    let modelPath = flag(a, 'model');
    const datasetPath = flag(a, 'dataset');
    const configPath = flag(a, 'config');
    const carried =
      !datasetPath && configPath
        ? parseRunConfigFile(await readFile(configPath, 'utf8'), configPath).dataset
        : undefined;
    if (carried) {
      if (flag(a, 'verifier') !== undefined || flag(a, 'tolerance') !== undefined)
        throw new UsageError(
          `--verifier and --tolerance are for --dataset; ${configPath}'s embedded dataset names its own verifier`,
        );
      if (carried.text === undefined)
        throw new UsageError(
          `${configPath} names the dataset ${carried.name} without embedding ` +
            `it${carried.note ? ` (${carried.note})` : ''}: give it with --dataset ${carried.name}`,
        );
      let loaded;
      try {
        loaded = loadTrainingDataset({ name: carried.name, text: carried.text, verifier: carried.verifier });
      } catch (e) {
        throw new UsageError(`${configPath}: the embedded dataset ${carried.name}: ${(e as Error).message}`);
      }
      for (const e of loaded.dataset.errors)
        process.stderr.write(`${configPath} (dataset ${carried.name}):${e.line}: ${e.reason}\n`);
      bindCustomFamily(loaded.family);
      user = { ...user, layers: [...(user.layers ?? []), customTask('--config')] };
      modelPath ??= shippedManifests()[0]?.path;
    } else if (datasetPath) {
      const task = taskOf(user);
      if (user.layers?.some((l) => 'task' in l.values) && task !== 'custom')
        throw new UsageError(`--dataset trains the custom task; the config says task "${task}"`);
      const kind = (flag(a, 'verifier') ?? 'exact') as VerifierKind;
      if (!VERIFIER_KINDS.includes(kind))
        throw new UsageError(`--verifier must be one of ${VERIFIER_KINDS.join(', ')}`);
      const tol = flag(a, 'tolerance');
      const tolerance = tol === undefined ? undefined : Number(tol);
      if (tolerance !== undefined && !(tolerance >= 0)) throw new UsageError('--tolerance must be a number >= 0');
      let loaded;
      try {
        loaded = loadTrainingDataset({
          name: datasetPath,
          text: await readFile(datasetPath, 'utf8'),
          verifier: { kind, ...(tolerance === undefined ? {} : { tolerance }) },
        });
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      for (const e of loaded.dataset.errors) process.stderr.write(`${datasetPath}:${e.line}: ${e.reason}\n`);
      bindCustomFamily(loaded.family);
      user = { ...user, layers: [...(user.layers ?? []), customTask('--dataset')] };
      // No checkpoint lists the custom task; the playground starts from the first shipped one too.
      modelPath ??= shippedManifests()[0]?.path;
    } else if (taskOf(user) === 'custom') {
      throw new UsageError('the custom task needs --dataset FILE.jsonl');
    } else if (flag(a, 'verifier') !== undefined || flag(a, 'tolerance') !== undefined) {
      throw new UsageError('--verifier and --tolerance are for --dataset');
    }
    if (explain) {
      let rows;
      try {
        rows = explainRows(resolveOverBase(user, modelPath).resolved);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      process.stdout.write(explainTable(rows));
      return 0;
    }
    const out = resolve(requireFlag(a, 'out'));
    const steps = intFlag(a, 'steps');
    if (steps < 1) throw new UsageError('--steps must be at least 1');
    const rollouts = flag(a, 'rollouts') ?? 'all';
    if (rollouts !== 'all' && rollouts !== 'last' && rollouts !== 'none')
      throw new UsageError('--rollouts must be all, last or none');
    const record = recordFlags(flag(a, 'record'), flag(a, 'record-checkpoints'), steps);
    const bar = new ProgressBar('train', steps);
    let r;
    try {
      r = await runTraining({
        user,
        modelPath,
        steps,
        out,
        rollouts,
        ...(record ? { record } : {}),
        backend: backendFromFlags(a),
        label: flag(a, 'preset') ?? 'rl',
        command: `rlvr train ${argv.join(' ')}`,
        onStep: (done, _t, status) => bar.update(done, status),
      });
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
    process.stdout.write(
      JSON.stringify({
        out,
        steps,
        initial_pass_at_k: r.initial_pass_at_k,
        final_pass_at_k: r.final_pass_at_k,
        wall_time: r.wall_time,
        ...(r.record ? { record: r.record.path, record_bytes: r.record.bytes } : {}),
      }) + '\n',
    );
    return 0;
  },
};

/** The custom task chosen by a dataset (`--dataset FILE`, or a config file's embedded one). */
function customTask(flagName: string): ConfigLayer {
  return { source: { kind: 'flag', flag: flagName }, values: { task: 'custom' } };
}

/** `rlvr train --explain-config`: one line per field, its value and its source in words, in columns. */
export function explainTable(rows: { field: string; value: unknown; source: Source }[]): string {
  const text = rows.map((r) => [r.field, JSON.stringify(r.value), sourceText(r.source)] as const);
  const w0 = Math.max(...text.map((t) => t[0].length));
  const w1 = Math.max(...text.map((t) => t[1].length));
  return text.map(([f, v, s]) => `${f.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`).join('\n') + '\n';
}

/** --record FILE and --record-checkpoints S,S,... (step numbers between 0 and --steps). */
export function recordFlags(
  file: string | undefined,
  checkpoints: string | undefined,
  steps: number,
): { path: string; checkpointSteps: number[] } | null {
  if (file === undefined) {
    if (checkpoints !== undefined) throw new UsageError('--record-checkpoints needs --record FILE');
    return null;
  }
  const checkpointSteps = (checkpoints ?? '')
    .split(',')
    .filter((x) => x.trim() !== '')
    .map((x) => Number(x.trim()));
  for (const s of checkpointSteps)
    if (!Number.isInteger(s) || s < 0 || s > steps)
      throw new UsageError(
        `--record-checkpoints: each step must be a whole number from 0 to --steps (${steps}), got "${checkpoints}"`,
      );
  return { path: resolve(file), checkpointSteps };
}
