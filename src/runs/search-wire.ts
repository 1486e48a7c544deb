/**
 * The search `rlvr view` runs near the files (`GET /search.json`, src/node/view-search.ts) as it travels:
 * a query in the URL and NDJSON lines back, read by the page (src/ui/state/served-search.ts). Shared so
 * both ends agree; numbers JSON cannot hold (NaN, ±Infinity, -0: a veRL score may be NaN) travel as
 * strings, so a hit arrives as the page's own search would have made it.
 */
import type { RunProblem, RunQuery, RunSearchHit } from './types.ts';

/** One NDJSON line of a search's answer. */
export type SearchLine =
  | { type: 'progress'; done: number; total: number; hits: number }
  | { type: 'hit'; hit: WireHit }
  | { type: 'done'; count: number; stepsSearched: number; cancelled: boolean; problems?: RunProblem[] }
  | { type: 'error'; message: string };

type WireNumber = number | string;
export type WireHit = Omit<RunSearchHit, 'reward' | 'advantage' | 'length'> & {
  reward: WireNumber;
  advantage?: WireNumber;
  length: WireNumber;
};

const toWire = (n: number): WireNumber => (Number.isFinite(n) && !Object.is(n, -0) ? n : String(n === 0 ? '-0' : n));
const fromWire = (n: WireNumber): number => (typeof n === 'number' ? n : n === '-0' ? -0 : Number(n));

export function hitToWire(h: RunSearchHit): WireHit {
  const { advantage, ...rest } = h;
  return {
    ...rest,
    reward: toWire(h.reward),
    length: toWire(h.length),
    ...(advantage === undefined ? {} : { advantage: toWire(advantage) }),
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
  };
}

/** The parameter naming the run: the endpoint's own, not a key of the page's URL (src/ui/derive/url-state.ts). */
export const SEARCH_RUN_PARAM = 'run';

const numberFields = ['rewardMin', 'rewardMax', 'lengthMin', 'lengthMax'] as const;

/**
 * A query from its URL parameters (`text`, `regex=1`, `in`, `rewardMin`…, `prompt`), or an error naming
 * the parameter that is wrong. The page's form (src/ui/derive/search-form.ts) makes the same RunQuery.
 */
export function queryFromParams(params: { get(name: string): string | null }): RunQuery | { error: string } {
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
    const n = fromWire(v.trim() === '' ? 'x' : v);
    if (Number.isNaN(n)) return { error: `${k}: a number` };
    q[k] = n;
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
  if (limit !== undefined) p.set('limit', String(limit));
  return out;
}
