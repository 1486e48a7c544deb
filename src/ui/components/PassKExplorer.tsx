import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { cancelPassK, runPassK } from '../state/long-jobs.ts';
import { passKEstimate } from '../state/pace.ts';
import { aboutTime, passKSecondsLeft } from '../derive/passk-progress.ts';
import { passkVerdict } from '../derive/passk-caption.ts';
import { useApp } from '../state/store.ts';

const K_TICKS = [1, 2, 4, 8, 16, 32, 64];

/** pass@k for k = 1..64, base policy vs current, on the same held-out prompts; recomputed on demand. */
export default function PassKExplorer() {
  const passk = useApp((s) => s.passk);
  const state = useApp((s) => s.run.state);
  const evalPrompts = useApp((s) => s.run.config?.eval_prompts);
  // Before pressing: from this device's pace. While it samples: one line over both phases, and the
  // time left from the rate measured since its first batch (passk-progress.ts).
  const before = useApp((s) => passKEstimate(null, 0, s));
  const wait = passk.running ? (passk.wait ?? null) : null;
  const left = wait ? passKSecondsLeft(wait, performance.now()) : null;
  const estimate = passk.running ? (left === null ? null : `${aboutTime(left)} left (measured)`) : before;
  const c = passk.curve;
  const pct = wait ? Math.floor(100 * wait.fraction) : passk.running ? 0 : null;
  const rows = c
    ? c.ks.map((k) => ({ k, base: c.base[String(k)] ?? null, current: c.current[String(k)] ?? null }))
    : [];
  // The verdict is read off the same numbers the chart plots (passk-caption.ts).
  const verdict = c ? passkVerdict(c) : '';
  return (
    <div className="passk">
      <p>
        RL often sharpens pass@1 while the base model still wins at large k: it had the answers, RL made it pick them
        more often. This samples 64 completions for each of the {evalPrompts ?? 'eval_prompts'} held-out prompts with
        the base checkpoint and with the current policy (same prompts, same sampling settings).
      </p>
      <button
        type="button"
        className="primary"
        data-testid="run-passk"
        aria-busy={passk.running}
        disabled={passk.running || state === 'running' || state === 'loading'}
        onClick={() => void runPassK()}
      >
        {passk.running
          ? `Computing…${pct === null ? '' : ` ${pct}%`}`
          : state === 'loading'
            ? 'Loading the model…'
            : c
              ? 'Recompute pass@k'
              : 'Compute pass@k (base vs current)'}
      </button>
      {estimate && (
        <span className="muted small" data-testid="passk-estimate">
          {' '}
          {estimate}
        </span>
      )}
      {passk.running && (
        <button type="button" data-testid="passk-cancel" onClick={cancelPassK}>
          Cancel
        </button>
      )}
      {state === 'running' && !passk.running && (
        <span className="muted small"> pause training first (runs share the model)</span>
      )}
      {passk.running && (
        <p className="wait-line" role="status" data-testid="passk-progress" data-percent={pct ?? 0}>
          <progress max={100} value={pct ?? 0} aria-hidden="true" /> {pct ?? 0}%:{' '}
          {wait
            ? 'sampling with ' +
              (wait.what === 'passk-base'
                ? 'the base checkpoint (phase 1 of 2)'
                : `the current policy${wait.twoPhases ? ' (phase 2 of 2)' : ''}`)
            : 'preparing: loading the model and compiling the sampling graph'}
        </p>
      )}
      {passk.cancelled && !passk.running && (
        <p className="muted" role="status" data-testid="passk-cancelled">
          Cancelled: pass@k was not computed{c ? ' again (the curve below is the last one computed)' : ''}. Training and
          the other panels can use the model again.
        </p>
      )}
      {passk.error && (
        <p className="inline-error" role="alert" data-testid="passk-error">
          {passk.error}
        </p>
      )}
      {c && (
        <figure className="chart wide" data-testid="passk-chart" data-step={c.step}>
          <figcaption>
            <span className="chart-title">
              pass@k after {c.step} steps — {c.prompts} prompts × {c.n} samples ({c.seconds.toFixed(1)} s)
            </span>
            <span className="help">unbiased estimator 1 − C(n−c, k)/C(n, k), averaged over prompts</span>
            {passk.restored && (
              <span className="help" data-testid="passk-restored">
                computed at step {c.step} before the page was reloaded, and kept with the run
              </span>
            )}
            <span className="help" data-testid="passk-verdict">
              {verdict.charAt(0).toUpperCase() + verdict.slice(1)}.
            </span>
          </figcaption>
          <div
            role="img"
            aria-label={
              `pass@k for k = 1 to ${c.ks[c.ks.length - 1]}: base ` +
              `checkpoint pass@1 ${(c.base['1'] ?? 0).toFixed(3)}` +
              `, pass@${c.ks[c.ks.length - 1]} ${(c.base[String(c.ks[c.ks.length - 1])] ?? 0).toFixed(3)}` +
              `; current policy pass@1 ${(c.current['1'] ?? 0).toFixed(3)}` +
              `, pass@${c.ks[c.ks.length - 1]} ${(c.current[String(c.ks[c.ks.length - 1])] ?? 0).toFixed(3)}`
            }
          >
            <ResponsiveContainer width="100%" height={300}>
              <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
                <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
                <XAxis
                  dataKey="k"
                  type="number"
                  scale="log"
                  domain={[1, 64]}
                  ticks={K_TICKS}
                  tick={{ fontSize: 11, fill: 'var(--muted)' }}
                  stroke="var(--muted)"
                  label={{ value: 'k', position: 'insideBottomRight', fill: 'var(--muted)' }}
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
                <Legend />
                <Line
                  dataKey="base"
                  name="base checkpoint"
                  stroke="var(--c3)"
                  dot={false}
                  strokeWidth={2}
                  isAnimationActive={false}
                />
                <Line
                  dataKey="current"
                  name="current policy"
                  stroke="var(--c1)"
                  dot={false}
                  strokeWidth={2}
                  isAnimationActive={false}
                />
              </LineChart>
            </ResponsiveContainer>
          </div>
        </figure>
      )}
    </div>
  );
}
