import { memo, useEffect, useMemo, useState } from 'react';
import type { MetricPoint } from '../../../runs/types.ts';
import { downsample } from '../../derive/chart-data.ts';
import { useApp } from '../../state/store.ts';
import { LinesChart } from '../charts/MetricChart.tsx';
import { setCurves, runByKey } from '../../state/viewer-actions.ts';
import { curveKeys, curvePoints, defaultCurves, overlayRows } from '../../derive/run-view-model.ts';

const NONE: MetricPoint[] = [];

/**
 * One logged metric over training, for the open run and (Compare) the other run overlaid. Memoized, its
 * props kept the same objects from render to render: a step switch re-renders RunCurves (whether the step
 * is shown changes twice), and each curve's work grows with the run's logged steps (its rows, its
 * data-values, recharts' redraw), which at 14,913 steps was tens of ms of every step switch.
 */
const Curve = memo(function Curve({
  k,
  runs,
  labels,
  draw,
}: {
  k: string;
  runs: MetricPoint[][];
  labels: string[];
  draw: boolean;
}) {
  // The chart's rows only once it is drawn: over every logged step, they are the most of a curve's work, and
  // a link's first view would wait for them (docs/viewer.md, "Measured").
  const rows = useMemo(() => (draw ? overlayRows(runs, k) : null), [draw, runs, k]);
  // Drawn from at most 300 points, bucket means, as the live charts are (src/ui/derive/chart-data.ts): recharts
  // over every step of a long run holds the page's thread for seconds. data-values keeps every point.
  const drawn = useMemo(() => (rows ? downsample(rows, 300) : []), [rows]);
  const series = useMemo(() => labels.map((label, i) => ({ key: `s${i}`, label })), [labels]);
  const points = useMemo(() => curvePoints(runs[0]!, k), [runs, k]);
  const values = useMemo(() => JSON.stringify(points), [points]);
  const logged = useMemo(
    () => points.length > 0 || runs.some((m) => m.some((p) => Number.isFinite(p.values[k]))),
    [points, runs, k],
  );
  return (
    <figure
      className="chart"
      data-testid="viewer-curve"
      data-key={k}
      // The values as logged, [step, value], for the open run: what the chart draws, readable by a test.
      data-values={values}
    >
      <figcaption>
        <span className="chart-title">{k}</span>
      </figcaption>
      {logged && !rows ? (
        <div className="chart-empty" style={{ height: 150 }}>
          drawn once the step is shown
        </div>
      ) : rows?.length ? (
        <div role="img" aria-label={`${k}: line chart over ${rows.length} logged steps`}>
          <LinesChart rows={drawn} series={series} height={150} />
        </div>
      ) : (
        <div className="chart-empty">not logged</div>
      )}
    </figure>
  );
});

/** The open run's logged curves (TRL's log_history, a record's metrics), chosen from every key the logs hold. */
export function RunCurves() {
  const open = useApp((s) => s.viewer.open);
  const other = useApp((s) => s.viewer.compareWith);
  const chosen = useApp((s) => s.viewer.curves);
  // Drawing the charts (recharts, over every logged step) takes the page's thread for a second or more on a
  // long run; while the first step is being read they wait, so its completions are on screen first. Once
  // drawn they stay (a step switch does not redraw them). They are drawn one a task, each a frame after the
  // last (the first a frame after the step), so the step's completions are painted before the charts' work
  // begins and the page answers between charts.
  const [drawn, setDrawn] = useState(0);
  useApp((s) => s.viewer.runs);
  const run = runByKey(open);
  const otherRun = runByKey(other);
  const metrics = run?.index?.metrics ?? NONE;
  const otherMetrics = otherRun?.index?.metrics ?? null;
  const keys = useMemo(() => curveKeys(metrics), [metrics]);
  const shown = useMemo(() => chosen ?? defaultCurves(metrics, 4, keys), [chosen, metrics, keys]);
  const runs = useMemo(() => (otherMetrics ? [metrics, otherMetrics] : [metrics]), [metrics, otherMetrics]);
  const name = run?.name ?? '';
  const otherName = otherRun?.name;
  const labels = useMemo(() => (otherName === undefined ? [name] : [name, otherName]), [name, otherName]);
  // Once every chart is drawn, a step switch no longer concerns this component: it is not re-rendered.
  const allDrawn = drawn >= shown.length;
  const stepShown = useApp(
    (s) =>
      allDrawn ||
      (!s.viewer.stepLoading &&
        (s.viewer.stepData !== null ||
          s.viewer.stepError !== null ||
          runByKey(s.viewer.open)?.index?.steps.length === 0)),
  );
  useEffect(() => {
    if (!stepShown || allDrawn) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setDrawn((d) => d + 1), 0)));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [drawn, allDrawn, stepShown]);
  if (!run?.index) return null;
  if (!keys.length) return <p className="muted">This run logged no metrics over training (no trainer_state.json).</p>;
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
        {shown.map((k, i) => (
          <Curve key={k} k={k} runs={runs} labels={labels} draw={i < drawn} />
        ))}
      </div>
    </section>
  );
}
