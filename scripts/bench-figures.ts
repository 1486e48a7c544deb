/**
 * Reads the figures a measurement script prints, for scripts/bench-quick.mjs: each script's quick form must
 * print every line and table it prints in full, and every figure in them must be a finite number. What a figure
 * is never matters here (the quick forms run on a shared 2-core machine), only that the script still computes it.
 *
 * A figure is a decimal number as the scripts print them: `0.259`, `-6.3`, `+6.3`, `21,039`, `1.3e-5`. A
 * figure that went wrong prints as `NaN`, `Infinity`, `undefined` or `null` (JavaScript's string forms of a
 * bad number), as `n/a` (bench/presets.ts fmtNum's form of a number that is not finite), or as `—`, the mark
 * bench/report.ts and bench/llama-report.ts print for a missing one.
 */

/** A line the script prints; each capture group of `pattern` is a part of it that must hold only figures. */
export interface FigureLine {
  label: string;
  pattern: RegExp;
  /** How many such lines at least (default 1). */
  min?: number;
}

/** A markdown table the script prints: the one whose header row matches `header`. */
export interface FigureTable {
  label: string;
  header: RegExp;
  /** Columns (header text) whose every cell holds figures. */
  required: string[];
  /** Columns whose cells may be empty (a ratio with no peer in that row); a cell that is not must hold figures. */
  optional?: string[];
}

export interface FigureSpec {
  lines?: FigureLine[];
  tables?: FigureTable[];
}

const FIGURE = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?/gi;
const BAD = /(?<![\w])(?:[-+]?NaN|[-+]?Infinity|undefined|null)(?![\w])|—|\bn\/a\b/;

/** What is wrong with a part of a line that should hold only figures (null: nothing). */
export function segmentProblem(segment: string | undefined): string | null {
  if (segment === undefined) return 'missing';
  const bad = BAD.exec(segment);
  if (bad) return `"${segment.trim()}" holds ${bad[0]}, not a finite number`;
  const figures = segment.match(FIGURE) ?? [];
  if (!figures.length) return `"${segment.trim()}" holds no figure`;
  for (const f of figures) {
    const x = Number(f.replace(/,/g, ''));
    if (!Number.isFinite(x)) return `"${segment.trim()}": ${f} is not a finite number`;
  }
  return null;
}

function lineProblems(lines: string[], spec: FigureLine): string[] {
  const found = lines.map((l, i) => ({ l, i, m: spec.pattern.exec(l) })).filter((x) => x.m);
  const min = spec.min ?? 1;
  if (found.length < min)
    return [`${spec.label}: ${found.length} line(s) matching ${spec.pattern} printed, ${min} expected`];
  const problems: string[] = [];
  for (const { i, m } of found)
    for (let g = 1; g < m!.length; g++) {
      const p = segmentProblem(m![g]);
      if (p) problems.push(`${spec.label}, output line ${i + 1}: ${p}`);
    }
  return problems;
}

const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

function tableProblems(lines: string[], spec: FigureTable): string[] {
  const problems: string[] = [];
  let tables = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!spec.header.test(lines[i]!)) continue;
    tables++;
    const head = cellsOf(lines[i]!);
    const columns = [
      ...spec.required.map((c) => ({ c, optional: false })),
      ...(spec.optional ?? []).map((c) => ({ c, optional: true })),
    ];
    const missing = columns.filter(({ c }) => !head.includes(c)).map(({ c }) => c);
    if (missing.length) problems.push(`${spec.label}, output line ${i + 1}: no column ${missing.join(', ')}`);
    let rows = 0;
    for (let j = i + 1; j < lines.length && lines[j]!.trim().startsWith('|'); j++) {
      if (/^\|[\s|:-]+\|$/.test(lines[j]!.trim())) continue;
      rows++;
      const cells = cellsOf(lines[j]!);
      for (const { c, optional } of columns) {
        const k = head.indexOf(c);
        if (k < 0) continue;
        const cell = cells[k];
        if (optional && (cell === undefined || cell === '')) continue;
        const p = segmentProblem(cell === '' ? undefined : cell);
        if (p) problems.push(`${spec.label}, output line ${j + 1}, column "${c}": ${p}`);
      }
    }
    if (!rows) problems.push(`${spec.label}, output line ${i + 1}: the table has no rows`);
  }
  if (!tables) problems.push(`${spec.label}: no table with a header matching ${spec.header} printed`);
  return problems;
}

/** Every problem with the figures of `output` (a script's printed text) against `spec`; none when all is well. */
export function figureProblems(output: string, spec: FigureSpec): string[] {
  const lines = output.split('\n');
  return [
    ...(spec.lines ?? []).flatMap((l) => lineProblems(lines, l)),
    ...(spec.tables ?? []).flatMap((t) => tableProblems(lines, t)),
  ];
}
