import { describe, expect, it } from 'vitest';
import {
  expandGrid,
  markdownTable,
  parseGridAxis,
  parseRows,
  parseSeeds,
  pendingCells,
  summarise,
  SweepError,
  type SweepRow,
} from './sweep-grid.ts';

describe('sweep grid', () => {
  it('expands axes × seeds in order, first axis slowest, seeds innermost', () => {
    const cells = expandGrid(
      [parseGridAxis('learning_rate=1e-5,3e-5'), parseGridAxis('temperature=0.7,1')],
      parseSeeds('1,2'),
    );
    expect(cells.map((c) => c.id)).toEqual([
      'learning_rate=1e-5,temperature=0.7,seed=1',
      'learning_rate=1e-5,temperature=0.7,seed=2',
      'learning_rate=1e-5,temperature=1,seed=1',
      'learning_rate=1e-5,temperature=1,seed=2',
      'learning_rate=3e-5,temperature=0.7,seed=1',
      'learning_rate=3e-5,temperature=0.7,seed=2',
      'learning_rate=3e-5,temperature=1,seed=1',
      'learning_rate=3e-5,temperature=1,seed=2',
    ]);
    expect(cells[5]!.sets).toEqual(['learning_rate=3e-5', 'temperature=0.7']);
    expect(cells[5]!.point).toBe('learning_rate=3e-5,temperature=0.7');
    expect(cells[5]!.seed).toBe(2);
  });

  it('with no axes, one cell per seed at the recipe itself', () => {
    expect(expandGrid([], [1, 2, 3]).map((c) => [c.id, c.sets.length])).toEqual([
      ['recipe,seed=1', 0],
      ['recipe,seed=2', 0],
      ['recipe,seed=3', 0],
    ]);
  });

  it('rejects malformed axes and seeds with the reason', () => {
    expect(() => parseGridAxis('learning_rate')).toThrow(/key=v1,v2/);
    expect(() => parseGridAxis('learning_rate=1e-4,,3e-4')).toThrow(/empty value/);
    expect(() => parseGridAxis('learning_rate=1e-4,1e-4')).toThrow(/repeated value/);
    expect(() => parseSeeds('1,x')).toThrow(SweepError);
    expect(() => parseSeeds('1,1')).toThrow(/repeated seed/);
    expect(() => expandGrid([parseGridAxis('a=1'), parseGridAxis('a=2')], [1])).toThrow(/given twice/);
    expect(() => expandGrid([parseGridAxis('seed=1,2')], [1])).toThrow(/--seeds/);
  });

  it('resumes: finished cells are skipped, the rest keep grid order', () => {
    const cells = expandGrid([parseGridAxis('beta=0,0.04')], [1, 2]);
    const finished = parseRows(
      [row('beta=0,seed=1', 'beta=0', 1, 0.2, 0.4), row('beta=0.04,seed=1', 'beta=0.04', 1, 0.2, 0.3)]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    expect(
      pendingCells(
        cells,
        finished.map((r) => r.id),
      ).map((c) => c.id),
    ).toEqual(['beta=0,seed=2', 'beta=0.04,seed=2']);
    expect(
      pendingCells(
        cells,
        cells.map((c) => c.id),
      ),
    ).toEqual([]);
  });

  it('ignores a torn last line of results.jsonl but not a bad line in the middle', () => {
    const good = JSON.stringify(row('x,seed=1', 'x', 1, 0.1, 0.2));
    expect(parseRows(`${good}\n{"id":"x,se`)).toHaveLength(1);
    expect(() => parseRows(`${good}\nnot json\n${good}\n`)).toThrow(/line 2/);
  });

  it('summarises mean and min over seeds per grid point', () => {
    const rows = [
      row('p,seed=1', 'p', 1, 0.2, 0.5),
      row('p,seed=2', 'p', 2, 0.2, 0.3),
      row('q,seed=1', 'q', 1, 0.2, 0.1),
    ];
    const [p, q] = summarise(rows);
    expect(p!.after1Mean).toBeCloseTo(0.4, 12);
    expect(p!.after1Min).toBeCloseTo(0.3, 12);
    expect(p!.gain1Min).toBeCloseTo(0.1, 12);
    expect(q!.gain1Mean).toBeCloseTo(-0.1, 12);
    const md = markdownTable(rows, 'title');
    expect(md).toContain('| `p` | 1, 2 | 0.200 | 0.400 / 0.300 | +20.0 / +10.0 |');
    expect(md).toContain('| `q` | 1 | 0.200 | 0.100 / 0.100 | -10.0 / -10.0 |');
  });
});

function row(id: string, point: string, seed: number, before: number, after: number): SweepRow {
  return {
    id,
    point,
    seed,
    sets: [point],
    task: 'sort',
    preset: 'grpo',
    steps: 10,
    difficulty: {},
    eval: { prompts: 8, n: 8, seed: 0 },
    pass_at_1_before: before,
    pass_at_8_before: 0.5,
    pass_at_1_after: after,
    pass_at_8_after: 0.6,
    wall_time_s: 5,
    out: 'cells/x',
    date: '2026-01-01',
  };
}
