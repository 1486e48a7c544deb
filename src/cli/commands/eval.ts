import { getTaskFamily } from '../../tasks/registry.ts';
import { flag, flagUsage, intFlag, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { heldOutPassAtK } from '../held-out.ts';
import { ProgressBar } from '../progress.ts';
import type { Command } from './command.ts';
import { BACKEND_FLAGS, backendFromFlags } from '../backend-flag.ts';

const FLAGS: FlagTable = {
  model: { value: 'MANIFEST', help: "the checkpoint's manifest.json" },
  task: { value: 'T', help: 'task id' },
  difficulty: {
    value: 'JSON',
    help:
      "knobs to override; the others are the checkpoint's recorded RL difficulty for the\n" +
      "task (its recipe, else where its pass@k was measured), then the family's defaults",
  },
  prompts: { value: 'P', help: 'held-out prompts (default 64)' },
  n: { value: 'N', help: 'samples per prompt (default 16)' },
  k: { value: 'LIST', help: 'k values, e.g. 1,2,4,8 (default 1 and min(8, n): 1,8 at the default n, 1,4 at --n 4)' },
  seed: { value: 'S', help: 'sampling seed (default 0)' },
  temperature: {
    value: 'X',
    help: "default: the checkpoint's recipe temperature (the one its RL gain is measured at), else 1",
  },
  'max-new-tokens': { value: 'N', help: "default: the checkpoint's completion length" },
  ...BACKEND_FLAGS,
};

const help = `rlvr eval --model MANIFEST --task T [flags]
  Samples n completions for each of P held-out prompts (instance seeds 0..P-1) and prints one JSON
  object: {task, prompts, n, pass_at_k: {k: unbiased estimate}, difficulty, temperature, model}.
${flagUsage(FLAGS)}`;

/** pass@k's default k list: 1 and 8, with 8 clipped to n so every n the sampler accepts has a valid default. */
export function defaultKs(n: number): number[] {
  return [...new Set([1, Math.min(8, n)])];
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'pass@k of a checkpoint on held-out prompts (unbiased estimator)',
  help,
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    const task = requireFlag(a, 'task');
    getTaskFamily(task); // an unknown task fails here, before any checkpoint is read
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
    if (n < 1) throw new UsageError(`--n must be at least 1, got ${n}`);
    const kFlag = flag(a, 'k');
    const ks = kFlag === undefined ? defaultKs(n) : kFlag.split(',').map(Number);
    if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > n))
      throw new UsageError(`--k values must be integers between 1 and --n (${n})`);
    const prompts = intFlag(a, 'prompts', 64);
    const temperature = a.flags.has('temperature') ? Number(flag(a, 'temperature')) : undefined;
    if (temperature !== undefined && !(temperature > 0))
      throw new UsageError(`--temperature must be a number above 0, got ${flag(a, 'temperature')}`);
    const bar = new ProgressBar('eval', prompts * n);
    const r = await heldOutPassAtK(requireFlag(a, 'model'), backendFromFlags(a), {
      task,
      difficulty,
      prompts,
      n,
      ks,
      seed: intFlag(a, 'seed', 0),
      temperature,
      maxNewTokens: a.flags.has('max-new-tokens') ? intFlag(a, 'max-new-tokens') : undefined,
      onProgress: (done, total) => bar.update(done, `of ${total} samples`),
    });
    process.stdout.write(
      JSON.stringify({
        task,
        prompts,
        n,
        pass_at_k: r.pass_at_k,
        difficulty: r.difficulty,
        temperature: r.temperature,
        model: r.manifest.name,
      }) + '\n',
    );
    return 0;
  },
};
