import { applyUpdate } from '../../pwa/register.ts';
import { useOffline } from '../offline-state.ts';
import { useApp } from '../store.ts';

function fmtDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

const stateText: Record<string, string> = {
  idle: 'not started',
  loading: 'loading',
  ready: 'ready',
  running: 'training',
  pausing: 'pausing…',
  paused: 'paused',
  done: 'done',
  error: 'error',
  crashed: 'worker stopped',
};

/** "Step N", the backend and why, speed, and progress toward the step budget. */
export function StatusBar() {
  const run = useApp((s) => s.run);
  const budget = run.stepBudget;
  const eta = budget > 0 && run.stepsPerMinute > 0 ? ((budget - run.step) / run.stepsPerMinute) * 60 : NaN;
  const offline = useOffline();
  const b = run.backend;
  const backendText = b ? (b.kind === 'webgpu' ? b.description : `WASM, ${b.threads} thread${b.threads === 1 ? '' : 's'}`) : 'backend chosen on first start';
  return (
    <div className="status-bar" role="status" aria-live="polite" data-testid="status-bar">
      <span className={`state state-${run.state}`} data-testid="run-state" data-state={run.state}>
        {stateText[run.state] ?? run.state}
      </span>
      <span className="step" data-testid="step-count">
        Step {run.step}
      </span>
      <span className="backend" data-testid="backend" data-kind={b?.kind ?? ''} title={b?.reason ?? ''}>
        {backendText}
        {b && <span className="muted small"> — {b.reason}</span>}
      </span>
      <span data-testid="steps-per-minute">{run.stepsPerMinute > 0 ? `${run.stepsPerMinute.toFixed(1)} steps/min` : '— steps/min'}</span>
      {budget > 0 && (
        <span className="budget">
          <progress max={budget} value={Math.min(run.step, budget)} aria-label={`Progress: ${run.step} of ${budget} steps`} data-testid="progress" />
          <span>
            {run.step}/{budget} · ETA {fmtDuration(eta)}
          </span>
        </span>
      )}
      {!offline.isolated && (
        <span className="isolation-note" data-testid="isolation-note" data-phase={offline.phase}>
          One WASM thread: this page is not cross-origin isolated{offline.note ? ` (${offline.note})` : ''}. Training works, only slower.
        </span>
      )}
      {offline.updateReady && (
        <span className="update-note" data-testid="update-ready">
          A new version is ready.{' '}
          <button type="button" onClick={applyUpdate}>
            Reload to update
          </button>
        </span>
      )}
      {run.activity && (
        <span className="activity muted" data-testid="activity">
          {run.activity}
          {run.progress && run.progress.total > 0 ? ` (${Math.round((100 * run.progress.done) / run.progress.total)}%)` : ''}
        </span>
      )}
    </div>
  );
}
