import { describe, expect, it } from 'vitest';
import type { MetricPoint, RunCompletion, RunGroup, RunSearchHit, RunStep } from '../../runs/types.ts';
import {
  curveKeys,
  curvePoints,
  defaultCurves,
  deriveCompletion,
  groupStats,
  inferScaling,
  nearestStep,
  overlayRows,
  promptTimeline,
  sortByReward,
} from './run-view-model.ts';

const completion = (row: number, reward: number, advantage?: number): RunCompletion => ({
  row,
  prompt: 'p',
  completion: `c${row}`,
  rewards: { correctness: reward },
  reward,
  advantage,
  length: 3,
  lengthUnit: 'chars',
  extra: {},
});

function group(index: number, rewards: number[], advantages?: (r: number[]) => number[]): RunGroup {
  const adv = advantages?.(rewards);
  const completions = rewards.map((r, i) => completion(index * 10 + i, r, adv?.[i]));
  const s = groupStats(rewards);
  return { index, prompt: `prompt ${index}`, completions, mean: s.mean, std: s.std };
}

/** TRL's GRPO advantage with scale_rewards="group", written out in float64. */
const trlGroup = (rs: number[]) => {
  const m = rs.reduce((a, b) => a + b, 0) / rs.length;
  const sd = Math.sqrt(rs.reduce((a, b) => a + (b - m) ** 2, 0) / (rs.length - 1));
  return rs.map((r) => (r - m) / (sd + 1e-4));
};
const drGrpo = (rs: number[]) => rs.map((r) => r - rs.reduce((a, b) => a + b, 0) / rs.length);

describe('the run viewer lays out a step', () => {
  it('sorts a group by reward, highest first; ties keep file order; NaN last', () => {
    const sorted = sortByReward([
      completion(0, 0),
      completion(1, 1),
      completion(2, NaN),
      completion(3, 1),
      completion(4, 0.5),
    ]);
    expect(sorted.map((c) => c.row)).toEqual([1, 3, 4, 0, 2]);
  });

  it('mean and n−1 std of a group, and zero variance', () => {
    const s = groupStats([1, 0, 0, 1]);
    expect(s.mean).toBe(0.5);
    expect(s.std).toBeCloseTo(Math.sqrt(1 / 3), 12);
    expect(s.zeroVariance).toBe(false);
    expect(groupStats([2, 2, 2]).zeroVariance).toBe(true);
    expect(groupStats([2]).std).toBe(0);
  });

  it('finds the scaling that reproduces the logged advantages, and derives each one', () => {
    const trl: RunStep = {
      step: 2,
      groups: [group(0, [1, 0, 0, 1], trlGroup), group(1, [1, 1, 1, 1], trlGroup)],
      problems: [],
    };
    expect(inferScaling(trl)).toEqual({ scaling: 'group', matchesLog: true, logged: 8 });
    const d = deriveCompletion(trl, trl.groups[0]!, 0, 'group');
    expect(d.value).toBeCloseTo(trlGroup([1, 0, 0, 1])[0]!, 12);
    expect(d.matches).toBe(true);
    const dr: RunStep = { step: 3, groups: [group(0, [1, 0, 0.5], drGrpo)], problems: [] };
    expect(inferScaling(dr).scaling).toBe('none');
    // veRL logs no advantage: GRPO's default is shown, and nothing is claimed to match.
    const none: RunStep = { step: 1, groups: [group(0, [1, 0])], problems: [] };
    expect(inferScaling(none)).toEqual({ scaling: 'group', matchesLog: false, logged: 0 });
    // An advantage no scaling explains is reported as not matching.
    const odd: RunStep = { step: 1, groups: [group(0, [1, 0], () => [5, -5])], problems: [] };
    expect(inferScaling(odd).matchesLog).toBe(false);
  });
});

describe('curves and the prompt over training', () => {
  const metrics: MetricPoint[] = [
    { step: 1, values: { loss: 0.5, reward: 0.1, 'zz/other': 1 } },
    { step: 2, values: { reward: 0.3, grad_norm: NaN } },
    { step: 4, values: { reward: 0.6, loss: 0.2 } },
  ];
  it('keys: preferred first, then by name; values as logged, skipping steps without the key', () => {
    expect(curveKeys(metrics)).toEqual(['reward', 'loss', 'zz/other']);
    expect(defaultCurves(metrics)).toEqual(['reward', 'loss']);
    expect(curvePoints(metrics, 'loss')).toEqual([
      [1, 0.5],
      [4, 0.2],
    ]);
  });
  it('overlays two runs by step', () => {
    const other: MetricPoint[] = [
      { step: 2, values: { reward: 0.9 } },
      { step: 3, values: { reward: 1 } },
    ];
    expect(overlayRows([metrics, other], 'reward')).toEqual([
      { step: 1, s0: 0.1, s1: null },
      { step: 2, s0: 0.3, s1: 0.9 },
      { step: 3, s0: null, s1: 1 },
      { step: 4, s0: 0.6, s1: null },
    ]);
  });
  it("groups a prompt's hits by step, best first", () => {
    const hit = (step: number, row: number, reward: number): RunSearchHit => ({
      step,
      group: 0,
      row,
      prompt: 'p',
      completion: `s${step}r${row}`,
      reward,
      length: 1,
    });
    const t = promptTimeline([hit(3, 0, 0), hit(1, 0, 0), hit(3, 1, 1), hit(1, 1, 0)]);
    expect(t.map((s) => s.step)).toEqual([1, 3]);
    expect(t[1]!.hits.map((h) => h.row)).toEqual([1, 0]);
    expect(t[1]!.mean).toBe(0.5);
  });
  it("a link's step the run lacks goes to the nearest one", () => {
    expect(nearestStep([2, 4, 8], 5)).toBe(4);
    expect(nearestStep([], 5)).toBe(null);
  });
});
