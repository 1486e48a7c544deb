import { readFile } from 'node:fs/promises';
import { flag, flagUsage, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { countTokens } from '../../tasks/format.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import { shapeReward } from '../../tasks/reward.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = {
  task: { value: 'T', help: 'task id of the instance' },
  instance: { value: 'FILE', help: 'the JSON that "rlvr sample" printed' },
  completion: { value: 'FILE', help: 'the completion, raw text' },
  leaky: { help: "use the family's leaky verifier (reward-hacking lessons)" },
  'sort-metric': { value: 'exact|kendall', help: 'how sort answers are scored (default exact)' },
  'max-length': { value: 'N', help: 'token cap for the DAPO overlong term (default: no overlong term)' },
};

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'judge a completion against an instance printed by "rlvr sample"',
  help: [
    'usage: rlvr verify --task T --instance FILE --completion FILE [--leaky] [--sort-metric ' +
      'exact|kendall] [--max-length N]',
    '',
    'FILE for --instance is the JSON that "rlvr sample" printed; --completion is raw text.',
    'Prints one JSON object: reward (total with the default weights), components (weighted terms),',
    "raw (the verifier's components), correct and reason. Exit 0 whenever it could judge.",
    flagUsage(FLAGS),
  ].join('\n'),
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const args = parseFlags(argv, FLAGS);
    const family = getTaskFamily(requireFlag(args, 'task'));
    const instancePath = requireFlag(args, 'instance');
    const completionPath = requireFlag(args, 'completion');
    const metric = flag(args, 'sort-metric');
    if (metric !== undefined && metric !== 'exact' && metric !== 'kendall')
      throw new UsageError('--sort-metric must be exact or kendall');
    const maxLenFlag = flag(args, 'max-length');
    const maxLength = maxLenFlag === undefined ? undefined : Number(maxLenFlag);
    if (maxLength !== undefined && !(Number.isInteger(maxLength) && maxLength > 0))
      throw new UsageError('--max-length must be a positive integer');

    let text: string;
    try {
      text = await readFile(instancePath, 'utf8');
    } catch (err) {
      throw new Error(`cannot read instance file ${instancePath}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`instance file ${instancePath} is not JSON (expected the output of "rlvr sample")`);
    }
    let instance;
    try {
      instance = family.parseInstance(json);
    } catch (err) {
      throw new Error(`invalid instance in ${instancePath}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let completion: string;
    try {
      completion = await readFile(completionPath, 'utf8');
    } catch (err) {
      throw new Error(
        `cannot read completion file ${completionPath}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const leaky = flag(args, 'leaky') !== undefined;
    if (leaky && !family.leakyVerify) throw new UsageError(`task ${family.id} has no leaky verifier`);
    const opts = metric ? { sortMetric: metric as 'exact' | 'kendall' } : undefined;
    const verdict = leaky ? family.leakyVerify!(instance, completion, opts) : family.verify(instance, completion, opts);
    const length = countTokens(completion);
    const shaped = shapeReward(verdict, {
      completionLength: length,
      maxLength: maxLength ?? Math.max(length, 1),
      ...(maxLength === undefined
        ? {}
        : { overlong: { enabled: true, cacheLength: Math.min(16, maxLength), penalty: 1 } }),
    });
    const out = {
      task: family.id,
      reward: shaped.total,
      correct: verdict.correct,
      reason: verdict.reason,
      components: shaped.components,
      raw: verdict.components,
      completionTokens: length,
      leaky,
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  },
};
