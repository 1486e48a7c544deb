import { describe, expect, it } from 'vitest';
import { emptySearchForm, parseSearchForm, searchStatus } from './search-form.ts';

describe('the viewer search form', () => {
  it('an empty form filters nothing', () => {
    expect(parseSearchForm(emptySearchForm)).toEqual({ ok: true, query: {} });
  });
  it('every field becomes its query field', () => {
    const r = parseSearchForm({
      ...emptySearchForm,
      text: 'ans.*4',
      regex: true,
      in: 'completion',
      rewardMin: '0.5',
      rewardMax: ' 2 ',
      advantageSign: 'negative',
      lengthMin: '3',
      lengthMax: '',
      zeroVarianceGroups: true,
      truncated: true,
    });
    expect(r).toEqual({
      ok: true,
      query: {
        text: 'ans.*4',
        regex: true,
        in: 'completion',
        rewardMin: 0.5,
        rewardMax: 2,
        advantageSign: 'negative',
        lengthMin: 3,
        zeroVarianceGroups: true,
        truncated: true,
      },
    });
  });
  it('names what is wrong: a bad pattern, a number that is not one, an empty range', () => {
    expect(parseSearchForm({ ...emptySearchForm, text: 'a(', regex: true })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the pattern \/a\(\/ is not a regular expression/),
    });
    expect(parseSearchForm({ ...emptySearchForm, text: 'a(' })).toMatchObject({ ok: true });
    expect(parseSearchForm({ ...emptySearchForm, lengthMin: 'ten' })).toEqual({
      ok: false,
      error: 'length from "ten" is not a number',
    });
    expect(parseSearchForm({ ...emptySearchForm, rewardMin: '2', rewardMax: '1' })).toEqual({
      ok: false,
      error: 'the reward range 2 to 1 is empty',
    });
  });
  it('says how far a search got and what it found', () => {
    expect(searchStatus({ done: 3, total: 10, hits: 7 }, null, 100)).toBe('Searching: step 3 of 10, 7 found so far…');
    expect(searchStatus(null, null, 0, true)).toBe('Searching: reading the first steps…');
    expect(searchStatus(null, null, 0)).toBe('');
    const result = { hits: [], count: 250, stepsSearched: 4, cancelled: true };
    expect(searchStatus(null, result, 200)).toBe(
      'Cancelled: 250 completions match in 4 steps searched (the first 200 shown)',
    );
  });
});
