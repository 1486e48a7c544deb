import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../rl/config.ts';
import type { ConfigInputs } from '../../rl/resolve-config.ts';
import { getPreset } from '../../rl/presets.ts';
import { flag, flagUsage, intFlag, parseFlags, requireFlag, UsageError, type FlagTable } from '../args.ts';
import { BACKEND_FLAGS, backendFromFlags } from '../backend-flag.ts';
import { heldOutPassAtK } from '../held-out.ts';
import { ProgressBar } from '../progress.ts';
import {
  expandGrid,
  markdownTable,
  parseGridAxis,
  parseRows,
  parseSeeds,
  pendingCells,
  SweepError,
  type SweepCell,
  type SweepRow,
} from '../sweep-grid.ts';
import { recordGain } from '../sweep-record.ts';
import { runTraining, userConfigInputs } from '../training-run.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = {
  task: { value: 'T', help: 'task id' },
  preset: { value: 'P', help: 'preset of every cell (default grpo)' },
  grid: {
    value: 'key=v1,v2',
    help: 'one axis of the grid (repeatable; dotted keys as in --set, e.g. difficulty.length=5,6)',
  },
  set: { value: 'key=value', help: 'a fixed override for every cell (repeatable)' },
  seeds: { value: '1,2,3', help: 'training seeds (default 1)' },
  steps: { value: 'N', help: 'RL steps per cell (default 200; use e.g. 60 for a pilot)' },
  'eval-prompts': { value: 'P', help: 'held-out prompts (default 64)' },
  'eval-n': { value: 'N', help: 'samples per prompt (default 16)' },
  'eval-seed': { value: 'S', help: 'sampling seed of the held-out evaluation (default 0)' },
  model: { value: 'MANIFEST', help: 'base checkpoint (default: the shipped one for the task)' },
  out: { value: 'DIR', help: 'the sweep folder (results.jsonl, results.md, cells/)' },
  'record-gain': { help: 'with no --grid: write the result into the base manifest as rl_gain (see rlvr models)' },
  backend: BACKEND_FLAGS.backend!,
  threads: { value: 'N', help: 'intra-op threads (default 1, so two sweeps can share two cores)' },
};

const help = `rlvr sweep --task T --preset P [--grid key=v1,v2 ...] [--seeds 1,2,3] --steps N --out DIR [flags]
Runs a grid of config values × seeds. Each cell is an \`rlvr train\` (from the base checkpoint and its
recipe, with the cell's values on top) followed by a held-out evaluation of the base and of the
trained model, all in this process. Writes, in DIR:
  results.jsonl   one row per finished cell: id, point, seed, pass_at_1/8 before and after, wall time
  results.md      a Markdown table: per grid point, mean and min over seeds
  cells/ID/       each cell's metrics.jsonl, config.json and checkpoint
It resumes: cells already in results.jsonl are skipped, so rerun the same command after a stop.
Two copies of the same command can run side by side (each takes cells the other has not locked).
${flagUsage(FLAGS)}`;

const cellDir = (id: string) => id.replace(/[^A-Za-z0-9._=,-]/g, '_');

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes a cell's lock unless a live process holds it. */
function tryLock(path: string): boolean {
  if (existsSync(path)) {
    const pid = Number(readFileSync(path, 'utf8'));
    if (Number.isInteger(pid) && pid !== process.pid && pidAlive(pid)) return false;
  }
  writeFileSync(path, String(process.pid));
  return true;
}

/**
 * One cell's config inputs: the sweep's preset, its fixed --set and the cell's grid values over them, --task and the
 * cell's seed (as rlvr train takes them).
 */
export function sweepCellInputs(o: { preset: string; sets: string[]; task: string; seed: number }): ConfigInputs {
  return userConfigInputs(o);
}

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'a grid of config values × seeds: train + held-out eval per cell, resumable, with a Markdown table',
  help,
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    const task = requireFlag(a, 'task');
    const preset = flag(a, 'preset') ?? 'grpo';
    const out = resolve(requireFlag(a, 'out'));
    const steps = intFlag(a, 'steps', 200);
    if (steps < 1) throw new UsageError('--steps must be at least 1');
    const evalSpec = {
      prompts: intFlag(a, 'eval-prompts', 64),
      n: intFlag(a, 'eval-n', 16),
      seed: intFlag(a, 'eval-seed', 0),
    };
    if (evalSpec.n < 8) throw new UsageError('--eval-n must be at least 8 (the table reports pass@8)');
    let cells: SweepCell[];
    try {
      getPreset(preset);
      cells = expandGrid((a.flags.get('grid') ?? []).map(parseGridAxis), parseSeeds(flag(a, 'seeds') ?? '1'));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const recordGainFlag = flag(a, 'record-gain') === 'true';
    if (recordGainFlag && a.flags.has('grid'))
      throw new UsageError('--record-gain records the recipe itself: leave out --grid');
    const fixed = a.flags.get('set') ?? [];
    const modelPath = flag(a, 'model');
    const backend = backendFromFlags(
      a.flags.has('threads') ? a : { ...a, flags: new Map([...a.flags, ['threads', ['1']]]) },
    );
    // Every cell's config must be valid before the first one trains for minutes.
    const patches = new Map<string, ConfigInputs>();
    try {
      for (const c of cells)
        patches.set(c.id, sweepCellInputs({ preset, sets: [...fixed, ...c.sets], task, seed: c.seed }));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    mkdirSync(join(out, 'cells'), { recursive: true });
    const resultsPath = join(out, 'results.jsonl');
    const readRows = () => (existsSync(resultsPath) ? parseRows(readFileSync(resultsPath, 'utf8')) : []);
    const title =
      `rlvr sweep --task ${task} --preset ${preset}${fixed.map((s) => ` --set ${s}`).join('')}` +
      `${(a.flags.get('grid') ?? []).map((g) => ` --grid ${g}`).join('')}`;
    const todo = pendingCells(
      cells,
      readRows().map((r) => r.id),
    );
    process.stderr.write(
      `sweep: ${cells.length} cells (${cells.length - todo.length} already finished), ${steps} steps ` +
        `each, into ${out}\n`,
    );
    const bar = new ProgressBar('sweep', todo.length * (steps + 1));
    const baseEvals = new Map<string, Record<string, number>>();
    let done = 0;
    for (const [i, cell] of todo.entries()) {
      const dir = join(out, 'cells', cellDir(cell.id));
      const lock = `${dir}.lock`;
      if (readRows().some((r) => r.id === cell.id) || !tryLock(lock)) {
        done += steps + 1;
        continue;
      }
      try {
        const label = `cell ${i + 1}/${todo.length} ${cell.id}`;
        bar.update(done, `${label}: training`);
        const r = await runTraining({
          user: patches.get(cell.id)!,
          modelPath,
          steps,
          out: dir,
          rollouts: 'none',
          backend,
          label: preset,
          command: `${title} (cell ${cell.id})`,
          onStep: (s, _t, status) => bar.update(done + s, `${label}: ${status}`),
        });
        // Measured at the temperature the cell samples at, before and after.
        const key = JSON.stringify([r.base.path, r.config.difficulty, r.config.temperature, evalSpec]);
        const heldOut = (path: string) =>
          heldOutPassAtK(path, backend, {
            task,
            difficulty: r.config.difficulty,
            temperature: r.config.temperature,
            ...evalSpec,
            ks: [1, 8],
          });
        bar.update(done + steps, `${label}: held-out evaluation`);
        if (!baseEvals.has(key)) baseEvals.set(key, (await heldOut(r.base.path)).pass_at_k);
        const before = baseEvals.get(key)!;
        const after = (await heldOut(join(dir, 'manifest.json'))).pass_at_k;
        const row: SweepRow = {
          id: cell.id,
          point: cell.point,
          seed: cell.seed,
          sets: cell.sets,
          task,
          preset,
          steps,
          difficulty: r.config.difficulty,
          eval: evalSpec,
          temperature: r.config.temperature,
          pass_at_1_before: before['1']!,
          pass_at_8_before: before['8']!,
          pass_at_1_after: after['1']!,
          pass_at_8_after: after['8']!,
          wall_time_s: r.wall_time,
          out: join('cells', cellDir(cell.id)),
          date: new Date().toISOString().slice(0, 10),
        };
        appendFileSync(resultsPath, JSON.stringify(row) + '\n');
        writeFileSync(join(out, 'results.md'), markdownTable(readRows(), title));
      } catch (e) {
        if (e instanceof ConfigError || e instanceof SweepError) throw new UsageError(`cell ${cell.id}: ${e.message}`);
        throw e;
      } finally {
        rmSync(lock, { force: true });
      }
      done += steps + 1;
      bar.update(done, `cell ${i + 1}/${todo.length} finished`);
    }
    const rows = readRows();
    writeFileSync(join(out, 'results.md'), markdownTable(rows, title));
    if (recordGainFlag) {
      const path = recordGain(rows, { preset, steps, modelPath, task });
      process.stderr.write(`sweep: rl_gain recorded in ${path}\n`);
    }
    process.stdout.write(markdownTable(rows, title));
    return 0;
  },
};
