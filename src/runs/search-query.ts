/**
 * What a search (src/runs/opened-run.ts) asks of each completion, and the order it keeps its hits in:
 * every RunQuery field but the text (matched by opened-run.ts `textMatcher`), and the sort. Shared by the
 * page's search and `rlvr view`'s (src/node/view-search.ts), which merges its threads' shares with
 * `compareHits` so its hits are the one-pass search's.
 */
import type { FindingRows, NumberRange, RunCompletion, RunGroup, RunQuery, RunSearchHit, RunSortKey } from './types.ts';

const inRange = (v: number | undefined, r: NumberRange) =>
  v !== undefined && (r.min === undefined || v >= r.min) && (r.max === undefined || v <= r.max);

/** Whether one completion of a group passes every set field of the query but the text. */
export function passes(query: RunQuery, group: RunGroup, c: RunCompletion): boolean {
  if (query.prompt !== undefined && c.prompt !== query.prompt) return false;
  if (query.rewardMin !== undefined && !(c.reward >= query.rewardMin)) return false;
  if (query.rewardMax !== undefined && !(c.reward <= query.rewardMax)) return false;
  if (query.advantageSign !== undefined) {
    const a = c.advantage;
    if (a === undefined || Number.isNaN(a)) return false;
    if (query.advantageSign === 'positive' ? !(a > 0) : query.advantageSign === 'negative' ? !(a < 0) : a !== 0)
      return false;
  }
  if (query.advantageMin !== undefined && !(c.advantage !== undefined && c.advantage >= query.advantageMin))
    return false;
  if (query.advantageMax !== undefined && !(c.advantage !== undefined && c.advantage <= query.advantageMax))
    return false;
  if (query.lengthMin !== undefined && c.length < query.lengthMin) return false;
  if (query.lengthMax !== undefined && c.length > query.lengthMax) return false;
  if (query.truncated !== undefined && (c.truncated === true) !== query.truncated) return false;
  if (query.rewardRanges) {
    for (const [name, range] of Object.entries(query.rewardRanges)) if (!inRange(c.rewards[name], range)) return false;
  }
  if (query.zeroVarianceGroups) {
    const first = group.completions[0]!.reward;
    if (!group.completions.every((o) => Object.is(o.reward, first) || o.reward === first)) return false;
  }
  return true;
}

/** The rows of each step that the findings point at, for RunQuery.finding. */
export type FindingRowSet = Map<number, Set<number>>;

export const findingRowSet = (rows: FindingRows): FindingRowSet => {
  const set: FindingRowSet = new Map();
  for (const { step, rows: r } of rows) {
    const s = set.get(step) ?? new Set<number>();
    for (const row of r) s.add(row);
    set.set(step, s);
  }
  return set;
};

/** The rows findings of `kind` point at, by step, from a run's findings (src/runs/findings/types.ts Finding). */
export function findingRowsOf(findings: { kind: string; step: number; rows: number[] }[], kind: string): FindingRows {
  const byStep = new Map<number, Set<number>>();
  for (const f of findings) {
    if (f.kind !== kind || f.rows.length === 0) continue;
    const s = byStep.get(f.step) ?? new Set<number>();
    for (const r of f.rows) s.add(r);
    byStep.set(f.step, s);
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, rows]) => ({ step, rows: [...rows] }));
}

/** A hit's value under a sort key (NaN where it has none). */
export function sortValue(h: RunSearchHit, key: RunSortKey): number {
  if (key === 'reward') return h.reward;
  if (key === 'advantage') return h.advantage ?? Number.NaN;
  if (key === 'length') return h.length;
  return h.rewards?.[key.slice('reward.'.length)] ?? Number.NaN;
}

/** The hits' order under the query's sort: by the key (NaN last either way), ties in step and row order. */
export function compareHits(query: RunQuery): (a: RunSearchHit, b: RunSearchHit) => number {
  const byPlace = (a: RunSearchHit, b: RunSearchHit) => a.step - b.step || a.row - b.row;
  const key = query.sort;
  if (!key) return byPlace;
  const sign = query.order === 'desc' ? -1 : 1;
  return (a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    const xn = Number.isNaN(x);
    const yn = Number.isNaN(y);
    if (xn || yn) return xn && yn ? byPlace(a, b) : xn ? 1 : -1;
    return x === y ? byPlace(a, b) : x < y ? -sign : sign;
  };
}

/**
 * The first `limit` hits in the query's order, whatever order they are offered in, holding at most twice
 * `limit` at once (sorted and cut each time it fills).
 */
export class KeptHits {
  private hits: RunSearchHit[] = [];
  private readonly compare: (a: RunSearchHit, b: RunSearchHit) => number;
  constructor(
    query: RunQuery,
    private readonly limit: number,
  ) {
    this.compare = compareHits(query);
  }
  offer(h: RunSearchHit): void {
    if (this.limit <= 0) return;
    this.hits.push(h);
    if (this.hits.length >= 2 * this.limit) this.cut();
  }
  result(): RunSearchHit[] {
    this.cut();
    return this.hits;
  }
  private cut(): void {
    this.hits.sort(this.compare);
    if (this.hits.length > this.limit) this.hits.length = this.limit;
  }
}
