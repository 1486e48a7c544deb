import { readFile } from 'node:fs/promises';
import { flag, flagUsage, intFlag, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { parseDataset, VERIFIER_KINDS, type VerifierKind } from '../../tasks/dataset.ts';
import { makeCustomFamily } from '../../tasks/families/custom.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import type { Difficulty } from '../../tasks/types.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = {
  task: { value: 'T', help: 'task id (see rlvr tasks)' },
  seed: { value: 'S', help: 'instance seed' },
  difficulty: {
    value: 'JSON',
    help: 'knobs as JSON, e.g. \'{"digits":4}\'; unset knobs take their defaults (see rlvr tasks)',
  },
  dataset: { value: 'FILE.jsonl', help: 'with --task custom: {"prompt", "answer"} lines to sample from' },
  verifier: { value: 'exact|numeric|regex', help: 'with --dataset: how answers are judged (default exact)' },
  tolerance: { value: 'X', help: 'with --verifier numeric: the accepted absolute error' },
};

export const sampleCommand: Command = {
  name: 'sample',
  summary: 'print one generated task instance as JSON',
  help: [
    'usage: rlvr sample --task T --seed S [--difficulty JSON]',
    '       rlvr sample --task custom --seed S --dataset FILE.jsonl [--verifier exact|numeric|regex] [--tolerance X]',
    '',
    'Prints one instance as one JSON object: task, seed, difficulty, prompt, reference (a full',
    'completion that scores full reward), answer and data. Pass the output to "rlvr verify".',
    flagUsage(FLAGS),
  ].join('\n'),
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const args = parseFlags(argv, FLAGS);
    const task = requireFlag(args, 'task');
    const seed = intFlag(args, 'seed');
    let difficulty: Partial<Difficulty> | undefined;
    const dj = flag(args, 'difficulty');
    if (dj !== undefined) {
      try {
        difficulty = JSON.parse(dj) as Partial<Difficulty>;
      } catch {
        throw new UsageError(`--difficulty must be a JSON object, got ${dj}`);
      }
      if (typeof difficulty !== 'object' || difficulty === null || Array.isArray(difficulty))
        throw new UsageError('--difficulty must be a JSON object');
    }
    let family = getTaskFamily(task);
    const datasetPath = flag(args, 'dataset');
    if (task === 'custom') {
      if (!datasetPath) throw new UsageError('--task custom needs --dataset FILE.jsonl');
      const kind = (flag(args, 'verifier') ?? 'exact') as VerifierKind;
      if (!VERIFIER_KINDS.includes(kind))
        throw new UsageError(`--verifier must be one of ${VERIFIER_KINDS.join(', ')}`);
      const tol = flag(args, 'tolerance');
      const tolerance = tol === undefined ? undefined : Number(tol);
      if (tolerance !== undefined && !(tolerance >= 0)) throw new UsageError('--tolerance must be a number >= 0');
      const ds = parseDataset(await readFile(datasetPath, 'utf8'));
      for (const e of ds.errors) process.stderr.write(`${datasetPath}:${e.line}: ${e.reason}\n`);
      family = makeCustomFamily(ds, { kind, ...(tolerance === undefined ? {} : { tolerance }) });
    } else if (datasetPath) {
      throw new UsageError('--dataset is only for --task custom');
    }
    const instance = family.generate(seed, difficulty);
    process.stdout.write(JSON.stringify(instance) + '\n');
    return 0;
  },
};
