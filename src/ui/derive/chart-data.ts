/** Turning metric history into chart rows: exponential smoothing and downsampling (pure, testable). */

export type Row = Record<string, number | null> & { step: number };

/**
 * TensorBoard-style debiased exponential moving average; weight 0 = raw values. Non-finite values pass through as null.
 */
export function smooth(values: (number | null)[], weight: number): (number | null)[] {
  if (weight <= 0) return values;
  let last = 0;
  let n = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return null;
    last = last * weight + (1 - weight) * v;
    n++;
    return last / (1 - weight ** n);
  });
}

/**
 * Keeps at most `max` rows by averaging buckets of consecutive rows. The last row is kept as it is, a
 * bucket of its own, so the plot's last point is the value at the latest step (what the caption says).
 */
export function downsample(rows: Row[], max: number): Row[] {
  if (rows.length <= max || max < 2) return rows;
  const head = rows.slice(0, -1);
  const size = Math.ceil(head.length / (max - 1));
  const out: Row[] = [];
  for (let i = 0; i < head.length; i += size) {
    const bucket = head.slice(i, i + size);
    const last = bucket[bucket.length - 1]!;
    const row: Row = { step: last.step };
    for (const k of Object.keys(last)) {
      if (k === 'step') continue;
      const xs = bucket.map((r) => r[k]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
      row[k] = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
    }
    out.push(row);
  }
  out.push(rows[rows.length - 1]!);
  return out;
}

/**
 * Rows for the given metric keys: `key` smoothed, `key~raw` as measured. A row's step is its metrics' step (updates
 * done: the first update is step 1).
 */
export function chartRows(metrics: Record<string, number>[], keys: string[], smoothing: number, max = 300): Row[] {
  const cols = keys.map((k) =>
    smooth(
      metrics.map((m) => (typeof m[k] === 'number' ? m[k]! : null)),
      smoothing,
    ),
  );
  const rows: Row[] = metrics.map((m, i) => {
    const r: Row = { step: m.step ?? i + 1 };
    keys.forEach((k, j) => {
      r[k] = cols[j]![i] ?? null;
      r[`${k}~raw`] = typeof m[k] === 'number' && Number.isFinite(m[k]) ? m[k]! : null;
    });
    return r;
  });
  return downsample(rows, max);
}

/** Rows the store keeps in full; beyond this, older rows are merged in pairs (see compactHistory). */
export const HISTORY_MAX_ROWS = 4000;

/**
 * Bounds the metric history a long run keeps in memory: once it holds more than `max` rows, every
 * pair of consecutive rows in the older half becomes one row (numbers averaged, weighted by the steps each stands for;
 * the later step kept;
 * `merged_steps` counting the steps it stands for). The recent half always stays at full resolution,
 * and each compaction shrinks the history to about 3/4 of `max`, so the cost is amortised.
 */
export function compactHistory<T extends Record<string, unknown> & { step: number }>(
  rows: T[],
  max = HISTORY_MAX_ROWS,
): T[] {
  if (rows.length <= max) return rows;
  const keepFull = Math.floor(max / 2);
  const old = rows.slice(0, rows.length - keepFull);
  const merged: T[] = [];
  for (let i = 0; i < old.length; i += 2) {
    const a = old[i]!;
    const b = old[i + 1];
    if (!b) {
      merged.push(a);
      continue;
    }
    const row: Record<string, unknown> = { ...b };
    for (const k of Object.keys(b)) {
      const x = a[k];
      const y = b[k];
      if (k === 'step') continue;
      if (typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y))
        row[k] = (x * weight(a) + y * weight(b)) / (weight(a) + weight(b));
    }
    row.merged_steps = weight(a) + weight(b);
    merged.push(row as T);
  }
  return [...merged, ...rows.slice(rows.length - keepFull)];
}

const weight = (r: Record<string, unknown>) => (typeof r.merged_steps === 'number' ? r.merged_steps : 1);

/** One line of a chart. */
export interface Series {
  key: string;
  label: string;
  color?: string;
  dashed?: boolean;
  width?: number;
  /** Drawn thin and pale, without a legend entry or tooltip line (one seed behind a mean over seeds). */
  faint?: boolean;
}

/** A value as the charts print it: 4 decimals, or exponent notation for very large or small values. */
export const fmt = (v: unknown) =>
  typeof v === 'number'
    ? Math.abs(v) >= 1000 || (Math.abs(v) < 0.001 && v !== 0)
      ? v.toExponential(3)
      : v.toFixed(4)
    : String(v);

/**
 * The y range when none is given: the data's, widened when it is (nearly) flat, so the axis does not
 * spread float rounding over its whole height or label every tick with the same rounded number.
 */
export function autoDomain(rows: Row[], keys: string[]): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rows)
    for (const k of keys) {
      const v = r[k];
      if (typeof v === 'number' && Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
  if (!Number.isFinite(lo)) return undefined;
  const mid = (lo + hi) / 2;
  const minSpan = Math.max(Math.abs(mid) * 0.02, 1e-3);
  if (hi - lo >= minSpan) return undefined;
  const lo2 = Number((mid - minSpan).toPrecision(3));
  const hi2 = Number((mid + minSpan).toPrecision(3));
  return [lo2, hi2];
}

/**
 * "latest (step 12): total 0.4100, correctness 0.3800": what the chart shows, for screen readers and a glance.
 * The step is the row's own number (updates done, docs/architecture.md "Step numbers"): the header's
 * "Step N" and the CSV export's step column say the same.
 */
export function latestSummary(metrics: Record<string, number>[], series: Series[]): string {
  const last = metrics[metrics.length - 1];
  if (!last) return 'no steps yet';
  const parts = series.filter((s) => typeof last[s.key] === 'number').map((s) => `${s.label} ${fmt(last[s.key])}`);
  return `latest (step ${last.step ?? metrics.length}): ${parts.join(', ') || 'no value'}`;
}

/**
 * One line's value at the latest step of the metrics (the store's, the rows the header, the CSV and the
 * token panel read): `drawn` is the value the plot draws there (smoothed as chartRows smooths, or the
 * measured one at weight 0), `measured` the value as measured. 'no value here': the metric has values
 * at earlier steps but none at this one; 'not logged': no step has it (a record whose writer did not
 * log it, such as TRL's, which has no length bias).
 */
export type LatestValue =
  | { step: number; drawn: number; measured: number; smoothed: boolean }
  | { step: number; missing: 'no value here' | 'not logged' };

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function latestValue(metrics: Record<string, number>[], key: string, smoothing: number): LatestValue | null {
  const last = metrics[metrics.length - 1];
  if (!last) return null;
  const step = last.step ?? metrics.length;
  const measured = last[key];
  if (!finite(measured)) return { step, missing: metrics.some((m) => finite(m[key])) ? 'no value here' : 'not logged' };
  if (smoothing <= 0) return { step, drawn: measured, measured, smoothed: false };
  const drawn = smooth(
    metrics.map((m) => (finite(m[key]) ? m[key]! : null)),
    smoothing,
  ).at(-1);
  return { step, drawn: drawn ?? measured, measured, smoothed: true };
}

/** What a source that lacks a metric is called in "not in this record". */
export type MetricSource = 'record' | 'run';

/**
 * The value a chart's caption prints beside its title: the value the plot draws at the latest step,
 * followed by "smoothed (measured …)" when smoothing changed it; never "undefined" or "NaN".
 */
export function captionValue(v: LatestValue | null, source: MetricSource = 'record'): string | null {
  if (!v) return null;
  if ('missing' in v) return v.missing === 'not logged' ? `not in this ${source}` : `no value at step ${v.step}`;
  if (!v.smoothed || fmt(v.drawn) === fmt(v.measured)) return fmt(v.drawn);
  return `${fmt(v.drawn)} smoothed (measured ${fmt(v.measured)})`;
}

/**
 * "latest (step 12), smoothed with weight 0.6: total 0.4100 (measured 0.3800), correctness 0.3750":
 * what the chart draws at the latest step, as the caption does, for screen readers and a glance. The
 * step is the metrics' own number (the header's "Step N" and the CSV's step column say the same).
 */
export function chartSummary(
  metrics: Record<string, number>[],
  series: Series[],
  smoothing: number,
  source: MetricSource = 'record',
): string {
  const last = metrics[metrics.length - 1];
  if (!last) return 'no steps yet';
  const step = last.step ?? metrics.length;
  const values = series.map((s) => ({ s, v: latestValue(metrics, s.key, smoothing)! }));
  const parts: string[] = [];
  for (const { s, v } of values) {
    if ('missing' in v) continue;
    const differs = v.smoothed && fmt(v.drawn) !== fmt(v.measured);
    parts.push(`${s.label} ${fmt(v.drawn)}${differs ? ` (measured ${fmt(v.measured)})` : ''}`);
  }
  if (!parts.length) {
    const logged = values.some(({ v }) => !('missing' in v && v.missing === 'not logged'));
    return (
      `latest (step ${step}): ` + (logged ? 'no value at this step' : `not in this ${source}: the run did not log it`)
    );
  }
  return `latest (step ${step})${smoothing > 0 ? `, smoothed with weight ${smoothing}` : ''}: ${parts.join(', ')}`;
}

/**
 * What a chart with nothing drawn says, given every run it draws (`sides`, before the chart's own
 * bounded-rate copy): "no steps yet" before any run has a step; nothing while the chart has yet to
 * draw values the runs have (it draws once in view); else that the runs have no values of `metric`.
 */
export function emptyChartText(
  sides: readonly { metrics: readonly Record<string, unknown>[] }[],
  metric: string,
): string {
  if (!sides.some((x) => x.metrics.length > 0)) return 'no steps yet';
  const has = sides.some((x) => x.metrics.some((m) => typeof m[metric] === 'number'));
  return has ? '' : 'these runs have no values of it';
}
