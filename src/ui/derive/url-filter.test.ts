// The run viewer's search filters and sort in a link (url-filter.ts, read through url-state.ts's one
// table), and the search form that stands for them (search-form.ts formFromQuery).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findingKinds } from '../../runs/findings/types.ts';
import type { RunQuery } from '../../runs/types.ts';
import { formFromQuery, parseSearchForm } from './search-form.ts';
import { searchToSetup, viewerToSearch } from './url-state.ts';

const place = { name: 'run', step: 3, prompt: null };

describe('filters and sort in a link', () => {
  it('reads the short keys into the query', () => {
    const link =
      'view=run&f.q=ans&f.re=1&f.in=completion&f.r=0..1.5&f.r.correct=1..&f.r.format=..0.5&f.adv=-1..' +
      '&f.sign=positive&f.len=10..200&f.trunc=0&f.zv=1&f.find=truncation&f.sort=reward.correct&f.dir=desc';
    const { page, notes } = searchToSetup(link);
    expect(notes).toEqual([]);
    expect(page.viewer.filter).toEqual({
      text: 'ans',
      regex: true,
      in: 'completion',
      rewardMin: 0,
      rewardMax: 1.5,
      rewardRanges: { correct: { min: 1 }, format: { max: 0.5 } },
      advantageMin: -1,
      advantageSign: 'positive',
      lengthMin: 10,
      lengthMax: 200,
      truncated: false,
      zeroVarianceGroups: true,
      finding: 'truncation',
      sort: 'reward.correct',
      order: 'desc',
    });
  });

  it('writes a query and reads it back the same, for any query', () => {
    const num = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((x) => x + 0);
    const range = fc
      .tuple(fc.option(num, { nil: undefined }), fc.option(num, { nil: undefined }))
      .map(([a, b]) => (a !== undefined && b !== undefined && a > b ? [b, a] : [a, b]));
    const name = fc.constantFrom('correct', 'format', 'len.penalty', 'ünï code');
    const query = fc
      .record(
        {
          text: fc.string(),
          regex: fc.constant(true),
          reward: range,
          ranges: fc.dictionary(name, range),
          finding: fc.constantFrom(...findingKinds),
          sort: fc.constantFrom('reward', 'advantage', 'length', 'reward.correct'),
          order: fc.constantFrom('asc', 'desc'),
        },
        { requiredKeys: [] },
      )
      .map((r) => {
        const q: RunQuery = {};
        if (r.text !== undefined) q.text = r.text;
        if (r.regex) q.regex = true;
        if (r.reward?.[0] !== undefined) q.rewardMin = r.reward[0];
        if (r.reward?.[1] !== undefined) q.rewardMax = r.reward[1];
        for (const [k, [min, max]] of Object.entries(r.ranges ?? {}))
          if (min !== undefined || max !== undefined)
            q.rewardRanges = {
              ...q.rewardRanges,
              [k]: { ...(min !== undefined && { min }), ...(max !== undefined && { max }) },
            };
        if (r.finding) q.finding = r.finding;
        if (r.sort) q.sort = r.sort as RunQuery['sort'];
        if (r.sort && r.order) q.order = r.order as 'asc' | 'desc';
        return q;
      });
    fc.assert(
      fc.property(query, (q) => {
        const { page, notes } = searchToSetup(viewerToSearch({ ...place, filter: q }));
        expect(notes).toEqual([]);
        expect(page.viewer.filter ?? {}).toEqual(q);
        expect(page.viewer.step).toBe(3);
      }),
      { numRuns: 200 },
    );
  });

  it('names a key that is wrong and leaves that filter out', () => {
    const { page, notes } = searchToSetup('view=run&f.r=2..1&f.find=bad_luck&f.sort=size&f.len=x..&f.r.correct=0..1');
    expect(notes).toEqual([
      'f.r=2..1 is not a range (write LO..HI, LO.. or ..HI, LO at most HI); that filter is left out',
      expect.stringMatching(/^f\.find=bad_luck is not one of zero_variance_group, /),
      'f.sort=size is not reward, advantage, length or reward.NAME; the hits are in step order',
      'f.len=x.. is not a range (write LO..HI, LO.. or ..HI, LO at most HI); that filter is left out',
    ]);
    expect(page.viewer.filter).toEqual({ rewardRanges: { correct: { min: 0, max: 1 } } });
  });

  it("a link's query fills the search form, which gives the query back", () => {
    const q: RunQuery = {
      text: 'x',
      regex: true,
      in: 'prompt',
      rewardMin: 0.25,
      rewardRanges: { correct: { min: 1 }, format: { min: 0, max: 0.5 } },
      advantageMax: 0,
      lengthMin: 3,
      truncated: true,
      finding: 'repetition',
      sort: 'reward.format',
      order: 'asc',
    };
    expect(parseSearchForm(formFromQuery(q))).toEqual({ ok: true, query: q });
    const untruncated: RunQuery = { truncated: false, zeroVarianceGroups: true };
    expect(parseSearchForm(formFromQuery(untruncated))).toEqual({ ok: true, query: untruncated });
    expect(parseSearchForm({ ...formFromQuery(q), rewardRanges: { correct: { min: '2', max: '1' } } })).toEqual({
      ok: false,
      error: 'the correct range 2 to 1 is empty',
    });
  });
});
