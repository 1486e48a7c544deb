import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Manifest } from '../../model/checkpoint.ts';
import { applyAssignments, ConfigError, defaultConfig, validateConfig, type RunConfig } from '../../rl/config.ts';
import { parseRunConfigFile } from '../../rl/config-file.ts';
import { getPreset } from '../../rl/presets.ts';
import { Trainer } from '../../rl/trainer.ts';
import { checkKnownFlags, flag, intFlag, parseArgs, requireFlag, UsageError } from '../args.ts';
import { loadPolicy, writeCheckpoint } from '../checkpoint-files.ts';
import { ProgressBar } from '../progress.ts';
import { shippedFor } from '../shipped.ts';
import type { Command } from './command.ts';
import { backendFromFlags } from '../backend-flag.ts';

const help = `rlvr train --task T --preset P --steps N --seed S --out DIR [flags]
Runs the GRPO-family trainer on onnxruntime-node and writes, in DIR:
  metrics.jsonl (one line per step), rollouts.jsonl, config.json, model.safetensors, manifest.json
  --preset P         grpo | dr_grpo | dapo | gspo | lite_ppo | rloo | w_reinforce | psr_only | nsr_only
  --set key=value    override any config field (repeatable; dotted keys for nested fields, e.g. difficulty.digits=2)
  --config FILE      a config file (the playground's format: config fields, optionally "preset"; applied
                     after the preset, before --set; --preset must agree with the file's preset)
  --model MANIFEST   base checkpoint (default: the shipped one for the task)
  --rollouts all|last|none  which steps' rollouts to write (default all)
  --backend node|wasm  onnxruntime-node (default) or onnxruntime-web's WASM EP in Node
  --threads N        intra-op threads (default: all cores on node, 1 on wasm)`;

/**
 * Resolves defaults ← preset ← config file ← --set ← --task/--seed, then validates. The file is the
 * playground's config file format (src/rl/config-file.ts); its optional "preset" is used when
 * --preset is not given, and a --preset that names another preset is an error (the file's fields
 * were written over its own preset).
 */
export function resolveRunConfig(opts: { preset?: string; file?: string; sets: string[]; task?: string; seed?: number }): RunConfig {
  let patch: Record<string, unknown> = {};
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
  if (preset) patch = { ...getPreset(preset).config };
  patch = { ...patch, ...fields };
  patch = applyAssignments(patch, opts.sets);
  if (opts.task) patch.task = opts.task;
  if (opts.seed !== undefined) patch.seed = opts.seed;
  return validateConfig(patch, defaultConfig);
}

export const trainCommand: Command = {
  name: 'train',
  summary: 'run GRPO-family RL headlessly (onnxruntime-node), writing metrics, rollouts and a checkpoint',
  help,
  async run(argv) {
    const a = parseArgs(argv);
    checkKnownFlags(a, ['task', 'preset', 'set', 'config', 'steps', 'seed', 'out', 'model', 'rollouts', 'threads', 'backend']);
    const out = resolve(requireFlag(a, 'out'));
    const steps = intFlag(a, 'steps');
    if (steps < 1) throw new UsageError('--steps must be at least 1');
    let config: RunConfig;
    try {
      config = resolveRunConfig({ preset: flag(a, 'preset'), file: flag(a, 'config'), sets: a.flags.get('set') ?? [], task: flag(a, 'task'), seed: a.flags.has('seed') ? intFlag(a, 'seed') : undefined });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const rolloutsMode = flag(a, 'rollouts') ?? 'all';
    if (!['all', 'last', 'none'].includes(rolloutsMode)) throw new UsageError('--rollouts must be all, last or none');
    const modelPath = flag(a, 'model') ?? shippedFor(config.task);
    const { manifest: base, policy } = await loadPolicy(modelPath, backendFromFlags(a));
    // Unless told otherwise, RL runs at the difficulty the base checkpoint's pass@k was measured at.
    const measured = base.tasks.find((t) => t.task === config.task);
    if (measured && Object.keys(config.difficulty).length === 0) config = { ...config, difficulty: measured.difficulty };
    const trainer = await Trainer.create(policy, config);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    const metricsPath = join(out, 'metrics.jsonl');
    const rolloutsPath = join(out, 'rollouts.jsonl');
    writeFileSync(metricsPath, '');
    writeFileSync(rolloutsPath, '');
    const bar = new ProgressBar('train', steps);
    const t0 = performance.now();
    const evalState: { last: Record<string, number> | null } = { last: null };
    const evalNow = async () => {
      const r = await trainer.evaluate();
      evalState.last = r.pass_at_k;
      return r.pass_at_k;
    };
    const initial = await evalNow();
    appendFileSync(metricsPath, JSON.stringify({ step: -1, eval: initial, wall_time: 0 }) + '\n');
    for (let s = 0; s < steps; s++) {
      const r = await trainer.trainStep();
      const line: Record<string, unknown> = { ...r.metrics, difficulty: r.difficulty, advantage_histogram: r.advantageHistogram };
      const last = s === steps - 1;
      if (config.eval_every > 0 && ((s + 1) % config.eval_every === 0 || last)) line.eval = await evalNow();
      line.wall_time = (performance.now() - t0) / 1000;
      appendFileSync(metricsPath, JSON.stringify(line) + '\n');
      if (rolloutsMode === 'all' || (rolloutsMode === 'last' && last)) appendFileSync(rolloutsPath, r.rollouts.map((x) => JSON.stringify(x)).join('\n') + '\n');
      bar.update(s + 1, `reward ${(r.metrics.reward ?? 0).toFixed(3)} acc ${(r.metrics.accuracy ?? 0).toFixed(2)}${evalState.last ? ` pass@1 ${(evalState.last['1'] ?? 0).toFixed(3)}` : ''}${r.skipped ? ' (skipped: non-finite)' : ''}`);
    }
    const final = evalState.last ?? (await evalNow());
    const manifest: Manifest = {
      ...base,
      name: `${base.name}+${flag(a, 'preset') ?? 'rl'}`,
      layout: policy.layout,
      tasks: [{ task: config.task, difficulty: trainer.difficulty, pass_at_k: final, eval: { prompts: config.eval_prompts, n: config.num_generations, seed: config.seed } }],
      training: { kind: 'rl', command: `rlvr train ${argv.join(' ')}`, seed: config.seed, steps, trained_on: [{ task: config.task, difficulty: trainer.difficulty }] },
      created: new Date().toISOString().slice(0, 10),
    };
    writeCheckpoint(out, manifest, await policy.getWeights());
    process.stdout.write(JSON.stringify({ out, steps, initial_pass_at_k: initial, final_pass_at_k: final, wall_time: (performance.now() - t0) / 1000 }) + '\n');
    await policy.dispose();
    return 0;
  },
};
