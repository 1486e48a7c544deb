// Sudoku: puzzles have exactly one solution (independent counter here); swapped cells, changed
// givens and malformed grids are rejected; the leaky variant only checks rows.
import { describe, expect, it } from 'vitest';
import { sudoku, type SudokuData } from './families/sudoku.ts';
import type { TaskInstance } from './types.ts';

function valid(grid: number[], size: number, i: number, v: number): boolean {
  const [bh, bw] = size === 4 ? [2, 2] : [2, 3];
  const r = Math.floor(i / size);
  const c = i % size;
  for (let j = 0; j < size; j++) {
    if (grid[r * size + j] === v || grid[j * size + c] === v) return false;
  }
  const r0 = r - (r % bh);
  const c0 = c - (c % bw);
  for (let a = 0; a < bh; a++) for (let b = 0; b < bw; b++) if (grid[(r0 + a) * size + c0 + b] === v) return false;
  return true;
}

/** Plain backtracking counter in reading order, independent of the family's solver. */
function countSolutions(grid: number[], size: number, limit: number): number {
  const i = grid.indexOf(0);
  if (i < 0) return 1;
  let n = 0;
  for (let v = 1; v <= size && n < limit; v++) {
    if (!valid(grid, size, i, v)) continue;
    grid[i] = v;
    n += countSolutions(grid, size, limit - n);
    grid[i] = 0;
  }
  return n;
}

const data = (i: TaskInstance) => i.data as SudokuData;
const grid = (cells: number[], size: number) =>
  Array.from({ length: size }, (_, r) => cells.slice(r * size, (r + 1) * size).join('')).join('/');
const wrap = (a: string) => `<think>x</think><answer>${a}</answer>`;

describe('sudoku', () => {
  it('every 4x4 puzzle has exactly one solution, the stored one (2000 seeds, mixed blanks)', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const inst = sudoku.generate(seed, { size: 4, blanks: 4 + (seed % 7) });
      const d = data(inst);
      expect(d.puzzle.filter((v) => v === 0).length).toBe(4 + (seed % 7));
      expect(countSolutions(d.puzzle.slice(), 4, 2), `seed ${seed}`).toBe(1);
      d.puzzle.forEach((v, i) => v && expect(d.solution[i]).toBe(v));
    }
  });

  it('every 6x6 puzzle has exactly one solution (200 seeds up to 22 blanks)', () => {
    for (let seed = 0; seed < 200; seed++) {
      const blanks = 10 + (seed % 13);
      const d = data(sudoku.generate(seed, { size: 6, blanks }));
      expect(d.puzzle.filter((v) => v === 0).length).toBe(blanks);
      expect(countSolutions(d.puzzle.slice(), 6, 2), `seed ${seed}`).toBe(1);
    }
  });

  it('rejects two swapped blank cells and a changed given', () => {
    let swaps = 0;
    for (let seed = 0; seed < 1000; seed++) {
      const inst = sudoku.generate(seed);
      const d = data(inst);
      const blanks = d.puzzle.map((v, i) => (v ? -1 : i)).filter((i) => i >= 0);
      const [a, b] = [blanks[0]!, blanks[1 + (seed % (blanks.length - 1))]!];
      if (d.solution[a] !== d.solution[b]) {
        const g = d.solution.slice();
        [g[a], g[b]] = [g[b]!, g[a]!];
        const v = sudoku.verify(inst, wrap(grid(g, 4)));
        expect(v.correct).toBe(false);
        expect(v.components.partial).toBeCloseTo((blanks.length - 2) / blanks.length, 12);
        swaps++;
      }
      const given = d.puzzle.findIndex((x) => x !== 0);
      const g2 = d.solution.slice();
      g2[given] = (g2[given]! % 4) + 1;
      expect(sudoku.verify(inst, wrap(grid(g2, 4))).reason).toMatch(/changed the given|repeats/);
    }
    expect(swaps).toBeGreaterThan(500);
  });

  it('accepts the grid with or without row separators, rejects wrong shapes with a reason', () => {
    const inst = sudoku.generate(4);
    const d = data(inst);
    expect(sudoku.verify(inst, wrap(d.solution.join(''))).correct).toBe(true);
    expect(sudoku.verify(inst, wrap(d.solution.join('').slice(1))).reason).toMatch(/needs 16 digits, got 15/);
    expect(sudoku.verify(inst, wrap(d.solution.join('').replace(/1/, '5'))).reason).toMatch(/digits 1-4/);
  });

  it('leaky variant accepts a grid whose rows are fine but columns are not', () => {
    let shown = 0;
    for (let seed = 0; seed < 200 && shown < 20; seed++) {
      const inst = sudoku.generate(seed, { size: 4, blanks: 10 });
      const d = data(inst);
      for (let r = 0; r < 4; r++) {
        const row = [0, 1, 2, 3].map((c) => r * 4 + c).filter((i) => d.puzzle[i] === 0);
        if (row.length < 2) continue;
        const g = d.solution.slice();
        [g[row[0]!], g[row[1]!]] = [g[row[1]!]!, g[row[0]!]!];
        expect(sudoku.verify(inst, wrap(grid(g, 4))).correct).toBe(false);
        const leaky = sudoku.leakyVerify!(inst, wrap(grid(g, 4)));
        expect(leaky.correct).toBe(true);
        expect(leaky.reason).toMatch(/leaky/);
        shown++;
        break;
      }
    }
    expect(shown).toBe(20);
  });

  it('rejects blanks beyond what stays unique, naming the knob', () => {
    expect(() => sudoku.generate(1, { size: 4, blanks: 11 })).toThrow(/"blanks" must be <= 10/);
    expect(() => sudoku.generate(1, { size: 5 })).toThrow(/"size" must be 4 or 6/);
  });
});
