import { resolve } from 'node:path';
import { ConfigError } from '../../rl/config.ts';
import { checkKnownFlags, flag, intFlag, parseArgs, requireFlag, UsageError } from '../args.ts';
import { ProgressBar } from '../progress.ts';
import { runTraining, userConfigPatch } from '../training-run.ts';
import type { Command } from './command.ts';
import { backendFromFlags } from '../backend-flag.ts';

const help = `rlvr train --task T --preset P --steps N --seed S --out DIR [flags]
Runs the GRPO-family trainer on onnxruntime-node and writes, in DIR:
  metrics.jsonl (one line per step), rollouts.jsonl, config.json, model.safetensors, manifest.json
  --preset P         grpo | dr_grpo | dapo | gspo | lite_ppo | rloo | w_reinforce | psr_only | nsr_only
  --set key=value    override any config field (repeatable; dotted keys for nested fields, e.g. difficulty.digits=2)
  --config FILE      a config file (the playground's format: config fields, optionally "preset"; applied
                     after the preset, before --set; --preset must agree with the file's preset)
  --model MANIFEST   base checkpoint (default: the shipped one for the task); its recipe (difficulty and
                     recommended knobs, see rlvr models) applies to every field you do not set
  --rollouts all|last|none  which steps' rollouts to write (default all)
  --backend node|wasm  onnxruntime-node (default) or onnxruntime-web's WASM EP in Node
  --threads N        intra-op threads (default: all cores on node, 1 on wasm)`;

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
    const rollouts = flag(a, 'rollouts') ?? 'all';
    if (rollouts !== 'all' && rollouts !== 'last' && rollouts !== 'none') throw new UsageError('--rollouts must be all, last or none');
    let user;
    try {
      user = userConfigPatch({ preset: flag(a, 'preset'), file: flag(a, 'config'), sets: a.flags.get('set') ?? [], task: flag(a, 'task'), seed: a.flags.has('seed') ? intFlag(a, 'seed') : undefined });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const bar = new ProgressBar('train', steps);
    let r;
    try {
      r = await runTraining({ user, modelPath: flag(a, 'model'), steps, out, rollouts, backend: backendFromFlags(a), label: flag(a, 'preset') ?? 'rl', command: `rlvr train ${argv.join(' ')}`, onStep: (done, _t, status) => bar.update(done, status) });
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
    process.stdout.write(JSON.stringify({ out, steps, initial_pass_at_k: r.initial_pass_at_k, final_pass_at_k: r.final_pass_at_k, wall_time: r.wall_time }) + '\n');
    return 0;
  },
};
