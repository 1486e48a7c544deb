import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { scrubTo } from '../../state/recording.ts';
import { useApp } from '../../state/store.ts';

/**
 * A recording's pass@k: the held-out evaluations it recorded (nothing is sampled), pass@k against k at
 * the scrubbed step beside step 0's (the base policy), and every evaluation in a table.
 */
export default function RecordedPassK() {
  const rec = useApp((s) => s.recording)!;
  const all = rec.record.evals;
  if (!all.length)
    return (
      <p className="muted" data-testid="recorded-passk-none">
        This recorded run has no held-out evaluations (it ran with eval_every = 0), so there is no recorded pass@k.
      </p>
    );
  const ks = [...new Set(all.flatMap((e) => Object.keys(e.pass_at_k)))].map(Number).sort((a, b) => a - b);
  const base = all.find((e) => e.step === 0) ?? all[0]!;
  const shown = rec.series.evals[rec.series.evals.length - 1] ?? base;
  const rows = ks.map((k) => ({
    k,
    base: base.pass_at_k[String(k)] ?? null,
    recorded: shown.pass_at_k[String(k)] ?? null,
  }));
  const fmt = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(3));
  return (
    <div className="passk" data-testid="recorded-passk" data-step={shown.step}>
      <p>
        Recorded pass@k: the held-out evaluations this run measured while it trained (nothing is sampled now). The chart
        shows the evaluation at or before the scrubbed step (step {shown.step}) beside step {base.step}
        {base.step === 0 ? ' (the base policy)' : ''}.
      </p>
      <figure className="chart wide" data-testid="recorded-passk-chart">
        <figcaption>
          <span className="chart-title">
            Recorded pass@k at step {shown.step} vs step {base.step}
          </span>
        </figcaption>
        <div
          role="img"
          aria-label={
            `Recorded pass@k at step ${shown.step}: pass@1 ${fmt(shown.pass_at_k['1'])}` +
            `; at step ${base.step}: pass@1 ${fmt(base.pass_at_k['1'])}`
          }
        >
          <ResponsiveContainer width="100%" height={260}>
            <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
              <XAxis
                dataKey="k"
                type="number"
                scale="log"
                domain={['dataMin', 'dataMax']}
                ticks={ks}
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
              />
              <Legend />
              <Line
                dataKey="base"
                name={`step ${base.step}`}
                stroke="var(--c3)"
                dot
                strokeWidth={2}
                isAnimationActive={false}
              />
              <Line
                dataKey="recorded"
                name={`step ${shown.step}`}
                stroke="var(--c1)"
                dot
                strokeWidth={2}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </div>
      </figure>
      <table className="data-table" data-testid="recorded-passk-table">
        <caption className="muted small">Every recorded evaluation (press a row to move the scrubber there)</caption>
        <thead>
          <tr>
            <th scope="col">step</th>
            {ks.map((k) => (
              <th scope="col" key={k}>
                pass@{k}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {all.map((e) => (
            <tr
              key={e.step}
              aria-current={e.step === shown.step ? 'true' : undefined}
              className={e.step === shown.step ? 'current' : undefined}
            >
              <th scope="row">
                <button type="button" className="link" onClick={() => scrubTo(e.step)}>
                  {e.step}
                </button>
              </th>
              {ks.map((k) => (
                <td key={k}>{fmt(e.pass_at_k[String(k)])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
