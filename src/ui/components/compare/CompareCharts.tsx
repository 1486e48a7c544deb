/**
 * Compare's overlaid charts: one chart per compared metric with a line per side (each seed faint
 * under a mean over seeds), held-out pass@k against k, and the difficulty knobs.
 */
import type { MetricKey } from '../../../rl/metrics.ts';
import { memo, useDeferredValue, useMemo, useRef, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { chartRows, emptyChartText } from '../../derive/chart-data.ts';
import { metricTitle } from '../../derive/lesson-plan.ts';
import { useApp, type CompareSide } from '../../state/store.ts';
import type { EvalPoint } from '../../../../workers/protocol.ts';
import { useChartFocus } from '../charts/chart-focus.ts';
import { LinesChart, type Series } from '../charts/MetricChart.tsx';
import { useBoundedRate, useChartData, useMountTurn } from '../charts/render-budget.ts';
import { constantNote, specOf } from '../../derive/chart-specs.ts';

/** The metrics Compare overlays, one chart each with a line per side. */
const COMPARED_KEYS: MetricKey[] = [
  'reward',
  'accuracy',
  'entropy',
  'completions/mean_length',
  'clip_ratio/low_mean',
  'clip_ratio/high_mean',
  'kl',
  'frac_reward_zero_std',
  'grad_norm',
];

/** Each compared metric with its title as the Charts tab names it (metricTitle: its chart, and its line). */
const COMPARED = COMPARED_KEYS.map((key) => ({ key, title: metricTitle(key) }));

const SIDE_STYLE: { key: string; color: string; dashed?: boolean }[] = [
  { key: 'A', color: 'var(--c1)' },
  { key: 'B', color: 'var(--c3)', dashed: true },
  { key: 'C', color: 'var(--c2)' },
];

/** The sides in use (C only for a three-run lesson); stable while nothing changes. */
function useSides(): CompareSide[] {
  const a = useApp((s) => s.compare.a);
  const b = useApp((s) => s.compare.b);
  const c = useApp((s) => s.compare.c);
  return useMemo(() => (c ? [a, b, c] : [a, b]), [a, b, c]);
}

/**
 * What the charts draw from: each side's label, config, metrics and evaluations, taken at a bounded
 * rate and rendered as interruptible work. A side's state and step (several changes a second while
 * its worker trains) do not reach the charts.
 */
export function useChartSides(): ChartSide[] {
  const sides = useSides();
  const data = useMemo(
    () => sides.map(({ label, config, metrics, evals, seeds }) => ({ label, config, metrics, evals, seeds })),
    [sides],
  );
  const stable = useStableList(data);
  return useDeferredValue(useBoundedRate(stable));
}

type ChartSide = Pick<CompareSide, 'label' | 'config' | 'metrics' | 'evals' | 'seeds'>;

/** The same list object while every entry's fields are the same objects (so memoised charts skip). */
function useStableList(list: ChartSide[]): ChartSide[] {
  const prev = useRef(list);
  const p = prev.current;
  const same =
    p.length === list.length &&
    p.every(
      (x, i) =>
        x.label === list[i]!.label &&
        x.config === list[i]!.config &&
        x.metrics === list[i]!.metrics &&
        x.evals === list[i]!.evals &&
        x.seeds === list[i]!.seeds,
    );
  if (!same) prev.current = list;
  return prev.current;
}

/**
 * The Charts tab's note for this metric under each side's config ("KL is off: ..."): one note when every side has it,
 * else one per side.
 */
function constantNotes(metric: string, sides: ChartSide[]): { all: string | null; some: string[] } {
  const spec = specOf(metric);
  const notes = sides.map((x) => constantNote(spec, x.config));
  if (notes.length && notes.every((n) => n !== null && n === notes[0])) return { all: notes[0]!, some: [] };
  return { all: null, some: notes.map((n, i) => (n ? `${SIDE_STYLE[i]!.key}: ${n}` : '')).filter(Boolean) };
}

const NO_SIDES: ChartSide[] = [];

const Overlay = memo(function Overlay({
  metric,
  title,
  sides: live,
  smoothing,
  focus = false,
}: {
  metric: string;
  title: string;
  sides: ChartSide[];
  smoothing: number;
  focus?: boolean;
}) {
  // Off screen, the chart keeps what it drew: only the charts in view redraw as steps arrive.
  const ref = useRef<HTMLElement>(null);
  const sides = useChartData(ref, live, NO_SIDES);
  useChartFocus(ref, [metric], true);
  const mounted = useMountTurn();
  const [plotAnyway, setPlotAnyway] = useState(false);
  const rows = useMemo(() => {
    const byStep = new Map<number, Record<string, number | null>>();
    sides.forEach(({ metrics, seeds }, i) => {
      const key = SIDE_STYLE[i]!.key;
      for (const r of chartRows(metrics, [metric], smoothing))
        byStep.set(r.step, {
          ...(byStep.get(r.step) ?? { step: r.step }),
          [key]: r[metric] ?? null,
          [`${key}~raw`]: r[`${metric}~raw`] ?? null,
        });
      // A mean over seeds: each seed's own curve, drawn faintly behind it.
      for (const sd of seeds ?? [])
        for (const r of chartRows(sd.metrics, [metric], smoothing))
          byStep.set(r.step, {
            ...(byStep.get(r.step) ?? { step: r.step }),
            [`${key} seed ${sd.seed}`]: r[metric] ?? null,
          });
    });
    return [...byStep.values()].sort((x, y) => x.step! - y.step!) as ({ step: number } & Record<
      string,
      number | null
    >)[];
  }, [sides, metric, smoothing]);
  const series: Series[] = useMemo(() => {
    const faint = sides.flatMap((x, i) =>
      (x.seeds ?? []).map((sd) => ({
        key: `${SIDE_STYLE[i]!.key} seed ${sd.seed}`,
        label: `${x.label} seed ${sd.seed}`,
        color: SIDE_STYLE[i]!.color,
        faint: true,
      })),
    );
    const mean = sides.map((x, i) => ({
      key: SIDE_STYLE[i]!.key,
      label: x.seeds?.length
        ? `${x.label || SIDE_STYLE[i]!.key} (mean of ${x.seeds.length} seeds)`
        : x.label || SIDE_STYLE[i]!.key,
      color: SIDE_STYLE[i]!.color,
      dashed: SIDE_STYLE[i]!.dashed,
    }));
    return [...faint, ...mean];
  }, [sides]);
  const notes = useMemo(() => constantNotes(metric, sides), [metric, sides]);
  const hideChart = notes.all !== null && !plotAnyway;
  return (
    <figure
      ref={ref}
      className={`chart${focus ? ' focus' : ''}${notes.all ? ' constant' : ''}`}
      data-testid={`compare-chart-${metric}`}
      data-focus={focus ? 'true' : undefined}
      data-points={rows.length}
      data-constant={notes.all ? 'true' : undefined}
      data-seed-lines={series.filter((x) => x.faint).length || undefined}
    >
      <figcaption>
        <span className="chart-title">{title}</span>
        {focus && <span className="focus-tag">lesson: look here</span>}
        <span className="help">
          <code>{metric}</code>
        </span>
      </figcaption>
      {notes.all && (
        <p className="constant-note" data-testid={`compare-chart-${metric}-constant`}>
          {notes.all}{' '}
          {rows.length > 0 && (
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
      {notes.some.length > 0 && (
        <ul className="constant-note" data-testid={`compare-chart-${metric}-constant`}>
          {notes.some.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {/* The chart is mounted before the first step (axes only, on its turn): a recharts mount is
          the costliest draw, and done before the runs train it does not land on a main thread that
          two training workers already crowd (the first steps' draw measured 217-308 ms mounting,
          about 100 ms updating; e2e/responsive.spec.mjs). */}
      {!hideChart && !rows.length && <div className="chart-empty">{emptyChartText(live, metric)}</div>}
      {!hideChart && mounted && <LinesChart rows={rows} series={series} height={rows.length ? undefined : 1} />}
    </figure>
  );
});

const latestEval = (evals: EvalPoint[]) =>
  evals.reduce<EvalPoint | null>((best, e) => (e.step > 0 && (!best || e.step > best.step) ? e : best), null);

const EVAL = ['eval'];

/** Held-out pass@k against k: the base policy (step-0 evaluation) and each run's latest evaluation. */
const PassKOverlay = memo(function PassKOverlay({ focus, sides }: { focus: boolean; sides: ChartSide[] }) {
  const ref = useRef<HTMLElement>(null);
  useChartFocus(ref, EVAL, true);
  const base = sides.map((x) => x.evals.find((e) => e.step === 0)).find(Boolean) ?? null;
  const latest = sides.map((x) => latestEval(x.evals));
  const ks = [...new Set([base, ...latest].flatMap((e) => (e ? Object.keys(e.pass_at_k).map(Number) : [])))].sort(
    (a, b) => a - b,
  );
  const rows = ks.map((k) => {
    const r: Record<string, number | null> = { k, base: base?.pass_at_k[String(k)] ?? null };
    latest.forEach((e, i) => (r[SIDE_STYLE[i]!.key] = e?.pass_at_k[String(k)] ?? null));
    return r;
  });
  return (
    <figure
      ref={ref}
      className={`chart${focus ? ' focus' : ''}`}
      data-testid="compare-chart-eval"
      data-focus={focus ? 'true' : undefined}
      data-points={rows.length}
    >
      <figcaption>
        <span className="chart-title">Held-out pass@k against k</span>
        {focus && <span className="focus-tag">lesson: look here</span>}
        <span className="help">
          base policy (before training) and each run at its latest evaluation (
          {latest.map((e, i) => `${SIDE_STYLE[i]!.key}: step ${e?.step ?? '—'}`).join(', ')}); same held-out prompts
        </span>
      </figcaption>
      {rows.length ? (
        <ResponsiveContainer width="100%" height={170}>
          <LineChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
            <XAxis
              dataKey="k"
              type="number"
              domain={['dataMin', 'dataMax']}
              allowDecimals={false}
              tick={{ fontSize: 11, fill: 'var(--muted)' }}
              stroke="var(--muted)"
            />
            <YAxis domain={[0, 1]} width={40} tick={{ fontSize: 11, fill: 'var(--muted)' }} stroke="var(--muted)" />
            <Tooltip
              contentStyle={{
                background: 'var(--panel)',
                border: '1px solid var(--border)',
                color: 'var(--fg)',
                fontSize: 12,
              }}
              labelFormatter={(k) => `k = ${k}`}
              formatter={(v) => (typeof v === 'number' ? v.toFixed(4) : String(v))}
            />
            <Legend wrapperStyle={{ fontSize: 11 }} />
            <Line
              dataKey="base"
              name="base policy"
              stroke="var(--muted)"
              strokeDasharray="2 2"
              dot={false}
              strokeWidth={1.8}
              isAnimationActive={false}
              connectNulls
            />
            {sides.map((x, i) => (
              <Line
                key={i}
                dataKey={SIDE_STYLE[i]!.key}
                name={x.label || SIDE_STYLE[i]!.key}
                stroke={SIDE_STYLE[i]!.color}
                strokeDasharray={SIDE_STYLE[i]!.dashed ? '5 3' : undefined}
                dot={false}
                strokeWidth={1.8}
                isAnimationActive={false}
                connectNulls
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      ) : (
        <div className="chart-empty">no evaluation yet (one runs before the first step)</div>
      )}
    </figure>
  );
});

/** The difficulty knobs over training (one chart per knob that moves; a fixed run stays flat). */
function DifficultyOverlays({ focus, sides, smoothing }: { focus: boolean; sides: ChartSide[]; smoothing: number }) {
  const knobs = useMemo(() => {
    const seen = new Map<string, Set<number>>();
    for (const x of sides)
      for (const m of x.metrics)
        for (const [k, v] of Object.entries(m))
          if (k.startsWith('difficulty/')) (seen.get(k) ?? seen.set(k, new Set()).get(k)!).add(v);
    const moving = [...seen].filter(([, vs]) => vs.size > 1).map(([k]) => k);
    return moving.length ? moving : [...seen.keys()].slice(0, 1);
  }, [sides]);
  if (!knobs.length)
    return (
      <Overlay
        metric="difficulty"
        title={metricTitle('difficulty')}
        sides={sides}
        smoothing={smoothing}
        focus={focus}
      />
    );
  return (
    <>
      {knobs.map((k) => (
        <Overlay
          key={k}
          metric={k}
          title={`Difficulty: ${k.slice('difficulty/'.length)}`}
          sides={sides}
          smoothing={smoothing}
          focus={focus}
        />
      ))}
    </>
  );
}

function FocusChart({ metric, sides, smoothing }: { metric: string; sides: ChartSide[]; smoothing: number }) {
  if (metric === 'eval') return <PassKOverlay focus sides={sides} />;
  if (metric === 'difficulty') return <DifficultyOverlays focus sides={sides} smoothing={smoothing} />;
  return (
    <Overlay
      metric={metric}
      title={COMPARED.find((m) => m.key === metric)?.title ?? metricTitle(metric)}
      sides={sides}
      smoothing={smoothing}
      focus
    />
  );
}

/** Compare's charts: the lesson's first (highlighted) when one is open, then every other compared metric. */
export function CompareCharts({
  focus,
  lessonTitle,
  sides: chartSides,
  smoothing,
}: {
  focus: readonly string[];
  lessonTitle: string;
  sides: ChartSide[];
  smoothing: number;
}) {
  return (
    <>
      {focus.length > 0 && (
        <>
          <h3 className="focus-heading" data-testid="compare-focus-heading">
            What the lesson “{lessonTitle}” says to look at
          </h3>
          <div className="charts-grid" data-testid="compare-focus-charts">
            {focus.map((m) => (
              <FocusChart key={m} metric={m} sides={chartSides} smoothing={smoothing} />
            ))}
          </div>
          <h3 className="focus-heading">The other charts</h3>
        </>
      )}
      <div className="charts-grid">
        {COMPARED.filter((m) => !focus.includes(m.key)).map((m) => (
          <Overlay key={m.key} metric={m.key} title={m.title} sides={chartSides} smoothing={smoothing} />
        ))}
      </div>
    </>
  );
}
