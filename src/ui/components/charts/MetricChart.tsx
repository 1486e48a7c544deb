import { memo, useMemo, useRef, useState } from 'react';
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunConfig } from '../../../rl/config.ts';
import {
  autoDomain,
  captionValue,
  chartRows,
  chartSummary,
  fmt,
  latestValue,
  type MetricSource,
  type Row,
  type Series,
} from '../../derive/chart-data.ts';
import { chartWarnings } from '../../derive/chart-warnings.ts';
import { useChartData } from './render-budget.ts';
import { constantNote, infoFor, type ChartSpec } from '../../derive/chart-specs.ts';
import { useChartFocus } from './chart-focus.ts';

/**
 * Okabe–Ito, the palette designed to stay distinct under the common colour-vision deficiencies
 * (styles.css holds the values, one set per theme). Seven colours: the reward chart has six series.
 */
export const palette = ['var(--c1)', 'var(--c2)', 'var(--c3)', 'var(--c4)', 'var(--c5)', 'var(--c6)', 'var(--c7)'];

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
/** Axis ticks: compact for large values, enough digits to tell close ticks apart (ratios near 1). */
const tick = (v: number) => (Math.abs(v) >= 1000 ? compact.format(v) : String(Number(v.toPrecision(5))));

export type { Series } from '../../derive/chart-data.ts';

/**
 * A shaded range around a line: each row's `key` holds [low, high] (the held-out chart's ±1 standard error of pass@1).
 */
export interface Band {
  key: string;
  label: string;
}

/**
 * A line chart of rows (x = step) with a tooltip showing each value as measured and smoothed, and an optional shaded
 * band.
 */
export const LinesChart = memo(function LinesChart({
  rows,
  series,
  yDomain,
  height = 170,
  band,
}: {
  rows: Row[];
  series: Series[];
  yDomain?: [number, number];
  height?: number;
  band?: Band;
}) {
  const domain =
    yDomain ??
    autoDomain(
      rows,
      series.map((s) => s.key),
    );
  return (
    <ResponsiveContainer width="100%" height={height}>
      <ComposedChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: 0 }} accessibilityLayer={false}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
        <XAxis
          dataKey="step"
          type="number"
          domain={['dataMin', 'dataMax']}
          allowDecimals={false}
          tick={{ fontSize: 11, fill: 'var(--muted)' }}
          stroke="var(--muted)"
        />
        <YAxis
          domain={domain ?? ['auto', 'auto']}
          width={52}
          tick={{ fontSize: 11, fill: 'var(--muted)' }}
          tickFormatter={tick}
          stroke="var(--muted)"
        />
        <Tooltip
          contentStyle={{
            background: 'var(--panel)',
            border: '1px solid var(--border)',
            color: 'var(--fg)',
            fontSize: 12,
          }}
          labelFormatter={(s) => `step ${s}`}
          formatter={(v, name, item) => {
            if (Array.isArray(v)) return [`${fmt(v[0])} to ${fmt(v[1])}`, name];
            const raw = (item.payload as Row)[`${String(item.dataKey)}~raw`];
            return [raw !== undefined && raw !== null && raw !== v ? `${fmt(v)} (measured ${fmt(raw)})` : fmt(v), name];
          }}
        />
        {(series.length > 1 || band) && <Legend wrapperStyle={{ fontSize: 11 }} />}
        {band && (
          <Area
            dataKey={band.key}
            name={band.label}
            stroke="none"
            fill="var(--c1)"
            fillOpacity={0.18}
            isAnimationActive={false}
            connectNulls
            legendType="square"
          />
        )}
        {series.map((s, i) => (
          <Line
            key={s.key}
            type="monotone"
            dataKey={s.key}
            name={s.label}
            stroke={s.color ?? palette[i % palette.length]}
            strokeDasharray={s.dashed ? '6 4' : undefined}
            dot={!s.faint && rows.length < 30}
            strokeWidth={s.width ?? (s.faint ? 1 : 1.8)}
            strokeOpacity={s.faint ? 0.3 : undefined}
            {...(s.faint ? { legendType: 'none' as const, tooltipType: 'none' as const } : {})}
            isAnimationActive={false}
            connectNulls
          />
        ))}
      </ComposedChart>
    </ResponsiveContainer>
  );
});

/** The chart's lines, styled: in Accuracy, "as judged" is dashed over a wider "true", so equal values stay visible. */
function seriesOf(spec: ChartSpec): Series[] {
  if (spec.id !== 'accuracy') return spec.lines;
  return spec.lines.map((l) => (l.key === 'accuracy' ? { ...l, width: 4 } : { ...l, dashed: true }));
}

const NO_ROWS: Record<string, number>[] = [];

/** One metric panel: title, definition, what a bad value looks like, and the chart (or why it is flat). */
export const MetricChart = memo(function MetricChart({
  spec,
  metrics: live,
  smoothing,
  focus = false,
  config = null,
  source = 'run',
}: {
  spec: ChartSpec;
  metrics: Record<string, number>[];
  smoothing: number;
  focus?: boolean;
  config?: RunConfig | null;
  /** What the metrics come from, for "not in this record" / "not in this run". */
  source?: MetricSource;
}) {
  // Off screen, the chart keeps what it drew: only the charts in view redraw as steps arrive.
  const ref = useRef<HTMLElement>(null);
  const metrics = useChartData(ref, live, NO_ROWS);
  const keys = spec.lines.map((l) => l.key);
  useChartFocus(ref, keys, false);
  const rows = useMemo(() => chartRows(metrics, keys, smoothing), [metrics, keys.join('|'), smoothing]);
  const { definition, hint } = infoFor(spec);
  const [plotAnyway, setPlotAnyway] = useState(false);
  const constant = constantNote(spec, config);
  // The hint is a warning only while its condition holds over the data (chart-warnings.ts).
  const warning = useMemo(() => chartWarnings[spec.id]?.(metrics) ?? null, [spec.id, metrics]);
  const series = useMemo(() => seriesOf(spec), [spec]);
  const noNoise = spec.id === 'accuracy' && config !== null && config.noise_p_fn === 0 && config.noise_p_fp === 0;
  // The caption and summary read the metrics this chart is given (the store's, as the header, the CSV and
  // the token panel do), not the rows drawn last: a chart off screen or waiting for its redraw turn still
  // names the latest step. They print the value the plot draws there, smoothed as the plot smooths it,
  // and say so, with the measured value beside it.
  const caption = useMemo(
    () => captionValue(latestValue(live, spec.lines[0]!.key, smoothing), source),
    [live, spec, smoothing, source],
  );
  const summary = useMemo(() => chartSummary(live, series, smoothing, source), [live, series, smoothing, source]);
  const titleId = `chart-title-${spec.id}`;
  return (
    <figure
      ref={ref}
      className={`chart${focus ? ' focus' : ''}${constant ? ' constant' : ''}`}
      data-testid={`chart-${spec.id}`}
      data-focus={focus ? 'true' : undefined}
      data-points={metrics.length}
      data-constant={constant ? 'true' : undefined}
      aria-labelledby={titleId}
    >
      <figcaption>
        <span className="chart-title" id={titleId}>
          {spec.title}
        </span>
        {focus && <span className="focus-tag">lesson: look here</span>}
        {caption !== null && !constant && (
          <span className="chart-last" data-testid={`chart-${spec.id}-value`}>
            {caption}
          </span>
        )}
        <span className="help">{definition}</span>
        {warning && !constant && (
          <span className="hint" data-testid={`chart-${spec.id}-warning`}>
            ⚠ {warning}
          </span>
        )}
        {hint && !warning && !constant && <span className="help">{hint}</span>}
        {noNoise && (
          <span className="help" data-testid="accuracy-note">
            No verifier noise: "as judged" (dashed) equals "true" (wide line) at every step.
          </span>
        )}
      </figcaption>
      {constant && (
        <p className="constant-note" data-testid={`chart-${spec.id}-constant`}>
          {constant}{' '}
          {metrics.length > 0 && (
            <button
              type="button"
              className="link"
              aria-expanded={plotAnyway}
              onClick={() => setPlotAnyway(!plotAnyway)}
            >
              {plotAnyway ? 'hide the values' : 'plot the values anyway'}
            </button>
          )}
        </p>
      )}
      {(!constant || plotAnyway) &&
        (metrics.length ? (
          <div
            role="img"
            aria-label={
              `${spec.title}: line chart over ${metrics.length} ` + `step${metrics.length === 1 ? '' : 's'}; ${summary}`
            }
          >
            <LinesChart rows={rows} series={series} yDomain={spec.yDomain} />
          </div>
        ) : (
          <div className="chart-empty">no steps yet</div>
        ))}
      {metrics.length > 0 && (!constant || plotAnyway) && (
        <p className="chart-summary" data-testid={`chart-${spec.id}-summary`}>
          {summary}
        </p>
      )}
    </figure>
  );
});
