/**
 * The run viewer's search filters and sort in a link (src/ui/derive/url-state.ts reads every `f.` key
 * through here; docs/viewer.md lists them): short keys, ranges written `lo..hi` with either end left out.
 *
 *   f.q=TEXT  f.re=1  f.in=prompt|completion   the text, as a regular expression, where it is looked for
 *   f.r=LO..HI            the total reward          f.r.NAME=LO..HI   one reward function's
 *   f.adv=LO..HI          the advantage             f.sign=positive|negative|zero
 *   f.len=LO..HI          the length                f.trunc=1|0       truncated or not
 *   f.zv=1                zero-variance groups      f.find=KIND       rows a finding of that kind points at
 *   f.sort=reward|advantage|length|reward.NAME      f.dir=asc|desc
 */
import { type FindingKind, findingKinds } from '../../runs/findings/types.ts';
import { isSortKey } from '../../runs/search-wire.ts';
import type { NumberRange, RunQuery } from '../../runs/types.ts';

export const FILTER_PREFIX = 'f.';

/** The run viewer's place in a link (src/ui/state/viewer-actions.ts writes it while a served run is open). */
export interface ViewerUrl {
  name: string | null;
  step: number | null;
  prompt: string | null;
  /** `finding=KIND`: the Findings panel lists that kind (docs/findings.md); absent for every kind. */
  finding?: FindingKind;
  /** `f.*`: the search's filters and sort (url-filter.ts), run once the run is open. */
  filter?: RunQuery;
}

/** The query for the run viewer's place (without `?`): `view=NAME[&step=S][&prompt=P]`, empty with no run. */
export function viewerToSearch(v: ViewerUrl): string {
  if (!v.name) return '';
  const p = new URLSearchParams({ view: v.name });
  if (v.step !== null) p.set('step', String(v.step));
  if (v.prompt !== null) p.set('prompt', v.prompt);
  if (v.finding) p.set('finding', v.finding);
  for (const [k, value] of filterToParams(v.filter ?? {})) p.set(k, value);
  return p.toString();
}

const range = (min?: number, max?: number) =>
  min === undefined && max === undefined ? null : `${min ?? ''}..${max ?? ''}`;

/** A query's keys and values for a link, in a fixed order. */
export function filterToParams(q: RunQuery): [string, string][] {
  const out: [string, string][] = [];
  const put = (k: string, v: string | null | undefined) => v !== null && v !== undefined && out.push([k, v]);
  put('f.q', q.text);
  if (q.regex) put('f.re', '1');
  if (q.in && q.in !== 'both') put('f.in', q.in);
  put('f.r', range(q.rewardMin, q.rewardMax));
  for (const [name, r] of Object.entries(q.rewardRanges ?? {})) put(`f.r.${name}`, range(r.min, r.max));
  put('f.adv', range(q.advantageMin, q.advantageMax));
  put('f.sign', q.advantageSign);
  put('f.len', range(q.lengthMin, q.lengthMax));
  if (q.truncated !== undefined) put('f.trunc', q.truncated ? '1' : '0');
  if (q.zeroVarianceGroups) put('f.zv', '1');
  put('f.find', q.finding);
  put('f.sort', q.sort);
  if (q.sort && q.order) put('f.dir', q.order);
  return out;
}

/** `lo..hi` as a range, or null where it is not one. */
function readRange(raw: string): NumberRange | null {
  const parts = raw.split('..');
  if (parts.length !== 2) return null;
  const [lo, hi] = parts.map((p) => (p.trim() === '' ? undefined : Number(p)));
  if ([lo, hi].some((n) => n !== undefined && !Number.isFinite(n))) return null;
  if (lo !== undefined && hi !== undefined && lo > hi) return null;
  return { ...(lo !== undefined && { min: lo }), ...(hi !== undefined && { max: hi }) };
}

const rangeNote = (key: string, raw: string) =>
  `${key}=${raw} is not a range (write LO..HI, LO.. or ..HI, LO at most HI); that filter is left out`;

/** Reads one `f.` key of a link into `q`; returns a note saying what was wrong, or null. */
export function readFilterParam(key: string, raw: string, q: RunQuery): string | null {
  const name = key.slice(FILTER_PREFIX.length);
  const ranged = (set: (r: NumberRange) => void) => {
    const r = readRange(raw);
    if (!r) return rangeNote(key, raw);
    set(r);
    return null;
  };
  const oneOf = <T extends string>(words: readonly T[], set: (w: T) => void) => {
    const w = words.find((x) => x === raw);
    if (w === undefined) return `${key}=${raw} is not one of ${words.join(', ')}; that filter is left out`;
    set(w);
    return null;
  };
  if (name.startsWith('r.') && name.length > 2)
    return ranged((r) => (q.rewardRanges = { ...q.rewardRanges, [name.slice(2)]: r }));
  switch (name) {
    case 'q':
      q.text = raw;
      return null;
    case 're':
      q.regex = raw === '1';
      return null;
    case 'in':
      return oneOf(['prompt', 'completion', 'both'] as const, (w) => (q.in = w));
    case 'r':
      return ranged((r) => ((q.rewardMin = r.min), (q.rewardMax = r.max)));
    case 'adv':
      return ranged((r) => ((q.advantageMin = r.min), (q.advantageMax = r.max)));
    case 'len':
      return ranged((r) => ((q.lengthMin = r.min), (q.lengthMax = r.max)));
    case 'sign':
      return oneOf(['positive', 'negative', 'zero'] as const, (w) => (q.advantageSign = w));
    case 'trunc':
      return oneOf(['1', '0'] as const, (w) => (q.truncated = w === '1'));
    case 'zv':
      q.zeroVarianceGroups = raw === '1';
      return null;
    case 'find':
      return oneOf(findingKinds, (w) => (q.finding = w));
    case 'sort':
      if (!isSortKey(raw))
        return `${key}=${raw} is not reward, advantage, length or reward.NAME; the hits are in step order`;
      q.sort = raw;
      return null;
    case 'dir':
      return oneOf(['asc', 'desc'] as const, (w) => (q.order = w));
    default:
      return `unknown setting "${key}" in the link was ignored`;
  }
}

/** Drops the fields a range left unset (`rewardMin: undefined`), so two equal queries compare equal. */
export function cleanQuery(q: RunQuery): RunQuery {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as RunQuery;
}
