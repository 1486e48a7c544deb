/**
 * The pass@k explorer's verdict, read off the very numbers its chart plots (pure, passk-caption.test.ts):
 * which policy is ahead over which ranges of k. "Ahead from k = K" is said only when that policy stays
 * ahead up to the largest k plotted; differences within `LEVEL` count as level, so two identical curves
 * (no update yet) are called level rather than one of them "ahead".
 */
import type { PassKCurve } from '../../../workers/protocol.ts';

/** Differences of pass@k up to this size are called level (half a point: below the chart's resolution). */
export const LEVEL = 0.005;

export type Leader = 'base' | 'current' | 'level';

/** Who is ahead at each plotted k, in the chart's order. */
export function leaders(c: Pick<PassKCurve, 'ks' | 'base' | 'current'>): { k: number; leader: Leader }[] {
  return c.ks.map((k) => {
    const d = (c.current[String(k)] ?? 0) - (c.base[String(k)] ?? 0);
    return { k, leader: d > LEVEL ? 'current' : d < -LEVEL ? 'base' : 'level' };
  });
}

const WHO: Record<Leader, string> = {
  base: 'the base policy is ahead',
  current: 'the current policy is ahead',
  level: 'the two are level',
};

/** "the base policy is ahead at k = 1; the current policy is ahead from k = 2": every stretch of k, in order. */
export function passkVerdict(c: Pick<PassKCurve, 'ks' | 'base' | 'current'>): string {
  const at = leaders(c);
  if (!at.length) return 'no k measured';
  const runs: { leader: Leader; from: number; to: number }[] = [];
  for (const { k, leader } of at) {
    const last = runs[runs.length - 1];
    if (last && last.leader === leader) last.to = k;
    else runs.push({ leader, from: k, to: k });
  }
  const lastK = at[at.length - 1]!.k;
  if (runs.length === 1)
    return `${WHO[runs[0]!.leader]} at every k${runs[0]!.leader === 'level' ? ` (within ${LEVEL})` : ''}`;
  return runs
    .map(
      (r) =>
        `${WHO[r.leader]} ` +
        (r.from === r.to ? `at k = ${r.from}` : r.to === lastK ? `from k = ${r.from}` : `at k = ${r.from} to ${r.to}`),
    )
    .join('; ');
}
