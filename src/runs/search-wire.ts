/**
 * The search `rlvr view` runs near the files (`GET /search.json`, src/node/view-search.ts) as it travels:
 * a query in the URL and NDJSON lines back, read by the page (src/ui/state/served-search.ts). Shared so
 * both ends agree; numbers JSON cannot hold (NaN, ±Infinity, -0: a veRL score may be NaN) travel as
 * strings, so a hit arrives as the page's own search would have made it.
 */
import type { RewardHistogram, RunProblem, RunQuery, RunSearchHit, RunSortKey } from './types.ts';

/** One NDJSON line of a search's answer. */
export type SearchLine =
  | { type: 'progress'; done: number; total: number; hits: number }
  | { type: 'hit'; hit: WireHit }
  | {
      type: 'done';
      count: number;
      stepsSearched: number;
      cancelled: boolean;
      problems?: RunProblem[];
      histogram?: RewardHistogram;
    }
  | { type: 'error'; message: string };

type WireNumber = number | string;
export type WireHit = Omit<RunSearchHit, 'reward' | 'advantage' | 'length' | 'rewards'> & {
  reward: WireNumber;
  advantage?: WireNumber;
  length: WireNumber;
  rewards?: Record<string, WireNumber>;
};

const mapValues = <A, B>(o: Record<string, A>, f: (a: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

const toWire = (n: number): WireNumber => (Number.isFinite(n) && !Object.is(n, -0) ? n : String(n === 0 ? '-0' : n));
const fromWire = (n: WireNumber): number => (typeof n === 'number' ? n : n === '-0' ? -0 : Number(n));

export function hitToWire(h: RunSearchHit): WireHit {
  const { advantage, rewards, ...rest } = h;
  return {
    ...rest,
    reward: toWire(h.reward),
    length: toWire(h.length),
    ...(advantage === undefined ? {} : { advantage: toWire(advantage) }),
    ...(rewards === undefined ? {} : { rewards: mapValues(rewards, toWire) }),
  };
}

export function hitFromWire(w: WireHit): RunSearchHit {
  return {
    step: w.step,
    group: w.group,
    row: w.row,
    prompt: w.prompt,
    completion: w.completion,
    reward: fromWire(w.reward),
    advantage: w.advantage === undefined ? undefined : fromWire(w.advantage),
    length: fromWire(w.length),
    ...(w.rewards === undefined ? {} : { rewards: mapValues(w.rewards, fromWire) }),
    ...(w.truncated === undefined ? {} : { truncated: w.truncated }),
  };
}

/** The parameter naming the run: the endpoint's own, not a key of the page's URL (src/ui/derive/url-state.ts). */
export const SEARCH_RUN_PARAM = 'run';

const numberFields = ['rewardMin', 'rewardMax', 'lengthMin', 'lengthMax', 'advantageMin', 'advantageMax'] as const;
/** `rewardMin.NAME` and `rewardMax.NAME`: one reward function's range (RunQuery.rewardRanges). */
const RANGE_MIN = 'rewardMin.';
const RANGE_MAX = 'rewardMax.';
const parseNumber = (v: string) => fromWire(v.trim() === '' ? 'x' : v);

/**
 * A query from its URL parameters (`text`, `regex=1`, `in`, `rewardMin`…, `rewardMin.NAME`, `finding`,
 * `sort`, `order`, `prompt`), or an error naming the parameter that is wrong. The page's form
 * (src/ui/derive/search-form.ts) makes the same RunQuery.
 */
export function queryFromParams(params: {
  get(name: string): string | null;
  forEach(each: (value: string, name: string) => void): void;
}): RunQuery | { error: string } {
  const q: RunQuery = {};
  const text = params.get('text');
  if (text !== null) q.text = text;
  if (params.get('regex') === '1') q.regex = true;
  const where = params.get('in');
  if (where !== null) {
    if (where !== 'prompt' && where !== 'completion' && where !== 'both')
      return { error: 'in: prompt, completion or both' };
    q.in = where;
  }
  for (const k of numberFields) {
    const v = params.get(k);
    if (v === null) continue;
    const n = parseNumber(v);
    if (Number.isNaN(n)) return { error: `${k}: a number` };
    q[k] = n;
  }
  const entries: [string, string][] = [];
  params.forEach((v, k) => entries.push([k, v]));
  for (const [k, v] of entries) {
    const end = k.startsWith(RANGE_MIN) ? 'min' : k.startsWith(RANGE_MAX) ? 'max' : null;
    if (!end) continue;
    const name = k.slice(RANGE_MIN.length);
    const n = parseNumber(v);
    if (Number.isNaN(n) || name === '') return { error: `${k}: a number, after the reward function's name` };
    q.rewardRanges = { ...q.rewardRanges, [name]: { ...q.rewardRanges?.[name], [end]: n } };
  }
  const finding = params.get('finding');
  if (finding !== null) q.finding = finding;
  const sort = params.get('sort');
  if (sort !== null) {
    if (!isSortKey(sort)) return { error: 'sort: reward, advantage, length or reward.NAME' };
    q.sort = sort;
  }
  const order = params.get('order');
  if (order !== null) {
    if (order !== 'asc' && order !== 'desc') return { error: 'order: asc or desc' };
    q.order = order;
  }
  const sign = params.get('advantageSign');
  if (sign !== null) {
    if (sign !== 'positive' && sign !== 'negative' && sign !== 'zero')
      return { error: 'advantageSign: positive, negative or zero' };
    q.advantageSign = sign;
  }
  if (params.get('zeroVarianceGroups') === '1') q.zeroVarianceGroups = true;
  const truncated = params.get('truncated');
  if (truncated !== null) q.truncated = truncated === '1';
  const prompt = params.get('prompt');
  if (prompt !== null) q.prompt = prompt;
  return q;
}

/** The URL parameters of a query (the inverse of queryFromParams), with the run's name and the hits kept. */
export function searchParams(run: string, query: RunQuery, limit?: number): [string, string][] {
  const out: [string, string][] = [[SEARCH_RUN_PARAM, run]];
  const p = { set: (k: string, v: string) => out.push([k, v]) };
  if (query.text !== undefined) p.set('text', query.text);
  if (query.regex) p.set('regex', '1');
  if (query.in !== undefined) p.set('in', query.in);
  for (const k of numberFields) if (query[k] !== undefined) p.set(k, String(toWire(query[k]!)));
  if (query.advantageSign !== undefined) p.set('advantageSign', query.advantageSign);
  if (query.zeroVarianceGroups) p.set('zeroVarianceGroups', '1');
  if (query.truncated !== undefined) p.set('truncated', query.truncated ? '1' : '0');
  if (query.prompt !== undefined) p.set('prompt', query.prompt);
  for (const [name, range] of Object.entries(query.rewardRanges ?? {})) {
    if (range.min !== undefined) p.set(RANGE_MIN + name, String(toWire(range.min)));
    if (range.max !== undefined) p.set(RANGE_MAX + name, String(toWire(range.max)));
  }
  if (query.finding !== undefined) p.set('finding', query.finding);
  if (query.sort !== undefined) p.set('sort', query.sort);
  if (query.order !== undefined) p.set('order', query.order);
  if (limit !== undefined) p.set('limit', String(limit));
  return out;
}

/** Whether a word names what hits can be sorted by (RunSortKey). */
export const isSortKey = (s: string): s is RunSortKey =>
  s === 'reward' || s === 'advantage' || s === 'length' || (s.startsWith('reward.') && s.length > 'reward.'.length);
