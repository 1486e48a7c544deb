/**
 * The viewer's search form as the person typed it, and the reader's query it stands for
 * (src/runs/types.ts RunQuery): each field checked, with a message naming the field when its text is
 * not acceptable. Pure TypeScript (search-form.test.ts).
 */
import { isSortKey } from '../../runs/search-wire.ts';
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
  /** Only completions not truncated (a link's `f.trunc=0`); `truncated` wins where both are ticked. */
  untruncated: boolean;
  /** Each reward function's range as typed, by name. */
  rewardRanges: Record<string, { min: string; max: string }>;
  advantageMin: string;
  advantageMax: string;
  /** A finding kind (rows its findings point at), or '' for none. */
  finding: string;
  /** '' (step order), reward, advantage, length or reward.NAME. */
  sort: string;
  order: 'asc' | 'desc';
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
  untruncated: false,
  rewardRanges: {},
  advantageMin: '',
  advantageMax: '',
  finding: '',
  sort: '',
  order: 'desc',
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
  for (const [key, label, raw] of [
    ['advantageMin', 'advantage from', f.advantageMin],
    ['advantageMax', 'advantage to', f.advantageMax],
  ] as const) {
    const v = numberField(label, raw);
    if (typeof v === 'string') return { ok: false, error: v };
    if (v !== undefined) q[key] = v;
  }
  for (const [name, r] of Object.entries(f.rewardRanges)) {
    const min = numberField(`${name} from`, r.min);
    const max = numberField(`${name} to`, r.max);
    if (typeof min === 'string') return { ok: false, error: min };
    if (typeof max === 'string') return { ok: false, error: max };
    if (min !== undefined && max !== undefined && min > max)
      return { ok: false, error: `the ${name} range ${min} to ${max} is empty` };
    if (min === undefined && max === undefined) continue;
    q.rewardRanges = {
      ...q.rewardRanges,
      [name]: { ...(min !== undefined && { min }), ...(max !== undefined && { max }) },
    };
  }
  if (f.advantageSign) q.advantageSign = f.advantageSign;
  if (f.zeroVarianceGroups) q.zeroVarianceGroups = true;
  if (f.truncated) q.truncated = true;
  else if (f.untruncated) q.truncated = false;
  if (f.finding) q.finding = f.finding;
  if (f.sort) {
    if (!isSortKey(f.sort)) return { ok: false, error: `"${f.sort}" is not something the hits can be sorted by` };
    q.sort = f.sort;
    q.order = f.order;
  }
  return { ok: true, query: q };
}

const typed = (n: number | undefined) => (n === undefined ? '' : String(n));

/** The form that stands for a query (a link's `f.*` keys, src/ui/derive/url-filter.ts): parseSearchForm's inverse. */
export function formFromQuery(q: RunQuery): SearchForm {
  const rewardRanges: SearchForm['rewardRanges'] = {};
  for (const [name, r] of Object.entries(q.rewardRanges ?? {}))
    rewardRanges[name] = { min: typed(r.min), max: typed(r.max) };
  return {
    text: q.text ?? '',
    regex: !!q.regex,
    in: q.in ?? 'both',
    rewardMin: typed(q.rewardMin),
    rewardMax: typed(q.rewardMax),
    advantageSign: q.advantageSign ?? '',
    lengthMin: typed(q.lengthMin),
    lengthMax: typed(q.lengthMax),
    zeroVarianceGroups: !!q.zeroVarianceGroups,
    truncated: q.truncated === true,
    untruncated: q.truncated === false,
    rewardRanges,
    advantageMin: typed(q.advantageMin),
    advantageMax: typed(q.advantageMax),
    finding: q.finding ?? '',
    sort: q.sort ?? '',
    order: q.order ?? 'desc',
  };
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
