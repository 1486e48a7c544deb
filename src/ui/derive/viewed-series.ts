/**
 * A run opened in the run viewer (a TRL output_dir, a veRL or JSONL dump, any reader of src/runs) as the
 * one series every chart draws (run-series.ts RunSeries): its logged curves (RunIndex.metrics, TRL's
 * `log_history` keys are the playground's metric names) become the series' step rows, so Compare draws it
 * beside live runs with the component that draws them. Pure: compare-viewed.ts puts it in the store.
 */
import type { RunIndex } from '../../runs/types.ts';
import type { RunSeries } from './run-series.ts';

/** The viewed run as a series: one row per logged step, finite values only; 'recorded' (it does not train). */
export function viewedSeries(index: RunIndex): RunSeries {
  const metrics = index.metrics.map((p) => {
    const row: Record<string, number> & { step: number } = { step: p.step };
    for (const [k, v] of Object.entries(p.values)) if (Number.isFinite(v)) row[k] = v;
    return row;
  });
  const last = metrics.at(-1)?.step ?? index.steps.at(-1) ?? 0;
  return { metrics, evals: [], state: 'recorded', step: last, error: null };
}
