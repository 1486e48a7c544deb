import { useMemo } from 'react';
import { presets } from '../../../rl/presets.ts';
import { comparePatches, pauseCompare, startCompare, stopCompare } from '../../compare.ts';
import { draftValidation } from '../../controller.ts';
import { chartRows } from '../../chart-data.ts';
import { patch, useApp } from '../../store.ts';
import { LinesChart } from '../charts/MetricChart.tsx';

const COMPARED: { key: string; title: string }[] = [
  { key: 'reward', title: 'Reward' },
  { key: 'accuracy', title: 'Accuracy' },
  { key: 'entropy', title: 'Entropy' },
  { key: 'completions/mean_length', title: 'Response length' },
  { key: 'clip_ratio/low_mean', title: 'Clip fraction (low)' },
  { key: 'clip_ratio/high_mean', title: 'Clip fraction (high)' },
  { key: 'kl', title: 'KL' },
  { key: 'frac_reward_zero_std', title: 'Zero-variance groups' },
  { key: 'grad_norm', title: 'Gradient norm' },
];

function Overlay({ metric, title }: { metric: string; title: string }) {
  const a = useApp((s) => s.compare.a.metrics);
  const b = useApp((s) => s.compare.b.metrics);
  const smoothing = useApp((s) => s.smoothing);
  const rows = useMemo(() => {
    const ra = chartRows(a, [metric], smoothing);
    const rb = chartRows(b, [metric], smoothing);
    const byStep = new Map<number, Record<string, number | null>>();
    for (const r of ra) byStep.set(r.step, { step: r.step, A: r[metric] ?? null, 'A~raw': r[`${metric}~raw`] ?? null });
    for (const r of rb) byStep.set(r.step, { ...(byStep.get(r.step) ?? { step: r.step }), B: r[metric] ?? null, 'B~raw': r[`${metric}~raw`] ?? null });
    return [...byStep.values()].sort((x, y) => x.step! - y.step!) as ({ step: number } & Record<string, number | null>)[];
  }, [a, b, metric, smoothing]);
  return (
    <figure className="chart" data-testid={`compare-chart-${metric}`}>
      <figcaption>
        <span className="chart-title">{title}</span>
        <span className="help">
          <code>{metric}</code>
        </span>
      </figcaption>
      {rows.length ? (
        <LinesChart
          rows={rows}
          series={[
            { key: 'A', label: 'A', color: 'var(--c1)' },
            { key: 'B', label: 'B', color: 'var(--c3)', dashed: true },
          ]}
        />
      ) : (
        <div className="chart-empty">no steps yet</div>
      )}
    </figure>
  );
}

/** Two configs on the same seed, side by side: overlaid charts and the list of differences. */
export default function ComparePanel() {
  const c = useApp((s) => s.compare);
  const presetA = useApp((s) => s.setup.draft.presetId);
  const invalid = useApp((s) => Object.keys(draftValidation(s).errors).length > 0);
  let patchError: string | null = null;
  try {
    comparePatches();
  } catch (e) {
    patchError = (e as Error).message;
  }
  return (
    <div className="compare">
      <p>
        Trains two runs at once, each in its own worker, from the same checkpoint and seed (so the same prompts): A is the setup on the left (preset <code>{presetA}</code>), B the same setup with another preset and your
        overrides. Both share this machine’s cores, so each runs at about half speed.
      </p>
      <div className="row wrap">
        <div className="field">
          <label htmlFor="preset-b">B preset</label>
          <select id="preset-b" value={c.presetB} data-testid="compare-preset-b" onChange={(e) => patch('compare', { presetB: e.target.value })}>
            {presets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="edits-b">B overrides (key=value, one per line or comma-separated)</label>
          <textarea id="edits-b" rows={2} value={c.editsB} placeholder="epsilon_high=0.28" data-testid="compare-edits-b" onChange={(e) => patch('compare', { editsB: e.target.value })} />
          {patchError && <p className="inline-error">{patchError}</p>}
        </div>
        <div className="field">
          <label htmlFor="compare-steps">Steps</label>
          <input id="compare-steps" type="number" min={1} value={c.steps} onChange={(e) => patch('compare', { steps: Math.max(1, Math.floor(Number(e.target.value) || 1)) })} />
        </div>
      </div>
      <div className="row">
        <button type="button" className="primary" data-testid="compare-start" disabled={c.running || invalid || !!patchError} onClick={() => void startCompare()}>
          Run both
        </button>
        <button type="button" disabled={!c.running} onClick={() => void pauseCompare()}>
          Pause both
        </button>
        <button type="button" onClick={() => stopCompare()}>
          Stop and free the workers
        </button>
        <span className="muted" data-testid="compare-status">
          A: {c.a.state} step {c.a.step} · B: {c.b.state} step {c.b.step}
        </span>
      </div>
      {[c.a, c.b].map((s) => s.error && (
        <p key={s.label} className="inline-error" role="alert">
          {s.label}: {s.error}
        </p>
      ))}
      {c.diff.length > 0 && (
        <table className="diff" data-testid="compare-diff">
          <caption>Config differences</caption>
          <thead>
            <tr>
              <th scope="col">field</th>
              <th scope="col">A</th>
              <th scope="col">B</th>
            </tr>
          </thead>
          <tbody>
            {c.diff.map(([k, a, b]) => (
              <tr key={k}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                <td>{a}</td>
                <td>{b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="charts-grid">
        {COMPARED.map((m) => (
          <Overlay key={m.key} metric={m.key} title={m.title} />
        ))}
      </div>
    </div>
  );
}
