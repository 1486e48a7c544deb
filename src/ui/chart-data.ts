/** Turning metric history into chart rows: exponential smoothing and downsampling (pure, testable). */

export type Row = Record<string, number | null> & { step: number };

/** TensorBoard-style debiased exponential moving average; weight 0 = raw values. Non-finite values pass through as null. */
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

/** Keeps at most `max` rows by averaging buckets of consecutive rows (the last row is always kept). */
export function downsample(rows: Row[], max: number): Row[] {
  if (rows.length <= max) return rows;
  const size = Math.ceil(rows.length / max);
  const out: Row[] = [];
  for (let i = 0; i < rows.length; i += size) {
    const bucket = rows.slice(i, i + size);
    const last = bucket[bucket.length - 1]!;
    const row: Row = { step: last.step };
    for (const k of Object.keys(last)) {
      if (k === 'step') continue;
      const xs = bucket.map((r) => r[k]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
      row[k] = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
    }
    out.push(row);
  }
  return out;
}

/** Rows for the given metric keys: `key` smoothed, `key~raw` as measured. Steps are 1-based (steps done). */
export function chartRows(metrics: Record<string, number>[], keys: string[], smoothing: number, max = 300): Row[] {
  const cols = keys.map((k) => smooth(metrics.map((m) => (typeof m[k] === 'number' ? m[k]! : null)), smoothing));
  const rows: Row[] = metrics.map((m, i) => {
    const r: Row = { step: (m.step ?? i) + 1 };
    keys.forEach((k, j) => {
      r[k] = cols[j]![i] ?? null;
      r[`${k}~raw`] = typeof m[k] === 'number' && Number.isFinite(m[k]) ? m[k]! : null;
    });
    return r;
  });
  return downsample(rows, max);
}
