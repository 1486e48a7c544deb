// The search's filters by reward function, advantage, truncation and finding, its sort and its reward
// histogram (src/runs/search-query.ts, reward-histogram.ts, opened-run.ts), checked against a plain
// filter-and-sort of every row; and on veRL dumps written as veRL writes them (verl-fixture.ts follows
// verl/trainer/ppo/ray_trainer.py `_dump_generations`), the raw prefilter gives the same answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryRunFiles } from './memory-files.ts';
import { openRun } from './detect.ts';
import { openSource, type RunSource } from './opened-run.ts';
import { histogramBars, HistogramCounter } from './reward-histogram.ts';
import { compareHits, findingRowsOf } from './search-query.ts';
import type { RunCompletion, RunQuery, RunSearchHit } from './types.ts';
import { verlDumpGenerations } from './verl-fixture.ts';

const STEPS = 6;
const ROWS = 8;
/** Row i of step s: rewards `correct` and `format`, an advantage, a length, every third truncated. */
function row(s: number, i: number): RunCompletion {
  const correct = (s * 3 + i) % 4 === 0 ? 1 : 0;
  const format = ((s + i) % 5) / 4;
  return {
    row: i,
    prompt: `prompt ${s}.${i >> 1}`,
    completion: `answer ${s}.${i}${i % 3 === 0 ? ' needle' : ''}`,
    rewards: { correct, format },
    reward: correct + format,
    advantage: i === 5 ? Number.NaN : (i - 3.5) / 2,
    length: 10 + ((s * 7 + i * 5) % 13),
    lengthUnit: 'tokens',
    truncated: i % 3 === 1,
    extra: {},
  };
}
const allRows = () => Array.from({ length: STEPS }, (_, s) => Array.from({ length: ROWS }, (_, i) => row(s + 1, i)));

const source: RunSource = {
  index: async () => ({
    name: 'mem',
    format: 'jsonl',
    steps: Array.from({ length: STEPS }, (_, s) => s + 1),
    metrics: [],
    rewardNames: ['correct', 'format'],
    problems: [],
    notes: [],
  }),
  readRows: async (step) => ({ rows: allRows()[step - 1]!, problems: [] }),
};

const asHit = (step: number, c: RunCompletion): RunSearchHit => ({
  step,
  group: c.row >> 1,
  row: c.row,
  prompt: c.prompt,
  completion: c.completion,
  reward: c.reward,
  advantage: c.advantage,
  length: c.length,
  rewards: c.rewards,
  truncated: c.truncated,
});

/** Every row that `keep` accepts, as hits, in the query's order. */
function expected(query: RunQuery, keep: (c: RunCompletion, step: number) => boolean): RunSearchHit[] {
  const hits = allRows().flatMap((rows, s) => rows.filter((c) => keep(c, s + 1)).map((c) => asHit(s + 1, c)));
  return hits.sort(compareHits(query));
}

describe('search filters, sort and histogram', () => {
  it('filters by one reward function, the advantage and truncation, over every step', async () => {
    const run = await openSource(source);
    const query: RunQuery = {
      rewardRanges: { format: { min: 0.25, max: 0.75 } },
      advantageMin: -1,
      truncated: false,
    };
    const r = await run.search(query, { limit: 1000 });
    const want = expected(query, (c) => c.rewards.format! >= 0.25 && c.rewards.format! <= 0.75 && c.advantage! >= -1);
    expect(r.count).toBe(want.filter((h) => !h.truncated).length);
    expect(r.hits).toEqual(want.filter((h) => !h.truncated));
    expect(r.count).toBeGreaterThan(3);
  });

  it('sorts every match by a reward function, descending, and keeps the first `limit`', async () => {
    const run = await openSource(source);
    const query: RunQuery = { text: 'needle', sort: 'reward.format', order: 'desc' };
    const r = await run.search(query, { limit: 5 });
    const want = expected(query, (c) => c.completion.includes('needle'));
    expect(r.count).toBe(want.length);
    expect(r.hits).toEqual(want.slice(0, 5));
    expect(r.hits.map((h) => h.rewards!.format)).toEqual([...r.hits.map((h) => h.rewards!.format!)].sort().reverse());
    // NaN advantages go last, ascending or descending.
    const byAdvantage = await run.search({ sort: 'advantage', order: 'desc' }, { limit: 1000 });
    expect(Number.isNaN(byAdvantage.hits.at(-1)!.advantage)).toBe(true);
    expect(byAdvantage.hits[0]!.advantage).toBe(1.75);
  });

  it('filters by the rows findings of a kind point at, and asks for them', async () => {
    const run = await openSource(source);
    const findings = [
      { kind: 'truncation', step: 2, rows: [1, 4] },
      { kind: 'repetition', step: 3, rows: [0] },
      { kind: 'truncation', step: 5, rows: [7] },
    ];
    const findingRows = findingRowsOf(findings, 'truncation');
    const r = await run.search({ finding: 'truncation' }, { findingRows });
    expect(r.hits.map((h) => [h.step, h.row])).toEqual([
      [2, 1],
      [2, 4],
      [5, 7],
    ]);
    await expect(run.search({ finding: 'truncation' })).rejects.toThrow(/finding=truncation .* not given/);
  });

  it("counts every match's total reward into the histogram, and each bar's range selects its count", async () => {
    const run = await openSource(source);
    const query: RunQuery = { truncated: false };
    const r = await run.search(query, { limit: 2, histogram: true });
    const bars = histogramBars(r.histogram!);
    expect(bars.reduce((a, b) => a + b.count, 0)).toBe(r.count);
    for (const bar of bars) {
      const inBar = await run.search({ ...query, rewardMin: bar.min, rewardMax: bar.max }, { limit: 0 });
      expect(inBar.count).toBe(bar.count);
    }
  });
});

describe('reward histogram', () => {
  const values = fc.array(
    fc.oneof(
      fc.double({ min: -5, max: 5, noNaN: true }),
      fc.constantFrom(0, 1, 0.5, Number.NaN, Number.POSITIVE_INFINITY),
    ),
    { maxLength: 3000 },
  );

  it('is the same however the values are split into shares and merged, and bars select their counts', () => {
    fc.assert(
      fc.property(values, fc.array(fc.nat(), { maxLength: 6 }), (xs, cuts) => {
        const whole = new HistogramCounter();
        for (const x of xs) whole.add(x);
        const at = [0, ...new Set(cuts.map((c) => c % (xs.length + 1)))].sort((a, b) => a - b);
        const merged = new HistogramCounter();
        // the shares merged last first, as threads may answer
        for (const [k, from] of [...at.entries()].reverse()) {
          const share = new HistogramCounter();
          for (const x of xs.slice(from, at[k + 1] ?? xs.length)) share.add(x);
          merged.merge(share.result());
        }
        expect(merged.result()).toEqual(whole.result());
        const h = whole.result();
        expect(h.bins.length).toBeLessThanOrEqual(256);
        // The narrowest width: half as wide, more than 256 bins would hold values (or, exact, few values).
        const finite = xs.filter(Number.isFinite);
        if (h.width === 0) expect(new Set(finite).size).toBeLessThanOrEqual(256);
        else expect(new Set(finite.map((x) => Math.floor(x / (h.width / 2)))).size).toBeGreaterThan(256);
        expect(h.bins.reduce((a, b) => a + b[1], 0) + h.nonFinite).toBe(xs.length);
        for (const bar of histogramBars(h)) {
          expect(xs.filter((x) => x >= bar.min && x <= bar.max).length).toBe(bar.count);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('keeps one bin per value for few distinct values, and at most 256 bins for many', () => {
    const few = new HistogramCounter();
    for (const x of [0, 1, 1, 0.5, 0, Number.NaN]) few.add(x);
    expect(few.result()).toEqual({
      width: 0,
      bins: [
        [0, 2, 0, 0],
        [0.5, 1, 0.5, 0.5],
        [1, 2, 1, 1],
      ],
      nonFinite: 1,
    });
    const many = new HistogramCounter();
    for (let i = 0; i < 100_000; i++) many.add(Math.sin(i) * 3);
    const h = many.result();
    expect(h.width).toBe(2 ** -5); // 3·sin spans 6: 192 bins of 2^-5, 384 of 2^-6
    const thousandths = new HistogramCounter();
    for (let k = 999; k >= 0; k--) thousandths.add(k / 1000);
    expect(thousandths.result().width).toBe(2 ** -8);
    const justOver = new HistogramCounter();
    for (let k = 0; k <= 256; k++) justOver.add(k / 256);
    expect(justOver.result().width).toBe(2 ** -7); // 257 bins of 2^-8
    expect(h.bins.length).toBeLessThanOrEqual(256);
    expect(h.bins.reduce((a, b) => a + b[1], 0)).toBe(100_000);
  });
});

describe('the raw prefilter with the new filters (veRL)', () => {
  it('gives the same hits, count and histogram as reading every line', async () => {
    const files: Record<string, string> = {};
    for (let s = 1; s <= 5; s++) {
      const n = 6;
      const d = verlDumpGenerations({
        step: s,
        inputs: Array.from({ length: n }, (_, i) => `question ${s} ${i >> 1}`),
        outputs: Array.from({ length: n }, (_, i) => (i % 2 ? `the Needle ${i}` : `hay ${i}`)),
        gts: null,
        scores: Array.from({ length: n }, (_, i) => ((s + i) % 3) / 2),
        rewardExtraInfos: { acc: Array.from({ length: n }, (_, i) => (i + s) % 2) },
      });
      files[`dump/${d.name}`] = d.text;
    }
    const run = await openRun(memoryRunFiles('dump', files), { path: 'dump', name: 'dump', format: 'verl' });
    expect(run.index.rewardNames).toContain('acc');
    const query: RunQuery = { text: 'needle', rewardRanges: { acc: { min: 1 } }, sort: 'reward', order: 'desc' };
    const plain = await run.search(query, { histogram: true });
    const prefiltered = await run.search(query, { histogram: true, rawPrefilter: true });
    expect(prefiltered).toEqual(plain);
    expect(plain.count).toBeGreaterThan(0);
    expect(plain.hits.every((h) => h.rewards!.acc === 1 && /needle/i.test(h.completion))).toBe(true);
  });
});
