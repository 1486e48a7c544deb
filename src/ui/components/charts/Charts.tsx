import { useDeferredValue, useMemo, useRef } from 'react';
import { Bar, BarChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { findLesson, metricTitle } from '../../derive/lesson-plan.ts';
import { setState, useApp } from '../../state/store.ts';
import { effectiveDraftConfig } from '../../state/setup-state.ts';
import { latestSummary, type Row } from '../../derive/chart-data.ts';
import { sharpeningWarning } from '../../derive/chart-warnings.ts';
import { LinesChart, MetricChart } from './MetricChart.tsx';
import { useBoundedRate } from './render-budget.ts';
import { useChartFocus } from './chart-focus.ts';
import { chartSpecs, type ChartSpec } from '../../derive/chart-specs.ts';
import type { MetricKey, RewardComponentKey } from '../../../rl/metrics.ts';
import { heldOutSamples } from '../../../rl/config.ts';
import { seriesSource, shownConfig, shownEvals, shownHistogram, shownSeries } from '../../derive/shown-run.ts';

function SmoothingSlider() {
  const smoothing = useApp((s) => s.smoothing);
  return (
    <div className="smoothing">
      <label htmlFor="smoothing">Smoothing</label>
      <input
        id="smoothing"
        type="range"
        min={0}
        max={0.99}
        step={0.01}
        value={smoothing}
        data-testid="smoothing"
        onChange={(e) => setState({ smoothing: Number(e.target.value) })}
      />
      <output htmlFor="smoothing">{smoothing.toFixed(2)}</output>
    </div>
  );
}

const EVAL = ['eval'];

/**
 * Held-out pass@k over training: pass@1 up to pass@n at each evaluation (n samples per prompt: heldOutSamples in
 * src/rl/config.ts).
 */
function EvalChart({ focus = false }: { focus?: boolean }) {
  const ref = useRef<HTMLElement>(null);
  useChartFocus(ref, EVAL, false);
  const evals = useApp(shownEvals);
  const config = useApp(shownConfig);
  const ks = useMemo(() => {
    const all = new Set<string>();
    for (const e of evals) for (const k of Object.keys(e.pass_at_k)) all.add(k);
    const sorted = [...all].map(Number).sort((a, b) => a - b);
    return [...new Set([sorted[0], sorted[Math.floor(sorted.length / 2)], sorted[sorted.length - 1]])].filter(
      (k): k is number => k !== undefined,
    );
  }, [evals]);
  // pass@1 ± one standard error over the held-out prompts (passAt1StandardError in src/rl/passk.ts), shaded.
  const rows = evals.map((e) => {
    const p1 = e.pass_at_k['1'];
    const band =
      p1 !== undefined && e.pass1_se !== undefined
        ? [Math.max(0, p1 - e.pass1_se), Math.min(1, p1 + e.pass1_se)]
        : null;
    return {
      step: e.step,
      ...Object.fromEntries(ks.map((k) => [`pass@${k}`, e.pass_at_k[String(k)] ?? null])),
      'pass@1 ± 1 SE': band,
    };
  });
  const series = ks.map((k) => ({ key: `pass@${k}`, label: `pass@${k}` }));
  const last = evals[evals.length - 1];
  const seText =
    last?.pass1_se !== undefined
      ? ` (± ${last.pass1_se.toFixed(3)} standard error ` +
        `over ${config?.eval_prompts ?? '?'} prompts × ${config ? heldOutSamples(config) : '?'} ` +
        'samples)'
      : '';
  const summary = latestSummary(rows as unknown as Record<string, number>[], series) + seText;
  const running = useApp((s) => s.run.progress?.what === 'eval');
  const sharpening = sharpeningWarning(evals);
  return (
    <figure
      ref={ref}
      className={`chart${focus ? ' focus' : ''}`}
      data-testid="chart-eval"
      data-focus={focus ? 'true' : undefined}
      data-points={evals.length}
    >
      <figcaption>
        <span className="chart-title">Held-out pass@k</span>
        {focus && <span className="focus-tag">lesson: look here</span>}
        <span className="help">
          unbiased pass@k on a fixed set of held-out prompts, every eval_every steps (step 0 = the base policy); the
          band is pass@1 ± one standard error over the prompts
        </span>
        {sharpening ? (
          <span className="hint" data-testid="chart-eval-warning">
            ⚠ {sharpening}
          </span>
        ) : (
          <span className="help">
            pass@1 up while pass@k at large k falls: RL sharpens onto answers the model already finds
          </span>
        )}
      </figcaption>
      {evals.length ? (
        <div
          role="img"
          aria-label={
            `Held-out pass@k: line chart over ${evals.length} ` +
            `evaluation${evals.length === 1 ? '' : 's'}; ${summary}`
          }
        >
          <LinesChart
            rows={rows as unknown as Row[]}
            series={series}
            yDomain={[0, 1]}
            band={{ key: 'pass@1 ± 1 SE', label: 'pass@1 ± 1 SE' }}
          />
        </div>
      ) : (
        <div className="chart-empty">
          {running
            ? 'the first evaluation (step 0, the base policy) is running: see its progress at the top'
            : 'no evaluation yet'}
        </div>
      )}
      {evals.length > 0 && (
        <p className="chart-summary" data-testid="chart-eval-summary">
          {summary}
        </p>
      )}
      {evals.length > 1 && (
        <p className="help" data-testid="chart-eval-band-note">
          {bandNote(evals)}
        </p>
      )}
    </figure>
  );
}

/**
 * What the band says about a dip: the largest fall of pass@1 between two evaluations, and whether it
 * stays within their standard errors (two combined: a change that small is the held-out sample's noise).
 */
export function bandNote(evals: { step: number; pass_at_k: Record<string, number>; pass1_se?: number }[]): string {
  const general =
    'The band is pass@1 ± one standard error: measured ' +
    'again on other held-out prompts, pass@1 would land ' +
    'in it about two times in three.';
  let dip: { from: (typeof evals)[number]; to: (typeof evals)[number]; fall: number } | null = null;
  for (let i = 1; i < evals.length; i++) {
    const a = evals[i - 1]!;
    const b = evals[i]!;
    const fall = (a.pass_at_k['1'] ?? NaN) - (b.pass_at_k['1'] ?? NaN);
    if (fall > 0 && (!dip || fall > dip.fall)) dip = { from: a, to: b, fall };
  }
  if (!dip || dip.from.pass1_se === undefined || dip.to.pass1_se === undefined) return general;
  const noise = 2 * Math.hypot(dip.from.pass1_se, dip.to.pass1_se);
  const what =
    `The dip from step ${dip.from.step} to ${dip.to.step} ` +
    `(${dip.from.pass_at_k['1']!.toFixed(2)} → ${dip.to.pass_at_k['1']!.toFixed(2)}` +
    ')';
  return dip.fall <= noise
    ? `${general} ${what} is within two standard errors ` +
        `of the difference (${noise.toFixed(2)}): noise of ` +
        'the held-out sample, not a sign the policy got ' +
        'worse.'
    : `${general} ${what} is larger than two standard ` +
        `errors of the difference (${noise.toFixed(2)}): ` +
        'more likely a real drop than noise.';
}

function AdvantageHistogram() {
  const h = useApp(shownHistogram);
  if (!h) return null;
  const rows = h.counts.map((c, i) => ({ bin: `${h.edges[i]!.toFixed(1)}`, count: c }));
  const total = h.counts.reduce((a, b) => a + b, 0);
  const zeroBin = h.counts.findIndex((_, i) => h.edges[i]! <= 0 && (h.edges[i + 1] ?? Infinity) > 0);
  const atZero = zeroBin >= 0 ? h.counts[zeroBin]! : 0;
  return (
    <figure className="chart" data-testid="chart-advantages">
      <figcaption>
        <span className="chart-title">Advantages (latest step)</span>
        <span className="help">
          distribution of per-completion advantages; a spike at 0 means groups without signal
        </span>
      </figcaption>
      <div
        role="img"
        aria-label={
          `Advantages of the latest step: histogram of ${total} ` + `completions; ${atZero} of them in the bin at 0`
        }
      >
        <ResponsiveContainer width="100%" height={170}>
          <BarChart data={rows} accessibilityLayer={false}>
            <XAxis dataKey="bin" tick={{ fontSize: 10, fill: 'var(--muted)' }} stroke="var(--muted)" />
            <YAxis
              width={40}
              tick={{ fontSize: 11, fill: 'var(--muted)' }}
              stroke="var(--muted)"
              allowDecimals={false}
            />
            <Tooltip
              contentStyle={{
                background: 'var(--panel)',
                border: '1px solid var(--border)',
                color: 'var(--fg)',
                fontSize: 12,
              }}
            />
            <Bar dataKey="count" fill="var(--c1)" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

export default function Charts() {
  // The series shown (shown-run.ts): the live run's or a recording's, drawn the same way. New steps of a live
  // run reach the charts at a bounded rate, rendered as interruptible work; a recorded series up to its
  // scrubbed step at once: the scrubber is the user's own hand, not a stream of events.
  const series = useApp(shownSeries);
  const live = useBoundedRate(useApp((s) => s.run.metrics));
  const metrics = useDeferredValue(series.state === 'recorded' ? series.metrics : live);
  const smoothing = useDeferredValue(useApp((s) => s.smoothing));
  const source = seriesSource(series);
  // Reward components appear as the task reports them (correctness, format, partial, rlpr...).
  const componentKeys = useMemo(() => {
    const last = metrics[metrics.length - 1] ?? {};
    return Object.keys(last).filter((k): k is RewardComponentKey => /^rewards\/[^/]+\/mean$/.test(k));
  }, [metrics.length > 0 ? Object.keys(metrics[metrics.length - 1]!).length : 0]);
  const specs: ChartSpec[] = useMemo(
    () =>
      chartSpecs.map((s) =>
        s.id === 'reward'
          ? { ...s, lines: [...s.lines, ...componentKeys.map((k) => ({ key: k, label: k.split('/')[1]! }))] }
          : s,
      ),
    [componentKeys],
  );
  // A one-run lesson trains here: the charts it says to look at come first, highlighted.
  const lesson = findLesson(useApp((s) => s.lesson.active));
  const focus = useMemo(() => (lesson && lesson.runs.length === 1 ? lesson.lookAt : []), [lesson]);
  const focusSpecs: ChartSpec[] = useMemo(
    () => [
      ...specs.filter((s) => s.lines.some((l) => (focus as readonly string[]).includes(l.key))),
      ...focus
        .filter(
          (k): k is MetricKey =>
            k !== 'eval' && k !== 'difficulty' && !specs.some((s) => s.lines.some((l) => l.key === k)),
        )
        .map((k) => ({ id: `lesson-${k}`, title: metricTitle(k), lines: [{ key: k, label: k }], info: k })),
    ],
    [specs, focus],
  );
  const rest = specs.filter((s) => !focusSpecs.includes(s));
  // Which quantities cannot move: judged by the run's config, or the setup's before a run exists.
  const runConfig = useApp(shownConfig);
  const draft = useApp((s) => s.setup);
  const checkpoints = useApp((s) => s.checkpoints);
  const config = useMemo(() => runConfig ?? effectiveDraftConfig(), [runConfig, draft, checkpoints]);
  return (
    <div className="charts-view">
      <div className="charts-toolbar">
        <SmoothingSlider />
        <span className="muted small" data-testid="charts-steps">
          {metrics.length} step{metrics.length === 1 ? '' : 's'} charted
        </span>
      </div>
      <div className="charts-grid">
        {focus.includes('eval') && <EvalChart focus />}
        {focusSpecs.map((s) => (
          <MetricChart
            key={s.id}
            spec={s}
            metrics={metrics}
            smoothing={smoothing}
            config={config}
            source={source}
            focus
          />
        ))}
        {rest.slice(0, 2).map((s) => (
          <MetricChart key={s.id} spec={s} metrics={metrics} smoothing={smoothing} config={config} source={source} />
        ))}
        {!focus.includes('eval') && <EvalChart />}
        {rest.slice(2).map((s) => (
          <MetricChart key={s.id} spec={s} metrics={metrics} smoothing={smoothing} config={config} source={source} />
        ))}
        <AdvantageHistogram />
      </div>
    </div>
  );
}
