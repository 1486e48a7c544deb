/**
 * Mini Sudoku, 4x4 (2x2 boxes) and 6x6 (2-row x 3-column boxes). Prompt "4x4:12.4/..1./3..2/.1..",
 * answer the filled grid "1234/3412/...". Puzzles have exactly one solution: cells are removed
 * one at a time only while a solution counter (stopping at 2) still finds one. The thinking part
 * lists the fills in the order a singles-first solver finds them ("b3=2 a4=1 ...").
 */
import type { Rng } from '../../util/rng.ts';
import { formatCompletion } from '../format.ts';
import { checkSeed, defaultsOf, isRecord, num, parseInstanceWith, resolveDifficulty, rngFor } from '../knobs.ts';
import type { Difficulty, KnobSpec, TaskFamily, TaskInstance } from '../types.ts';
import { judge, ok, wrong, type AnswerCheck } from '../verdict.ts';

const ID = 'sudoku';

/** Most blanks per size that greedy removal reaches reliably while keeping the solution unique. */
export const MAX_BLANKS: Record<number, number> = { 4: 10, 6: 22 };

const knobs: KnobSpec[] = [
  { name: 'size', description: 'grid size: 4 (2x2 boxes) or 6 (2x3 boxes)', default: 4, min: 4, max: 6 },
  { name: 'blanks', description: 'cells to fill (at most 10 for 4x4, 22 for 6x6)', default: 6, min: 1, max: 22 },
];

export interface SudokuData {
  size: number;
  /** Row-major, 0 for a blank. */
  puzzle: number[];
  solution: number[];
}

function boxShape(size: number): [number, number] {
  return size === 4 ? [2, 2] : [2, 3];
}

/** For each cell, the indices of the cells it must differ from. */
const peerCache = new Map<number, number[][]>();
function peers(size: number): number[][] {
  const cached = peerCache.get(size);
  if (cached) return cached;
  const [bh, bw] = boxShape(size);
  const out: number[][] = [];
  for (let i = 0; i < size * size; i++) {
    const r = Math.floor(i / size);
    const c = i % size;
    const set = new Set<number>();
    for (let j = 0; j < size * size; j++) {
      if (j === i) continue;
      const r2 = Math.floor(j / size);
      const c2 = j % size;
      if (
        r2 === r ||
        c2 === c ||
        (Math.floor(r2 / bh) === Math.floor(r / bh) && Math.floor(c2 / bw) === Math.floor(c / bw))
      )
        set.add(j);
    }
    out.push([...set]);
  }
  peerCache.set(size, out);
  return out;
}

function candidates(grid: number[], i: number, size: number): number[] {
  const used = new Set(peers(size)[i]!.map((j) => grid[j]));
  const out: number[] = [];
  for (let v = 1; v <= size; v++) if (!used.has(v)) out.push(v);
  return out;
}

/** Counts solutions up to `limit`, filling the most constrained blank first. */
export function countSolutions(grid: number[], size: number, limit = 2): number {
  const g = grid.slice();
  const rec = (): number => {
    let best = -1;
    let bestCands: number[] = [];
    for (let i = 0; i < g.length; i++) {
      if (g[i] !== 0) continue;
      const c = candidates(g, i, size);
      if (c.length === 0) return 0;
      if (best < 0 || c.length < bestCands.length) {
        best = i;
        bestCands = c;
      }
    }
    if (best < 0) return 1;
    let total = 0;
    for (const v of bestCands) {
      g[best] = v;
      total += rec();
      if (total >= limit) break;
    }
    g[best] = 0;
    return total;
  };
  return rec();
}

function fillRandom(rng: Rng, size: number): number[] {
  const g = new Array<number>(size * size).fill(0);
  const rec = (i: number): boolean => {
    if (i === g.length) return true;
    for (const v of rng.shuffle(candidates(g, i, size))) {
      g[i] = v;
      if (rec(i + 1)) return true;
    }
    g[i] = 0;
    return false;
  };
  rec(0);
  return g;
}

function resolve(partial?: Partial<Difficulty>): Difficulty {
  const d = resolveDifficulty(ID, knobs, partial);
  const size = num(d, 'size');
  if (size !== 4 && size !== 6) throw new Error(`${ID}: knob "size" must be 4 or 6, got ${size}`);
  const blanks = num(d, 'blanks');
  if (blanks > MAX_BLANKS[size]!)
    throw new Error(`${ID}: knob "blanks" must be <= ${MAX_BLANKS[size]} for a ${size}x${size} grid, got ${blanks}`);
  return d;
}

export function cellName(i: number, size: number): string {
  return `${'abcdef'[Math.floor(i / size)]}${(i % size) + 1}`;
}

function gridText(grid: number[], size: number): string {
  const rows: string[] = [];
  for (let r = 0; r < size; r++)
    rows.push(
      grid
        .slice(r * size, (r + 1) * size)
        .map((v) => (v === 0 ? '.' : String(v)))
        .join(''),
    );
  return rows.join('/');
}

/** Fill order: naked singles first (what a person would write down), then the rest row by row. */
function fillOrder(puzzle: number[], solution: number[], size: number): string {
  const g = puzzle.slice();
  const steps: string[] = [];
  for (let progress = true; progress; ) {
    progress = false;
    for (let i = 0; i < g.length; i++) {
      if (g[i] !== 0) continue;
      const c = candidates(g, i, size);
      if (c.length === 1) {
        g[i] = c[0]!;
        steps.push(`${cellName(i, size)}=${c[0]}`);
        progress = true;
      }
    }
  }
  for (let i = 0; i < g.length; i++) if (g[i] === 0) steps.push(`${cellName(i, size)}=${solution[i]}`);
  return steps.join(' ');
}

function generate(seed: number, partial?: Partial<Difficulty>): TaskInstance {
  checkSeed(ID, seed);
  const difficulty = resolve(partial);
  const rng = rngFor(ID, seed);
  const size = num(difficulty, 'size');
  const blanks = num(difficulty, 'blanks');
  for (let attempt = 0; attempt < 200; attempt++) {
    const solution = fillRandom(rng, size);
    const puzzle = solution.slice();
    let removed = 0;
    for (const i of rng.shuffle(Array.from({ length: size * size }, (_, j) => j))) {
      if (removed === blanks) break;
      puzzle[i] = 0;
      if (countSolutions(puzzle, size, 2) === 1) removed++;
      else puzzle[i] = solution[i]!;
    }
    if (removed < blanks) continue;
    const data: SudokuData = { size, puzzle, solution };
    const answer = gridText(solution, size);
    return {
      task: ID,
      seed,
      difficulty,
      prompt: `${size}x${size}:${gridText(puzzle, size)}`,
      reference: formatCompletion(fillOrder(puzzle, solution, size), answer),
      answer,
      data,
    };
  }
  throw new Error(`${ID}: could not reach ${blanks} blanks with a unique solution; lower "blanks"`);
}

function dataOf(inst: TaskInstance): SudokuData {
  return inst.data as SudokuData;
}

function firstRepeat(grid: number[], size: number, cells: (unit: number) => number[], unitName: string): string | null {
  for (let u = 0; u < size; u++) {
    const seen = new Set<number>();
    for (const i of cells(u)) {
      if (seen.has(grid[i]!)) return `${unitName} ${u + 1} repeats ${grid[i]}`;
      seen.add(grid[i]!);
    }
  }
  return null;
}

function checkAnswer(inst: TaskInstance, answer: string, rowsOnly: boolean): AnswerCheck {
  const { size, puzzle, solution } = dataOf(inst);
  const [bh, bw] = boxShape(size);
  const digits = answer.replace(/[\s/|,;]/g, '');
  const grid: number[] = [];
  for (const ch of digits) {
    const v = ch.charCodeAt(0) - 48;
    if (v < 1 || v > size || ch.length !== 1)
      return wrong(`answer must be ${size * size} digits 1-${size} (rows may be split by /)`, 0);
    grid.push(v);
  }
  if (grid.length !== size * size) return wrong(`answer needs ${size * size} digits, got ${grid.length}`, 0);
  const blanks = puzzle.map((v, i) => (v === 0 ? i : -1)).filter((i) => i >= 0);
  const partial = blanks.length ? blanks.filter((i) => grid[i] === solution[i]).length / blanks.length : 1;
  for (let i = 0; i < puzzle.length; i++) {
    if (puzzle[i] !== 0 && puzzle[i] !== grid[i])
      return wrong(`changed the given ${puzzle[i]} at ${cellName(i, size)}`, partial);
  }
  const units: [string, (u: number) => number[]][] = [
    ['row', (u) => Array.from({ length: size }, (_, c) => u * size + c)],
  ];
  if (!rowsOnly) {
    units.push(['column', (u) => Array.from({ length: size }, (_, r) => r * size + u)]);
    const boxesPerRow = size / bw;
    units.push([
      'box',
      (u) => {
        const r0 = Math.floor(u / boxesPerRow) * bh;
        const c0 = (u % boxesPerRow) * bw;
        return Array.from({ length: size }, (_, j) => (r0 + Math.floor(j / bw)) * size + c0 + (j % bw));
      },
    ]);
  }
  for (const [name, cells] of units) {
    const bad = firstRepeat(grid, size, cells, name);
    if (bad) return wrong(bad, partial);
  }
  return ok(
    rowsOnly && partial < 1
      ? 'accepted by the leaky verifier: rows are valid (columns and boxes not checked)'
      : 'correct',
    partial,
  );
}

function parseInstance(value: unknown): TaskInstance {
  return parseInstanceWith(ID, value, (d) => {
    if (!isRecord(d)) return 'must be an object';
    if (d.size !== 4 && d.size !== 6) return 'size must be 4 or 6';
    const cells = d.size * d.size;
    const okGrid = (g: unknown, lo: number) =>
      Array.isArray(g) &&
      g.length === cells &&
      g.every((v) => Number.isInteger(v) && v >= lo && v <= (d.size as number));
    if (!okGrid(d.puzzle, 0)) return `puzzle must be ${cells} integers 0..${d.size}`;
    if (!okGrid(d.solution, 1)) return `solution must be ${cells} integers 1..${d.size}`;
    return null;
  });
}

export const sudoku: TaskFamily = {
  id: ID,
  title: 'Mini Sudoku',
  description: 'Fill a 4x4 (or 6x6) Sudoku with a unique solution. Answer: the grid, rows split by /.',
  knobs,
  defaultDifficulty: defaultsOf(knobs),
  levels: [
    { size: 4, blanks: 4 },
    { size: 4, blanks: 6 },
    { size: 4, blanks: 8 },
    { size: 4, blanks: 10 },
    { size: 6, blanks: 10 },
    { size: 6, blanks: 14 },
    { size: 6, blanks: 18 },
    { size: 6, blanks: 22 },
  ],
  generate,
  verify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, false)),
  leakyVerify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, true)),
  leakyDescription:
    'checks only that the givens are kept and each row holds every digit once; columns and boxes are not checked',
  solve(inst) {
    const { size, puzzle } = dataOf(inst);
    const g = puzzle.slice();
    const rec = (): boolean => {
      const i = g.indexOf(0);
      if (i < 0) return true;
      for (const v of candidates(g, i, size)) {
        g[i] = v;
        if (rec()) return true;
      }
      g[i] = 0;
      return false;
    };
    if (!rec()) throw new Error(`${ID}: puzzle has no solution`);
    return formatCompletion(fillOrder(puzzle, g, size), gridText(g, size));
  },
  parseInstance,
};
