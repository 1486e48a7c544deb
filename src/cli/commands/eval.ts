import { evaluatePassAtK } from '../../rl/evaluate.ts';
import { layoutFor } from '../../model/task-layout.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import { checkKnownFlags, flag, intFlag, parseArgs, requireFlag, UsageError } from '../args.ts';
import { loadPolicy } from '../checkpoint-files.ts';
import { ProgressBar } from '../progress.ts';
import type { Command } from './command.ts';
import { backendFromFlags } from '../backend-flag.ts';

const help = `rlvr eval --model MANIFEST --task T [--difficulty JSON] --prompts P --n N --k 1,2,4,8 --seed S
  Samples n completions for each of P held-out prompts (instance seeds 0..P-1) and prints one JSON
  object: {task, prompts, n, pass_at_k: {k: unbiased estimate}, difficulty, model}.
  --temperature X (1)  --max-new-tokens N (the checkpoint's completion length)`;

export const evalCommand: Command = {
  name: 'eval',
  summary: 'pass@k of a checkpoint on held-out prompts (unbiased estimator)',
  help,
  async run(argv) {
    const a = parseArgs(argv);
    checkKnownFlags(a, ['model', 'task', 'difficulty', 'prompts', 'n', 'k', 'seed', 'temperature', 'max-new-tokens', 'threads', 'backend']);
    const task = requireFlag(a, 'task');
    const fam = getTaskFamily(task);
    let difficulty: Record<string, number | string> = {};
    const d = flag(a, 'difficulty');
    if (d) {
      try {
        difficulty = JSON.parse(d);
      } catch {
        throw new UsageError(`--difficulty is not valid JSON: ${d}`);
      }
    }
    const n = intFlag(a, 'n', 16);
    const ks = (flag(a, 'k') ?? '1,8').split(',').map(Number);
    if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > n)) throw new UsageError(`--k values must be integers between 1 and --n (${n})`);
    const prompts = intFlag(a, 'prompts', 64);
    const { manifest, policy } = await loadPolicy(requireFlag(a, 'model'), backendFromFlags(a));
    const full = { ...fam.defaultDifficulty, ...difficulty };
    const needed = layoutFor([{ task, difficulty: full }]);
    policy.setLayout({ promptLen: Math.max(needed.promptLen, manifest.layout.promptLen), completionLen: manifest.layout.completionLen });
    const bar = new ProgressBar('eval', prompts * n);
    const r = await evaluatePassAtK(policy, {
      task,
      difficulty: full,
      prompts,
      n,
      ks,
      seed: intFlag(a, 'seed', 0),
      sampling: { temperature: Number(flag(a, 'temperature') ?? 1), topK: 0, topP: 1 },
      maxNewTokens: intFlag(a, 'max-new-tokens', manifest.layout.completionLen),
      onProgress: (done, total) => bar.update(done, `of ${total} samples`),
    });
    process.stdout.write(JSON.stringify({ task, prompts, n, pass_at_k: r.pass_at_k, difficulty: full, model: manifest.name }) + '\n');
    await policy.dispose();
    return 0;
  },
};
