import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { evaluatePassAtK } from '../../rl/evaluate.ts';
import {
  formatMeasured,
  getLesson,
  lessonRunInputs,
  lessonSeeds,
  LESSON_EVAL_PROMPTS,
  lessons,
  measureKey,
  perSeedVerdicts,
  type Lesson,
  type MeasuredLesson,
  type MeasuredRun,
} from '../../lessons/index.ts';
import { Trainer } from '../../rl/trainer.ts';
import { resolveOrThrow } from '../../rl/resolve-config.ts';
import { RUN_RECORD_EXTENSION, RunRecorder } from '../../record/run-record.ts';
import { flag, flagUsage, intFlag, parseFlags, UsageError, type FlagTable } from '../args.ts';
import { loadPolicy } from '../../node/checkpoint-files.ts';
import { ProgressBar } from '../progress.ts';
import { checkpointsDir, shippedFor } from '../shipped.ts';
import type { Command } from './command.ts';

export const measuredPath = resolve(dirname(fileURLToPath(import.meta.url)), '../../../public/lessons/measured.json');

/** Finished seeds are kept here, so a lesson resumes and its seeds can run in parallel processes. */
const seedCacheDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../runs/lessons');

type SeedResult = { runs: MeasuredRun[]; base?: Record<string, number> };

/**
 * The cache key covers what decides a seed's numbers: the runs, the measures, the steps, the base checkpoint and its
 * recipe.
 */
export function seedCachePath(lesson: Lesson, steps: number, seed: number): string {
  const basePath = shippedFor(lesson.task);
  const base = {
    checkpoint: relative(checkpointsDir, basePath),
    recipe: (JSON.parse(readFileSync(basePath, 'utf8')) as { recipe?: unknown }).recipe ?? null,
  };
  const key = createHash('sha256')
    .update(JSON.stringify({ task: lesson.task, runs: lesson.runs, measures: lesson.measures, steps, base }))
    .digest('hex')
    .slice(0, 12);
  return resolve(seedCacheDir, lesson.id, `${key}-steps${steps}-seed${seed}.json`);
}

async function cachedSeed(lesson: Lesson, steps: number, seed: number): Promise<SeedResult> {
  const path = seedCachePath(lesson, steps, seed);
  if (existsSync(path)) {
    process.stderr.write(`${lesson.id}: seed ${seed} already measured (${path}), reusing it\n`);
    return JSON.parse(readFileSync(path, 'utf8')) as SeedResult;
  }
  const r = await runSeed(lesson, steps, seed);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(r) + '\n');
  return r;
}

export function readMeasured(): Record<string, MeasuredLesson> {
  return existsSync(measuredPath)
    ? (JSON.parse(readFileSync(measuredPath, 'utf8')) as Record<string, MeasuredLesson>)
    : {};
}

const LESSONS_FLAGS: FlagTable = { json: { help: 'print one JSON array instead of text' } };
const LESSON_FLAGS: FlagTable = {
  steps: { value: 'N', help: "RL steps per run (default: the lesson's)" },
  seed: { value: 'S', help: 'the seed every run uses (default 1)' },
  seeds: { value: '1,2,3', help: 'run every seed; the recorded numbers are the means' },
};

export const lessonsCommand: Command = {
  name: 'lessons',
  summary: 'list the guided experiments with their configs and measured outcomes',
  help:
    'rlvr lessons [--json]\n  Each lesson: id, title, task, steps, seeds (the seeds its verdict is ' +
    'measured on), runs (preset + config), the outcome measured by "rlvr lesson run ID" (or null if never ' +
    'run), its verdict (the rule on the mean over seeds) and verdict_per_seed (the rule on each seed ' +
    'alone).\n' +
    flagUsage(LESSONS_FLAGS),
  modes: [{ argv: [], flags: LESSONS_FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, LESSONS_FLAGS);
    const measured = readMeasured();
    const rows = lessons.map((l) => ({
      id: l.id,
      title: l.title,
      task: l.task,
      steps: l.steps,
      seeds: lessonSeeds(l),
      paper: l.paper,
      claim: l.claim,
      runs: l.runs.map((r) => ({ label: r.label, preset: r.preset, config: r.config })),
      measured: measured[l.id] ?? null,
      verdict: measured[l.id] ? l.verdict(measured[l.id]!) : null,
      verdict_per_seed: measured[l.id] ? perSeedVerdicts(l, measured[l.id]!) : [],
    }));
    if (flag(a, 'json')) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return 0;
    }
    for (const r of rows)
      process.stdout.write(
        `${r.id.padEnd(22)} ${r.title}\n${''.padEnd(22)} ` +
          `measured: ${r.measured ? r.measured.summary : 'not yet run (rlvr lesson run ' + r.id + ')'}\n` +
          `${r.verdict ? `${''.padEnd(22)} ${r.verdict.text}\n` : ''}` +
          (r.verdict_per_seed.length
            ? `${''.padEnd(22)} per seed: ` +
              r.verdict_per_seed
                .map((p) => `seed ${p.seed} ${p.verdict.shows ? 'shows' : 'does not show'}`)
                .join(', ') +
              '\n'
            : ''),
      );
    return 0;
  },
};

/** The run record of one arm (run) of a lesson on one seed: beside the seed's cached result, named by the arm. */
export function lessonRecordPath(lesson: Lesson, steps: number, seed: number, label: string): string {
  return seedCachePath(lesson, steps, seed).replace(
    /\.json$/,
    `-${label.replace(/[^\w.+=-]+/g, '_')}${RUN_RECORD_EXTENSION}`,
  );
}

/**
 * Every arm of the lesson on one seed, from the shipped base. Each arm's run is written as a run
 * record (the writer `rlvr train --record` uses) to `recordPath(label)`.
 */
export async function runSeed(
  lesson: Lesson,
  steps: number,
  seed: number,
  recordPath = (label: string) => lessonRecordPath(lesson, steps, seed, label),
): Promise<SeedResult> {
  const out: MeasuredRun[] = [];
  const manifestPath = shippedFor(lesson.task);
  let basePassAtK: Record<string, number> | undefined;
  for (const run of lesson.runs) {
    const { manifest, policy } = await loadPolicy(manifestPath, createNodeBackend());
    const config = resolveOrThrow({ ...lessonRunInputs(lesson, run, { seed, eval_every: 0 }), manifest });
    const trainer = await Trainer.create(policy, config);
    // Held-out pass@k at the run's target difficulty (for a ladder: the hard level it climbs toward, not the level it
    // reached).
    const evalOnce = (n: number) =>
      evaluatePassAtK(policy, {
        task: lesson.task,
        difficulty: config.difficulty,
        prompts: LESSON_EVAL_PROMPTS,
        n,
        ks: Array.from({ length: n }, (_, i) => i + 1),
        seed,
        batchRows: 64,
      });
    if (lesson.measures.some((m) => m.metric === 'eval') && !basePassAtK) basePassAtK = (await evalOnce(16)).pass_at_k;
    const bar = new ProgressBar(`${lesson.id}: ${run.label}`, steps);
    const recorder = new RunRecorder(config, {
      writer: 'rlvr lesson run',
      command:
        `rlvr lesson run ${lesson.id} --steps ${steps} --seed ${seed} (arm "${run.label}": preset ` + `${run.preset})`,
      created: new Date().toISOString(),
      base: { name: manifest.name, manifest },
      lesson: { id: lesson.id, arm: run.label, seed },
    });
    if (basePassAtK) recorder.addEval({ step: 0, pass_at_k: basePassAtK });
    const history: Record<string, number>[] = [];
    for (let s = 0; s < steps; s++) {
      const r = await trainer.trainStep();
      history.push(r.metrics);
      recorder.addStep(r);
      bar.update(s + 1, `acc ${(r.metrics.accuracy ?? 0).toFixed(2)}`);
    }
    const values: Record<string, number> = {};
    for (const m of lesson.measures) {
      if (m.metric === 'eval') continue;
      const tail = history.slice(-Math.min(m.window, history.length));
      values[measureKey(m)] =
        tail.reduce((acc, h) => acc + (m.abs ? Math.abs(h[m.metric] ?? 0) : (h[m.metric] ?? 0)), 0) / tail.length;
    }
    const measured: MeasuredRun = { label: run.label, values };
    if (lesson.measures.some((m) => m.metric === 'eval')) {
      measured.final_pass_at_k = (await evalOnce(16)).pass_at_k;
      recorder.addEval({ step: steps, pass_at_k: measured.final_pass_at_k });
    }
    const file = recordPath(run.label);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, await recorder.encode());
    process.stderr.write(`${lesson.id}: run record of "${run.label}", seed ${seed}: ${file}\n`);
    out.push(measured);
    await policy.dispose();
  }
  return { runs: out, base: basePassAtK };
}

const meanOf = (maps: (Record<string, number> | undefined)[]): Record<string, number> | undefined => {
  const present = maps.filter((m): m is Record<string, number> => !!m);
  if (!present.length) return undefined;
  return Object.fromEntries(
    Object.keys(present[0]!).map((k) => [k, present.reduce((a, m) => a + (m[k] ?? NaN), 0) / present.length]),
  );
};

/** Runs the lesson on each seed; with several seeds, the recorded values are the means (each seed kept in per_seed). */
async function runLesson(lesson: Lesson, steps: number, seeds: number[]): Promise<MeasuredLesson> {
  const perSeed: { seed: number; runs: MeasuredRun[]; base_pass_at_k?: Record<string, number> }[] = [];
  for (const seed of seeds) {
    const r = await cachedSeed(lesson, steps, seed);
    perSeed.push({ seed, runs: r.runs, ...(r.base ? { base_pass_at_k: r.base } : {}) });
  }
  const out: MeasuredRun[] = lesson.runs.map((run, i) => {
    const values = meanOf(perSeed.map((p) => p.runs[i]!.values))!;
    const final = meanOf(perSeed.map((p) => p.runs[i]!.final_pass_at_k));
    return { label: run.label, values, ...(final ? { final_pass_at_k: final } : {}) };
  });
  const basePassAtK = meanOf(perSeed.map((p) => p.base_pass_at_k));
  const seed = seeds[0]!;
  const fmt = formatMeasured;
  const parts = lesson.measures.map((m) =>
    m.metric === 'eval'
      ? `held-out pass@1 / pass@16: base ${fmt(basePassAtK?.['1'] ?? NaN)} / ${fmt(basePassAtK?.['16'] ?? NaN)}; ` +
        out
          .map((r) => `${r.label} ${fmt(r.final_pass_at_k?.['1'] ?? NaN)} / ${fmt(r.final_pass_at_k?.['16'] ?? NaN)}`)
          .join('; ')
      : `${m.description}: ` + out.map((r) => `${r.label} ${fmt(r.values[measureKey(m)] ?? NaN)}`).join(', '),
  );
  const on = seeds.length > 1 ? `mean over seeds ${seeds.join(', ')}` : `on seed ${seed}`;
  return {
    id: lesson.id,
    steps,
    seed,
    ...(seeds.length > 1 ? { seeds, per_seed: perSeed } : {}),
    date: new Date().toISOString().slice(0, 10),
    runs: out,
    base_pass_at_k: basePassAtK,
    summary: `${on}, after ${steps} steps on ${lesson.task}: ${parts.join('. ')}`,
  };
}

export const lessonCommand: Command = {
  name: 'lesson',
  summary: 'run one guided experiment headlessly and record its measured outcome',
  help:
    'rlvr lesson run ID [--steps N] [--seed S | --seeds 1,2,3]\n  Runs every config of the lesson on the ' +
    'same seed from the shipped base checkpoint, prints the measured outcome as JSON and records it in ' +
    'public/lessons/measured.json. With --seeds, every seed is run and the recorded numbers are the means ' +
    '(each seed is kept under per_seed).\n  Each arm on each seed is also written as a run record (the ' +
    'file rlvr train --record writes) next to the cached seed result: ' +
    'runs/lessons/ID/KEY-stepsN-seedS-ARM.rlvr.gz.\n  Each finished seed is kept under runs/lessons/ID/ ' +
    'and reused by later runs of the same lesson setup, so an interrupted run resumes and seeds can run ' +
    'in separate processes (e.g. --seed 2 in one, --seed 3 in another, then --seeds 1,2,3 to record the ' +
    'mean).\n' +
    flagUsage(LESSON_FLAGS),
  modes: [{ argv: ['run', 'ID'], flags: LESSON_FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, LESSON_FLAGS);
    const [verb, id] = a.positional;
    if (verb !== 'run' || !id) throw new UsageError('expected: rlvr lesson run ID');
    const lesson = getLesson(id);
    const seedsFlag = flag(a, 'seeds');
    const seeds = seedsFlag ? seedsFlag.split(',').map((x) => Number(x.trim())) : [intFlag(a, 'seed', 1)];
    if (!seeds.length || seeds.some((x) => !Number.isInteger(x) || x < 0))
      throw new UsageError(`--seeds must be a comma-separated list of whole numbers, got "${seedsFlag}"`);
    const result = await runLesson(lesson, intFlag(a, 'steps', lesson.steps), seeds);
    const all = readMeasured();
    all[id] = result;
    mkdirSync(dirname(measuredPath), { recursive: true });
    writeFileSync(measuredPath, JSON.stringify(all, null, 2) + '\n');
    process.stdout.write(JSON.stringify({ ...result, verdict: lesson.verdict(result) }) + '\n');
    return 0;
  },
};
