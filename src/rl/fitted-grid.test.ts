import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import type { DeviceTensor } from '../engine/backend.ts';
import { Graph } from '../engine/graph.ts';
import { modelPresets } from '../model/config.ts';
import { sequenceInputs, tokenStats, trainState } from '../model/graphs.ts';
import {
  chooseGrid,
  fitCompletions,
  pack,
  predictingColumn,
  promptGroups,
  splitShared,
  totalLen,
  type Layout,
} from '../model/layout.ts';
import { Policy, SESSIONS_PER_KIND } from '../model/policy.ts';
import { initParams } from '../model/transformer.ts';
import { Rng } from '../util/rng.ts';
import { buildRlGraph, objectiveInputs, policyObjective, type ObjectiveFeeds } from './objective.ts';

const cfg = modelPresets.nano;
const runLayout: Layout = { promptLen: 8, completionLen: 24 };

describe('fitCompletions', () => {
  it('keeps the prompt columns and rounds the longest completion up to a multiple of 8, never past the cap', () => {
    expect(
      fitCompletions(runLayout, [
        [1, 2],
        [1, 2, 3, 4, 5, 6, 7, 8, 9],
      ]),
    ).toEqual({ promptLen: 8, completionLen: 16 });
    expect(fitCompletions(runLayout, [[1, 2, 3, 4, 5, 6, 7, 8]])).toEqual({ promptLen: 8, completionLen: 8 });
    expect(fitCompletions(runLayout, [[]])).toEqual({ promptLen: 8, completionLen: 8 });
    expect(fitCompletions(runLayout, [new Array(40).fill(3)])).toEqual({ promptLen: 8, completionLen: 24 });
    expect(fitCompletions({ promptLen: 8, completionLen: 20 }, [new Array(19).fill(3)])).toEqual({
      promptLen: 8,
      completionLen: 20,
    });
  });
});

describe('chooseGrid', () => {
  const layout: Layout = { promptLen: 16, completionLen: 48 };
  const comps = (n: number) => [new Array(n).fill(3)];
  const compiledAt =
    (...cols: number[]) =>
    (l: Layout) =>
      l.promptLen === 16 && cols.includes(l.completionLen);
  it('takes the fitted grid when nothing longer within the slack is compiled', () => {
    expect(chooseGrid(layout, comps(20), compiledAt())).toEqual({ promptLen: 16, completionLen: 24 });
    // 16 + 48 = 64 columns > 1.25 × (16 + 24) = 50: too much padding to reuse
    expect(chooseGrid(layout, comps(20), compiledAt(48))).toEqual({ promptLen: 16, completionLen: 24 });
  });
  it('prefers the fitted grid, then the shortest compiled grid within the slack', () => {
    expect(chooseGrid(layout, comps(30), compiledAt(32, 40))).toEqual({ promptLen: 16, completionLen: 32 });
    expect(chooseGrid(layout, comps(30), compiledAt(40, 48))).toEqual({ promptLen: 16, completionLen: 40 });
    // 16 + 48 = 64 <= 1.25 × (16 + 40) = 70
    expect(chooseGrid(layout, comps(33), compiledAt(48))).toEqual({ promptLen: 16, completionLen: 48 });
  });
  it('never goes past the layout, whose cap need not be a multiple of 8', () => {
    const odd: Layout = { promptLen: 16, completionLen: 44 };
    expect(chooseGrid(odd, comps(35), compiledAt(44))).toEqual({ promptLen: 16, completionLen: 44 });
    expect(chooseGrid(odd, comps(35), compiledAt(48))).toEqual({ promptLen: 16, completionLen: 40 });
  });
  it('settles a run whose longest completion wanders over three buckets on two compiled grids', () => {
    const compilesOver = (pick: (n: number, kept: number[]) => number) => {
      const kept: number[] = []; // completion columns of the kept sessions, least recently used first
      let compiles = 0;
      for (const n of [30, 38, 46, 30, 38, 30, 46, 30, 38, 30, 46, 30]) {
        const c = pick(n, kept);
        if (!kept.includes(c)) compiles++;
        kept.splice(0, kept.length, ...kept.filter((k) => k !== c).slice(-(SESSIONS_PER_KIND - 1)), c);
      }
      return compiles;
    };
    expect(
      compilesOver((n, kept) => chooseGrid(layout, comps(n), (l) => kept.includes(l.completionLen)).completionLen),
    ).toBe(3);
    expect(compilesOver((n) => fitCompletions(layout, comps(n)).completionLen)).toBe(8);
  });
});

const adam = { beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 };

/** The RL update as it was before prompts were shared: every row runs the whole grid (the reference). */
function buildWholeGridRlGraph(rows: number, len: number): Graph {
  const g = new Graph();
  const st = trainState(g, cfg);
  const s = sequenceInputs(g, rows, len);
  const { logp, entropy } = tokenStats(g, cfg, st.p, s, true);
  const o = policyObjective(g, objectiveInputs(g, rows, len, logp, entropy!));
  g.output(logp, 'logp');
  g.output(entropy!, 'entropy');
  st.finish(o.loss, adam);
  return g;
}

/**
 * One GRPO update of a fresh policy on the given grid, by the app's graph (each distinct prompt once,
 * padded to `slots`) or the whole-grid reference; returns the scalar outputs, the per-token log-probs
 * and entropies, and the new weights.
 */
async function updateOn(
  layout: Layout,
  prompts: number[][],
  completions: number[][],
  graph: { slots: number } | 'whole grid' = { slots: 0 },
) {
  const be = createNodeBackend(1);
  const policy = await Policy.create(be, cfg, layout, initParams(cfg, 11));
  const rows = prompts.length;
  const len = totalLen(layout);
  const rng = new Rng(5);
  const grid = (fill: (r: number, i: number) => number) => {
    const a = new Float32Array(rows * len);
    completions.forEach((c, r) => c.forEach((_, i) => (a[r * len + predictingColumn(layout, i)] = fill(r, i))));
    return be.tensor('float32', a, [rows, len]);
  };
  const old = completions.map((c) => c.map(() => -1 - rng.next()));
  const adv = completions.map(() => rng.next() - 0.5);
  const packed = pack(layout, prompts, completions);
  const split = splitShared(packed, layout.promptLen, promptGroups(prompts), graph === 'whole grid' ? 0 : graph.slots);
  const objective: ObjectiveFeeds<DeviceTensor> = {
    old_logp: grid((r, i) => old[r]![i]!),
    ref_logp: grid((r, i) => old[r]![i]! - 0.1),
    advantages: grid((r) => adv[r]!),
    weights: grid((r) => 1 / (completions[r]!.length * rows)),
    mask: grid(() => 1),
    seq_len: be.tensor(
      'float32',
      completions.map((c) => c.length),
      [rows, 1],
    ),
    clip_low: be.tensor('float32', [0.8], []),
    clip_high: be.tensor('float32', [1.2], []),
    delta: be.tensor('float32', [1e9], []),
    beta: be.tensor('float32', [0.04], []),
    entropy_coef: be.tensor('float32', [0.01], []),
    sequence_level: be.tensor('bool', [0], []),
    use_k3: be.tensor('bool', [1], []),
    use_bias_correction_kl: be.tensor('bool', [0], []),
  };
  const feeds = {
    ...(graph === 'whole grid' ? policy.packedFeeds(packed, 1 / 0.9) : policy.sharedFeeds(split, 1 / 0.9)),
    ...objective,
  };
  const build = () =>
    graph === 'whole grid'
      ? buildWholeGridRlGraph(rows, len)
      : buildRlGraph(cfg, rows, split.distinct, layout.promptLen, len, adam);
  const res = await policy.train('rl', build, feeds, 1e-3);
  const at = (name: string) =>
    completions.map((c, r) => c.map((_, i) => res.values[name]![r * len + predictingColumn(layout, i)]!));
  const weights = await policy.getWeights();
  await policy.dispose();
  return {
    loss: res.loss,
    gradNorm: res.gradNorm,
    logp: at('logp'),
    entropy: at('entropy'),
    weights,
    distinct: split.distinct,
  };
}

function expectSameUpdate(a: Awaited<ReturnType<typeof updateOn>>, b: Awaited<ReturnType<typeof updateOn>>): void {
  expect(Math.abs(a.loss - b.loss)).toBeLessThan(1e-6);
  expect(Math.abs(a.gradNorm - b.gradNorm)).toBeLessThan(1e-5 * b.gradNorm);
  a.logp.forEach((row, r) => row.forEach((v, i) => expect(Math.abs(v - b.logp[r]![i]!)).toBeLessThan(1e-5)));
  a.entropy.forEach((row, r) => row.forEach((v, i) => expect(Math.abs(v - b.entropy[r]![i]!)).toBeLessThan(1e-5)));
  let worst = 0;
  for (const [name, w] of b.weights) {
    const v = a.weights.get(name)!;
    for (let i = 0; i < w.length; i++) worst = Math.max(worst, Math.abs(v[i]! - w[i]!));
  }
  expect(worst).toBeLessThan(1e-6);
}

describe('the fitted grid', () => {
  it('gives the same update as the full grid: loss, grad norm, per-token log-probs and new weights', async () => {
    const rng = new Rng(3);
    const tokens = (n: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * 20));
    const prompts = [3, 8, 5, 6].map(tokens);
    const completions = [4, 11, 1, 7].map(tokens);
    const fitted = fitCompletions(runLayout, completions);
    expect(totalLen(fitted)).toBeLessThan(totalLen(runLayout));
    expectSameUpdate(await updateOn(fitted, prompts, completions), await updateOn(runLayout, prompts, completions));
  }, 60_000);
});

describe('an update that passes each distinct prompt once', () => {
  it('equals the whole-grid update: loss, grad norm, per-token log-probs and entropies, new weights', async () => {
    const layout: Layout = { promptLen: 12, completionLen: 16 };
    const rng = new Rng(3);
    const tokens = (n: number) => Array.from({ length: n }, () => 5 + Math.floor(rng.next() * 20));
    const distinctPrompts = [3, 12, 7].map(tokens);
    // 3 prompts × 3 rows, interleaved; completions from 1 token to the full 16 columns.
    const prompts = [0, 1, 2, 0, 1, 2, 2, 1, 0].map((i) => distinctPrompts[i]!);
    const completions = [1, 16, 5, 9, 2, 12, 7, 16, 3].map(tokens);
    const whole = await updateOn(layout, prompts, completions, 'whole grid');
    for (const slots of [0, 5]) {
      const shared = await updateOn(layout, prompts, completions, { slots });
      expect(shared.distinct).toBe(Math.max(3, slots));
      expectSameUpdate(shared, whole);
    }
  }, 60_000);

  it('splitShared names a bad split', () => {
    const layout: Layout = { promptLen: 12, completionLen: 16 };
    const b = pack(layout, [[5, 6]], [[7]]);
    expect(() =>
      splitShared(
        b,
        layout.promptLen,
        promptGroups([
          [5, 6],
          [5, 6],
        ]),
      ),
    ).toThrow(/2 prompts for 1 rows/);
    expect(() => splitShared(b, totalLen(layout), promptGroups([[5, 6]]))).toThrow(/cannot split/);
  });
});

describe('compiled sessions', () => {
  it('a policy keeps only the most recently used sessions of each kind, and a dropped one compiles again', async () => {
    const policy = await Policy.create(createNodeBackend(1), cfg, runLayout, initParams(cfg, 2));
    const prompts = [[5, 6, 7]];
    const scoreOf = async (n: number) =>
      (await policy.score(prompts, [Array.from({ length: n }, (_, i) => 5 + (i % 9))])).logp[0]!;
    const first = await scoreOf(3); // grid 8 + 8
    await scoreOf(12); // 8 + 16
    await scoreOf(20); // 8 + 24: the 8 + 8 session is dropped
    const scores = policy.compiledSessions.filter((k) => k.startsWith('score:'));
    expect(scores).toEqual(['score:1x24:u1', 'score:1x32:u1']);
    expect(scores.length).toBe(SESSIONS_PER_KIND);
    expect(await scoreOf(3)).toEqual(first);
    expect(policy.compiledSessions.filter((k) => k.startsWith('score:'))).toEqual(['score:1x32:u1', 'score:1x16:u1']);
    await policy.dispose();
  });
});
