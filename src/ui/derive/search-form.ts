/**
 * The viewer's search form as the person typed it, and the reader's query it stands for
 * (src/runs/types.ts RunQuery): each field checked, with a message naming the field when its text is
 * not acceptable. Pure TypeScript (search-form.test.ts).
 */
import type { RunQuery, RunSearchProgress, RunSearchResult } from '../../runs/types.ts';

export interface SearchForm {
  text: string;
  regex: boolean;
  in: 'prompt' | 'completion' | 'both';
  rewardMin: string;
  rewardMax: string;
  advantageSign: '' | 'positive' | 'negative' | 'zero';
  lengthMin: string;
  lengthMax: string;
  zeroVarianceGroups: boolean;
  truncated: boolean;
}

export const emptySearchForm: SearchForm = {
  text: '',
  regex: false,
  in: 'both',
  rewardMin: '',
  rewardMax: '',
  advantageSign: '',
  lengthMin: '',
  lengthMax: '',
  zeroVarianceGroups: false,
  truncated: false,
};

export type ParsedSearch = { ok: true; query: RunQuery } | { ok: false; error: string };

function numberField(label: string, raw: string): number | undefined | string {
  const t = raw.trim();
  if (t === '') return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : `${label} "${raw}" is not a number`;
}

/** The form as a query, or the first thing wrong with it. */
export function parseSearchForm(f: SearchForm): ParsedSearch {
  const q: RunQuery = {};
  if (f.text !== '') {
    if (f.regex) {
      try {
        new RegExp(f.text);
      } catch (e) {
        return { ok: false, error: `the pattern /${f.text}/ is not a regular expression: ${(e as Error).message}` };
      }
    }
    Object.assign(q, { text: f.text, regex: f.regex, in: f.in });
  }
  const ranges: [keyof RunQuery, string, string][] = [
    ['rewardMin', 'reward from', f.rewardMin],
    ['rewardMax', 'reward to', f.rewardMax],
    ['lengthMin', 'length from', f.lengthMin],
    ['lengthMax', 'length to', f.lengthMax],
  ];
  for (const [key, label, raw] of ranges) {
    const v = numberField(label, raw);
    if (typeof v === 'string') return { ok: false, error: v };
    if (v !== undefined) (q as Record<string, unknown>)[key] = v;
  }
  if (q.rewardMin !== undefined && q.rewardMax !== undefined && q.rewardMin > q.rewardMax) {
    return { ok: false, error: `the reward range ${q.rewardMin} to ${q.rewardMax} is empty` };
  }
  if (q.lengthMin !== undefined && q.lengthMax !== undefined && q.lengthMin > q.lengthMax) {
    return { ok: false, error: `the length range ${q.lengthMin} to ${q.lengthMax} is empty` };
  }
  if (f.advantageSign) q.advantageSign = f.advantageSign;
  if (f.zeroVarianceGroups) q.zeroVarianceGroups = true;
  if (f.truncated) q.truncated = true;
  return { ok: true, query: q };
}

/**
 * The line under the search: how far it got and what it found. A search that has no step done yet says it
 * is reading (its first request holds many steps' files).
 */
export function searchStatus(
  progress: RunSearchProgress | null,
  result: RunSearchResult | null,
  shown: number,
  running = false,
): string {
  if (result) {
    const matches = `${result.count} completion${result.count === 1 ? '' : 's'} match`;
    const where = `in ${result.stepsSearched} step${result.stepsSearched === 1 ? '' : 's'} searched`;
    const cut = result.count > shown ? ` (the first ${shown} shown)` : '';
    return `${result.cancelled ? 'Cancelled: ' : ''}${matches} ${where}${cut}`;
  }
  if (progress) return `Searching: step ${progress.done} of ${progress.total}, ${progress.hits} found so far…`;
  return running ? 'Searching: reading the first steps…' : '';
}
