/**
 * The histogram of a search's matches' total rewards (RunSearchResult.histogram), counted in the same pass
 * as the search (src/runs/opened-run.ts) and merged from shares searched apart (`rlvr view`,
 * src/node/view-search.ts). Memory is bounded (at most MAX_BINS bins, whatever the run's size) and the
 * result does not depend on how the rows were split or in what order they came:
 * - up to MAX_BINS distinct values, one bin per value (the usual 0/1 or 0/0.5/1 rewards);
 * - past that, bins of a width that is a power of two, on the grid key·width, the narrowest such width
 *   that leaves at most MAX_BINS bins holding values. Widths that are powers of two nest (a bin of width
 *   2w holds exactly two of width w), so a narrower histogram is re-binned into a wider one exactly, and
 *   each width reached is at most the narrowest for all the values: the end is that width, however split.
 * Each bin keeps the least and greatest value it holds, so a bar's range filter selects what it counts.
 */
import type { RewardHistogram } from './types.ts';

export const MAX_BINS = 256;

type Bin = { count: number; min: number; max: number };

export class HistogramCounter {
  private width = 0;
  private bins = new Map<number, Bin>();
  private nonFinite = 0;

  add(value: number): void {
    if (!Number.isFinite(value)) {
      this.nonFinite++;
      return;
    }
    const v = value + 0; // -0 counted as 0, so the bins do not depend on which of them came first
    this.put(this.width === 0 ? v : Math.floor(v / this.width), 1, v, v);
    if (this.bins.size > MAX_BINS) this.coarsen();
  }

  merge(h: RewardHistogram): void {
    this.nonFinite += h.nonFinite;
    if (h.width > this.width) this.rebin(h.width);
    for (const [key, count, min, max] of h.bins)
      this.put(h.width === this.width ? key : this.keyOf(min), count, min, max);
    if (this.bins.size > MAX_BINS) this.coarsen();
  }

  result(): RewardHistogram {
    const bins = [...this.bins.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([key, b]) => [key, b.count, b.min, b.max] as [number, number, number, number]);
    return { width: this.width, bins, nonFinite: this.nonFinite };
  }

  private keyOf(v: number): number {
    return this.width === 0 ? v : Math.floor(v / this.width);
  }

  private put(key: number, count: number, min: number, max: number): void {
    const b = this.bins.get(key);
    if (!b) this.bins.set(key, { count, min, max });
    else {
      b.count += count;
      if (min < b.min) b.min = min;
      if (max > b.max) b.max = max;
    }
  }

  /** The narrowest width (a power of two, wider than now) that leaves at most MAX_BINS bins. */
  private coarsen(): void {
    if (this.width > 0) {
      let w = this.width * 2;
      while (occupied(this.bins, w) > MAX_BINS) w *= 2;
      this.rebin(w);
      return;
    }
    // From distinct values: the narrowest power of two, found by bisection on its exponent (the number of
    // bins holding values only falls as the width doubles).
    const values = [...this.bins.values()].map((b) => b.min).sort((a, b) => a - b);
    let gap = Number.POSITIVE_INFINITY;
    for (let i = 1; i < values.length; i++) gap = Math.min(gap, values[i]! - values[i - 1]!);
    let lo = Math.floor(Math.log2(gap)) - 1; // too narrow: every value apart
    let hi = Math.ceil(Math.log2(values[values.length - 1]! - values[0]!)) + 1; // wide enough: at most 2 bins
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (occupied(this.bins, 2 ** mid) > MAX_BINS) lo = mid;
      else hi = mid;
    }
    this.rebin(2 ** hi);
  }

  private rebin(width: number): void {
    const old = this.bins;
    this.width = width;
    this.bins = new Map();
    for (const b of old.values()) this.put(Math.floor(b.min / width), b.count, b.min, b.max);
  }
}

function occupied(bins: Map<number, Bin>, width: number): number {
  const keys = new Set<number>();
  for (const b of bins.values()) keys.add(Math.floor(b.min / width));
  return keys.size;
}

/** One bar drawn: adjacent bins together, [min, max] the least and greatest value counted in it. */
export interface HistogramBar {
  min: number;
  max: number;
  count: number;
}

/**
 * At most `most` bars: one per bin where there are no more bins than that, else bins grouped by equal
 * spans of the number line (empty spans drawn as no bar). Each bar's [min, max], as a reward range
 * filter, selects exactly the matches it counts.
 */
export function histogramBars(h: RewardHistogram, most = 24): HistogramBar[] {
  if (h.bins.length === 0) return [];
  if (h.bins.length <= most) return h.bins.map(([, count, min, max]) => ({ min, max, count }));
  const lo = h.bins[0]![2];
  const span = (h.bins[h.bins.length - 1]![3] - lo) / most;
  const bars = new Map<number, HistogramBar>();
  for (const [, count, min, max] of h.bins) {
    const at = Math.min(most - 1, Math.floor((min - lo) / span));
    const bar = bars.get(at);
    if (!bar) bars.set(at, { min, max, count });
    else {
      bar.count += count;
      bar.max = Math.max(bar.max, max);
    }
  }
  return [...bars.values()];
}
