import { useMemo } from 'react';
import type { MetricPoint } from '../../../runs/types.ts';
import { useApp } from '../../store.ts';
import { LinesChart } from '../charts/MetricChart.tsx';
import { setCurves, runByKey } from '../../viewer/viewer-actions.ts';
import { curveKeys, curvePoints, defaultCurves, overlayRows } from '../../viewer/run-view-model.ts';

const NONE: MetricPoint[] = [];

/** One logged metric over training, for the open run and (Compare) the other run overlaid. */
function Curve({ k, runs, labels }: { k: string; runs: MetricPoint[][]; labels: string[] }) {
  const rows = useMemo(() => overlayRows(runs, k), [runs, k]);
  const series = labels.map((label, i) => ({ key: `s${i}`, label }));
  return (
    <figure
      className="chart"
      data-testid="viewer-curve"
      data-key={k}
      // The values as logged, [step, value], for the open run: what the chart draws, readable by a test.
      data-values={JSON.stringify(curvePoints(runs[0]!, k))}
    >
      <figcaption>
        <span className="chart-title">{k}</span>
      </figcaption>
      {rows.length ? (
        <div role="img" aria-label={`${k}: line chart over ${rows.length} logged steps`}>
          <LinesChart rows={rows} series={series} height={150} />
        </div>
      ) : (
        <div className="chart-empty">not logged</div>
      )}
    </figure>
  );
}

/** The open run's logged curves (TRL's log_history, a record's metrics), chosen from every key the logs hold. */
export function RunCurves() {
  const open = useApp((s) => s.viewer.open);
  const other = useApp((s) => s.viewer.compareWith);
  const chosen = useApp((s) => s.viewer.curves);
  useApp((s) => s.viewer.runs);
  const run = runByKey(open);
  const otherRun = runByKey(other);
  const metrics = run?.index?.metrics ?? NONE;
  const otherMetrics = otherRun?.index?.metrics ?? null;
  const keys = useMemo(() => curveKeys(metrics), [metrics]);
  const shown = chosen ?? defaultCurves(metrics);
  const runs = useMemo(() => (otherMetrics ? [metrics, otherMetrics] : [metrics]), [metrics, otherMetrics]);
  if (!run?.index) return null;
  if (!keys.length) return <p className="muted">This run logged no metrics over training (no trainer_state.json).</p>;
  const labels = otherRun ? [run.name, otherRun.name] : [run.name];
  return (
    <section className="viewer-curves" aria-label="Curves">
      <details className="viewer-curve-picker">
        <summary>
          Curves: {shown.length} of {keys.length} logged metrics
        </summary>
        <div className="viewer-curve-keys">
          {keys.map((k) => (
            <label key={k}>
              <input
                type="checkbox"
                checked={shown.includes(k)}
                onChange={(e) => setCurves(e.target.checked ? [...shown, k] : shown.filter((x) => x !== k))}
              />{' '}
              {k}
            </label>
          ))}
        </div>
      </details>
      <div className="viewer-curve-grid">
        {shown.map((k) => (
          <Curve key={k} k={k} runs={runs} labels={labels} />
        ))}
      </div>
    </section>
  );
}
