import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { encodeRunRecord, readRunRecord, thinRunRecord, type RunRecord } from '../../record/run-record.ts';
import { flagUsage, intFlag, parseArgs, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import type { Command } from './command.ts';

const INFO_FLAGS: FlagTable = {};
const THIN_FLAGS: FlagTable = {
  out: { value: 'OUT', help: 'the thinned record to write' },
  'rollouts-every': { value: 'N', help: "keep every N-th recorded step's rollouts (and the first and last)" },
};

const help = `rlvr record info FILE
  Says what a run record (rlvr train --record, rlvr lesson run, the page's Keep & share, a TRL run) holds:
  its writer, task, steps, which steps have rollouts, evaluations and checkpoints, as one JSON line.
rlvr record thin FILE --out OUT --rollouts-every N
  Writes the same run keeping the rollouts of every N-th recorded step (and the first and last); every
  step's metrics, the evaluations and the checkpoints are kept. The shipped lesson records are thinned
  so (scripts/record-lessons.sh).
${flagUsage(THIN_FLAGS)}`;

function read(path: string): Promise<{ record: RunRecord; notes: string[] }> {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`${path} does not exist`);
  }
  if (isFolder) {
    throw new UsageError(
      `${path} is a folder: give a run record file ` +
        `(.rlvr.gz, as rlvr train --record or the page's Keep & share write it); ` +
        `a TRL run folder opens in the page with "Open a run folder…"`,
    );
  }
  return readRunRecord(new Uint8Array(readFileSync(path))).catch((e: unknown) => {
    throw new Error(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  });
}

function summary(path: string, r: RunRecord, notes: string[]) {
  return {
    file: path,
    bytes: statSync(path).size,
    writer: r.provenance.writer,
    command: r.provenance.command,
    version: r.version,
    base: r.provenance.base.model
      ? { name: r.provenance.base.name, ...r.provenance.base.model }
      : { name: r.provenance.base.name },
    ...(r.provenance.lesson ? { lesson: r.provenance.lesson } : {}),
    ...(r.provenance.note ? { note: r.provenance.note } : {}),
    task: r.config.task,
    seed: r.config.seed,
    steps: r.steps.length,
    rollout_steps: r.rollouts.map((x) => x.step),
    rollouts: r.rollouts.reduce((a, x) => a + x.records.length, 0),
    evals: r.evals.map((e) => e.step),
    checkpoints: r.checkpoints.map((c) => c.step),
    ...(notes.length ? { notes } : {}),
  };
}

export const recordCommand: Command = {
  name: 'record',
  summary: 'inspect a run record (info) or keep fewer steps\u2019 rollouts in it (thin)',
  help,
  modes: [
    { argv: ['info', 'FILE'], flags: INFO_FLAGS },
    { argv: ['thin', 'FILE'], flags: THIN_FLAGS },
  ],
  async run(argv) {
    // Neither action has a flag without a value, so a plain read finds the action wherever it stands.
    const verb = parseArgs(argv).positional[0];
    const a = parseFlags(argv, verb === 'thin' ? THIN_FLAGS : INFO_FLAGS);
    const [, file, ...rest] = a.positional;
    if (rest.length)
      throw new UsageError(`one record at a time, got also ${rest.map((x) => JSON.stringify(x)).join(' ')}`);
    if (verb === 'info') {
      if (!file) throw new UsageError('expected: rlvr record info FILE');
      const { record, notes } = await read(file);
      process.stdout.write(JSON.stringify(summary(file, record, notes)) + '\n');
      return 0;
    }
    if (verb === 'thin') {
      if (!file) throw new UsageError('expected: rlvr record thin FILE --out OUT --rollouts-every N');
      const out = requireFlag(a, 'out');
      const every = intFlag(a, 'rollouts-every');
      if (every < 1) throw new UsageError(`--rollouts-every must be 1 or more, got ${every}`);
      const { record } = await read(file);
      writeFileSync(out, await encodeRunRecord(thinRunRecord(record, every)));
      const after = await read(out);
      process.stdout.write(
        JSON.stringify({ ...summary(out, after.record, after.notes), from: file, from_bytes: statSync(file).size }) +
          '\n',
      );
      return 0;
    }
    throw new UsageError('expected: rlvr record info FILE, or rlvr record thin FILE --out OUT --rollouts-every N');
  },
};
