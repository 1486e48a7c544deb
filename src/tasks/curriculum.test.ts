import { describe, expect, it } from 'vitest';
import {
  DifficultyLadder,
  FixedDifficulty,
  filterGroups,
  groupAccuracy,
  hintFor,
  nextHintFraction,
} from './curriculum.ts';
import { sat } from './families/sat.ts';
import { taskFamilies } from './registry.ts';

describe('DifficultyLadder', () => {
  const levels = [{ n: 3 }, { n: 4 }, { n: 5 }];

  it('advances after a full window at or above the threshold and records the transition', () => {
    const l = new DifficultyLadder(levels, { window: 3, advanceAt: 0.75, stepBackAt: 0.25 });
    expect(l.record(1, 8, 8)).toBeNull();
    expect(l.record(2, 8, 8)).toBeNull();
    expect(l.level).toBe(0);
    expect(l.record(3, 6, 8)).toEqual({ step: 3, from: 0, to: 1, passRate: 22 / 24, direction: 'up' });
    expect(l.level).toBe(1);
    expect(l.current()).toEqual({ n: 4 });
    // A fresh window is needed at the new level.
    expect(l.record(4, 8, 8)).toBeNull();
    expect(l.record(5, 8, 8)).toBeNull();
    expect(l.record(6, 4, 8)?.to).toBe(2);
    // Top level: stays.
    for (let s = 7; s < 20; s++) expect(l.record(s, 8, 8)).toBeNull();
    expect(l.level).toBe(2);
  });

  it('steps back when pass@1 collapses, and holds in between', () => {
    const l = new DifficultyLadder(levels, { window: 2, advanceAt: 0.8, stepBackAt: 0.2, startLevel: 2 });
    l.record(1, 4, 8);
    expect(l.record(2, 4, 8)).toBeNull();
    expect(l.level).toBe(2);
    l.record(3, 0, 8);
    const t = l.record(4, 1, 8);
    expect(t).toMatchObject({ from: 2, to: 1, direction: 'down' });
    expect(l.history.map((h) => h.direction)).toEqual(['down']);
  });

  it('round-trips through JSON mid-window', () => {
    const l = new DifficultyLadder(sat.levels, { window: 4 });
    for (let s = 0; s < 6; s++) l.record(s, 8, 8);
    const restored = DifficultyLadder.fromJSON(JSON.parse(JSON.stringify(l.toJSON())));
    expect(restored.toJSON()).toEqual(l.toJSON());
    for (let s = 6; s < 12; s++) expect(restored.record(s, 7, 8)).toEqual(l.record(s, 7, 8));
    expect(restored.level).toBe(l.level);
  });

  it('rejects bad options', () => {
    expect(() => new DifficultyLadder([])).toThrow(/at least one level/);
    expect(() => new DifficultyLadder(levels, { window: 0 })).toThrow(/window/);
    expect(() => new DifficultyLadder(levels, { advanceAt: 0.3, stepBackAt: 0.5 })).toThrow(/stepBackAt/);
    expect(() => new DifficultyLadder(levels, { startLevel: 3 })).toThrow(/startLevel/);
  });

  it('FixedDifficulty never moves', () => {
    const f = new FixedDifficulty({ n: 5 });
    f.record();
    expect(f.current()).toEqual({ n: 5 });
  });
});

describe('filterGroups', () => {
  it('keeps groups with accuracy strictly between 0 and 1', () => {
    const groups = [
      { id: 'a', verdicts: [{ correct: true }, { correct: true }] },
      { id: 'b', verdicts: [{ correct: false }, { correct: true }] },
      { id: 'c', verdicts: [{ correct: false }, { correct: false }] },
      { id: 'd', verdicts: [{ correct: true }, { correct: false }, { correct: false }] },
    ];
    const r = filterGroups(groups, (g) => groupAccuracy(g.verdicts));
    expect(r.kept.map((g) => g.id)).toEqual(['b', 'd']);
    expect(r.dropped.map((d) => [d.group.id, d.why])).toEqual([
      ['a', 'all-correct'],
      ['c', 'all-wrong'],
    ]);
    expect(filterGroups(groups, (g) => groupAccuracy(g.verdicts), { low: 0.4 }).kept.map((g) => g.id)).toEqual(['b']);
    expect(groupAccuracy([])).toBe(0);
  });
});

describe('hintFor', () => {
  it('returns a prefix of the reference starting with <think>, never revealing the answer', () => {
    for (const f of taskFamilies.filter((x) => x.id !== 'custom')) {
      const inst = f.generate(9);
      let last = 0;
      for (const frac of [0, 0.25, 0.5, 0.75, 1, 7, -1, Number.NaN]) {
        const h = hintFor(inst, frac);
        expect(h.hinted).toBe(true);
        expect(h.prefix.startsWith('<think>')).toBe(true);
        expect(inst.reference.startsWith(h.prefix)).toBe(true);
        expect(h.prefix).not.toContain('<answer>');
        if (frac >= 0 && frac <= 1) {
          expect(h.prefix.length).toBeGreaterThanOrEqual(last);
          last = h.prefix.length;
        }
      }
      expect(hintFor(inst, 1).prefix.endsWith('</think>')).toBe(true);
      expect(hintFor(inst, 0).prefix).toBe('<think>');
    }
  });

  it('steps through hint tiers', () => {
    expect(nextHintFraction(undefined)).toBe(0.25);
    expect(nextHintFraction(0.25)).toBe(0.5);
    expect(nextHintFraction(1)).toBeNull();
  });
});
