/**
 * The pure part of `rlvr sweep`: parsing `--grid key=v1,v2`, expanding the grid × seeds into cells
 * with stable ids (so a rerun finds finished cells and skips them), and summarising result rows
 * into one Markdown table. No I/O: sweep-grid.test.ts covers it.
 */
export interface GridAxis {
  key: string;
  values: string[];
}

export interface SweepCell {
  /**
   * Stable across runs of the same sweep: the grid values and the seed, e.g. "learning_rate=3e-5,temperature=1,seed=2".
   */
  id: string;
  /** The grid point's assignments, as `--set` takes them. */
  sets: string[];
  /** The grid point without the seed: cells that differ only by seed share it. */
  point: string;
  seed: number;
}

export class SweepError extends Error {}

export function parseGridAxis(flagValue: string): GridAxis {
  const eq = flagValue.indexOf('=');
  if (eq <= 0) throw new SweepError(`--grid expects key=v1,v2,..., got "${flagValue}"`);
  const key = flagValue.slice(0, eq);
  const values = flagValue
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim());
  if (!values.length || values.some((v) => v === ''))
    throw new SweepError(`--grid ${key}: empty value in "${flagValue}"`);
  if (new Set(values).size !== values.length) throw new SweepError(`--grid ${key}: repeated value in "${flagValue}"`);
  return { key, values };
}

export function parseSeeds(s: string): number[] {
  const seeds = s.split(',').map((x) => Number(x.trim()));
  if (!seeds.length || seeds.some((x) => !Number.isInteger(x) || x < 0))
    throw new SweepError(`--seeds expects whole numbers separated by commas, got "${s}"`);
  if (new Set(seeds).size !== seeds.length) throw new SweepError(`--seeds: repeated seed in "${s}"`);
  return seeds;
}

/** Every combination of the axes' values (first axis slowest), each on every seed (seeds innermost). */
export function expandGrid(axes: GridAxis[], seeds: number[]): SweepCell[] {
  const keys = axes.map((a) => a.key);
  if (new Set(keys).size !== keys.length)
    throw new SweepError(`--grid: the key "${keys.find((k, i) => keys.indexOf(k) !== i)}" is given twice`);
  if (keys.includes('seed')) throw new SweepError('--grid seed=...: use --seeds for seeds');
  let points: string[][] = [[]];
  for (const a of axes) points = points.flatMap((p) => a.values.map((v) => [...p, `${a.key}=${v}`]));
  return points.flatMap((sets) => {
    const point = sets.length ? sets.join(',') : 'recipe';
    return seeds.map((seed) => ({ id: `${point},seed=${seed}`, sets, point, seed }));
  });
}

/** Cells not yet finished, in grid order. */
export function pendingCells(cells: SweepCell[], finishedIds: Iterable<string>): SweepCell[] {
  const done = new Set(finishedIds);
  return cells.filter((c) => !done.has(c.id));
}

/** One finished cell, as a line of results.jsonl. */
export interface SweepRow {
  id: string;
  point: string;
  seed: number;
  sets: string[];
  task: string;
  preset: string;
  steps: number;
  difficulty: Record<string, number | string>;
  eval: { prompts: number; n: number; seed: number };
  /** The sampling temperature of the run and of both held-out evaluations (absent in older rows: 1). */
  temperature?: number;
  pass_at_1_before: number;
  pass_at_8_before: number;
  pass_at_1_after: number;
  pass_at_8_after: number;
  wall_time_s: number;
  out: string;
  date: string;
}

/** Reads results.jsonl text; a torn last line (a run killed mid-write) is ignored, any other bad line is an error. */
export function parseRows(text: string): SweepRow[] {
  const lines = text.split('\n');
  const rows: SweepRow[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      rows.push(JSON.parse(line) as SweepRow);
    } catch {
      if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim()))
        throw new SweepError(`results.jsonl line ${i + 1} is not JSON`);
    }
  });
  return rows;
}

export interface PointSummary {
  point: string;
  seeds: number[];
  before1: number;
  before8: number;
  after1Mean: number;
  after1Min: number;
  after8Mean: number;
  gain1Mean: number;
  gain1Min: number;
  wallMean: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Rows grouped by grid point (first-seen order), with mean and min over seeds. */
export function summarise(rows: SweepRow[]): PointSummary[] {
  const by = new Map<string, SweepRow[]>();
  for (const r of rows) by.set(r.point, [...(by.get(r.point) ?? []), r]);
  return [...by.entries()].map(([point, rs]) => {
    const gains = rs.map((r) => r.pass_at_1_after - r.pass_at_1_before);
    return {
      point,
      seeds: rs.map((r) => r.seed),
      before1: mean(rs.map((r) => r.pass_at_1_before)),
      before8: mean(rs.map((r) => r.pass_at_8_before)),
      after1Mean: mean(rs.map((r) => r.pass_at_1_after)),
      after1Min: Math.min(...rs.map((r) => r.pass_at_1_after)),
      after8Mean: mean(rs.map((r) => r.pass_at_8_after)),
      gain1Mean: mean(gains),
      gain1Min: Math.min(...gains),
      wallMean: mean(rs.map((r) => r.wall_time_s)),
    };
  });
}

const f3 = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;

export function markdownTable(rows: SweepRow[], title: string): string {
  const head = rows[0];
  const temps = [...new Set(rows.map((r) => r.temperature ?? 1))];
  const at = temps.length === 1 ? `at temperature ${temps[0]}` : "at each cell's sampling temperature";
  const lines = [
    `## ${title}`,
    '',
    head
      ? `Task \`${head.task}\`, preset \`${head.preset}\`, ${head.steps} steps; held-out pass@k on ` +
        `${head.eval.prompts} ` +
        `prompts × ${head.eval.n} samples (eval seed ${head.eval.seed}) ${at}, difficulty ` +
        `\`${JSON.stringify(head.difficulty)}\`. Gains in points of pass@1.`
      : 'No finished cells yet.',
    '',
    '| grid point | seeds | pass@1 before | pass@1 after (mean / min) | gain (mean / min) | pass@8 before ' +
      '→ after (mean) | wall time (mean) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const s of summarise(rows)) {
    lines.push(
      `| \`${s.point}\` | ${s.seeds.join(', ')} | ${f3(s.before1)} | ${f3(s.after1Mean)} / ${f3(s.after1Min)} ` +
        `| ${signed(s.gain1Mean)} / ${signed(s.gain1Min)} | ${f3(s.before8)} → ${f3(s.after8Mean)} | ` +
        `${s.wallMean.toFixed(0)} ` +
        's |',
    );
  }
  return lines.join('\n') + '\n';
}
