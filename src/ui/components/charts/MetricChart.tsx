import { memo, useMemo } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { chartRows, type Row } from '../../chart-data.ts';
import { infoFor, type ChartSpec } from './specs.ts';

export const palette = ['var(--c1)', 'var(--c2)', 'var(--c3)', 'var(--c4)', 'var(--c5)'];

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
/** Axis ticks: compact for large values, enough digits to tell close ticks apart (ratios near 1). */
const tick = (v: number) => (Math.abs(v) >= 1000 ? compact.format(v) : String(Number(v.toPrecision(5))));

const fmt = (v: unknown) => (typeof v === 'number' ? (Math.abs(v) >= 1000 || (Math.abs(v) < 0.001 && v !== 0) ? v.toExponential(3) : v.toFixed(4)) : String(v));

export interface Series {
  key: string;
  label: string;
  color?: string;
  dashed?: boolean;
}

/** A line chart of rows (x = step) with a tooltip showing each value as measured and smoothed. */
export const LinesChart = memo(function LinesChart({ rows, series, yDomain, height = 170 }: { rows: Row[]; series: Series[]; yDomain?: [number, number]; height?: number }) {
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
        <XAxis dataKey="step" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} tick={{ fontSize: 11, fill: 'var(--muted)' }} stroke="var(--muted)" />
        <YAxis domain={yDomain ?? ['auto', 'auto']} width={52} tick={{ fontSize: 11, fill: 'var(--muted)' }} tickFormatter={tick} stroke="var(--muted)" />
        <Tooltip
          contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)', fontSize: 12 }}
          labelFormatter={(s) => `step ${s}`}
          formatter={(v, name, item) => {
            const raw = (item.payload as Row)[`${String(item.dataKey)}~raw`];
            return [raw !== undefined && raw !== null && raw !== v ? `${fmt(v)} (measured ${fmt(raw)})` : fmt(v), name];
          }}
        />
        {series.length > 1 && <Legend wrapperStyle={{ fontSize: 11 }} />}
        {series.map((s, i) => (
          <Line key={s.key} type="monotone" dataKey={s.key} name={s.label} stroke={s.color ?? palette[i % palette.length]} strokeDasharray={s.dashed ? '5 3' : undefined} dot={rows.length < 30} strokeWidth={1.8} isAnimationActive={false} connectNulls />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
});

/** One metric panel: title, definition, what a bad value looks like, and the chart. */
export const MetricChart = memo(function MetricChart({ spec, metrics, smoothing, focus = false }: { spec: ChartSpec; metrics: Record<string, number>[]; smoothing: number; focus?: boolean }) {
  const keys = spec.lines.map((l) => l.key);
  const rows = useMemo(() => chartRows(metrics, keys, smoothing), [metrics, keys.join('|'), smoothing]);
  const { definition, hint } = infoFor(spec);
  const last = metrics[metrics.length - 1];
  return (
    <figure className={`chart${focus ? ' focus' : ''}`} data-testid={`chart-${spec.id}`} data-focus={focus ? 'true' : undefined} data-points={metrics.length} aria-label={`${spec.title} chart, ${metrics.length} steps`}>
      <figcaption>
        <span className="chart-title">{spec.title}</span>
        {focus && <span className="focus-tag">lesson: look here</span>}
        {last && <span className="chart-last">{fmt(last[spec.lines[0]!.key])}</span>}
        <span className="help">{definition}</span>
        {hint && <span className="hint">⚠ {hint}</span>}
      </figcaption>
      {metrics.length ? <LinesChart rows={rows} series={spec.lines} yDomain={spec.yDomain} /> : <div className="chart-empty">no steps yet</div>}
    </figure>
  );
});
