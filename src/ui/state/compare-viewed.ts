/**
 * Compare with a run from the run viewer: the viewed run (any format src/runs reads) becomes Compare's
 * side C, drawn by the charts that draw the live runs A and B; it does not train, and "Run both" trains A
 * and B beside it for as many steps as it logged. The setup is left as it is: a run made elsewhere has no
 * playground config to take.
 */
import { viewedSeries } from '../derive/viewed-series.ts';
import { type CompareSide, setState } from './store.ts';
import { runByKey } from './viewer-actions.ts';

/** Puts the viewed run `key` in Compare as side C and shows Compare; false when it is not open yet. */
export function compareViewedRun(key: string): boolean {
  const run = runByKey(key);
  if (!run?.index) return false;
  const series = viewedSeries(run.index);
  const side: CompareSide = { label: `C: ${run.name} (${run.format})`, config: null, ...series, state: 'recorded' };
  setState((s) => ({
    view: 'compare',
    compare: { ...s.compare, c: side, steps: Math.max(1, series.metrics.length || run.index!.steps.length) },
  }));
  return true;
}
