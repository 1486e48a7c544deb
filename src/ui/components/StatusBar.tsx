import { applyUpdate } from '../../pwa/register.ts';
import { keepEverythingForOffline, useOffline } from '../state/offline-state.ts';
import { presets } from '../../rl/presets.ts';
import { useApp, type LiveRun } from '../state/store.ts';
import { shownRecordedStep } from '../derive/shown-run.ts';

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

/** What the count of each kind of wait counts. */
const unitOf: Record<string, string> = {
  eval: 'samples',
  'passk-base': 'samples',
  'passk-current': 'samples',
  'warm-start': 'SFT steps',
  init: 'parts',
};

/** "held-out pass@k on 32 prompts — 64/256 samples (25%)": the wait, what is counted, and how far. */
export function progressText(p: NonNullable<LiveRun['progress']>): string {
  const pct = p.total > 0 ? Math.round((100 * p.done) / p.total) : 0;
  const unit = p.phase ?? unitOf[p.what] ?? '';
  return `${unit ? `${unit} ` : ''}${p.done}/${p.total} (${pct}%)`;
}

/**
 * "Step N", what is training (task · preset), what the worker is doing and how far, the backend (why: on demand),
 * speed, and the step budget.
 */
export function StatusBar() {
  const run = useApp((s) => s.run);
  const recStep = useApp((s) => shownRecordedStep(s)?.step ?? null);
  const recLast = useApp((s) => shownRecordedStep(s)?.last ?? null);
  const recording = recStep === null || recLast === null ? null : { step: recStep, last: recLast };
  // The run's own task once there is one (the setup may already name the next run's); the preset is the setup's,
  // applied live to the run.
  const task = useApp((s) => s.run.config?.task ?? s.setup.draft.task);
  const presetId = useApp((s) => s.setup.draft.presetId);
  const presetTitle = presets.find((x) => x.id === presetId)?.title ?? presetId;
  const busy = useApp((s) => s.busy);
  const booted = useApp((s) => s.booted);
  const budget = run.stepBudget;
  const training = run.state === 'running';
  const eta = budget > 0 && run.stepsPerMinute > 0 && training ? ((budget - run.step) / run.stepsPerMinute) * 60 : NaN;
  const offline = useOffline();
  const b = run.backend;
  const backendText = b
    ? `backend ${b.kind === 'webgpu' ? b.description : `WASM, ${b.threads} thread${b.threads === 1 ? '' : 's'}`}`
    : 'backend chosen on first start';
  const p = run.activity ? run.progress : null;
  const activity = run.activity || (busy ? `${busy}…` : !booted ? 'loading the shipped checkpoints…' : '');
  // Something pressed is under way (not a note such as "step budget reached"): it shows a percentage throughout.
  const waiting = !!busy || run.state === 'loading' || run.state === 'running' || run.state === 'pausing';
  return (
    <div className="status-bar" role="status" aria-live="polite" data-testid="status-bar">
      {/* Over a recording the header says so (the live run, if any, is kept as it is). */}
      <span
        className={`state state-${recording ? 'recording' : run.state}`}
        data-testid="run-state"
        data-state={run.state}
        data-showing={recording ? 'recording' : 'live'}
      >
        {recording ? 'recording (not training)' : (stateText[run.state] ?? run.state)}
      </span>
      <span className="step" data-testid="step-count">
        {recording ? `Recorded step ${recording.step} of ${recording.last}` : `Step ${run.step}`}
      </span>
      <span className="what" data-testid="status-what" data-task={task} data-preset={presetId}>
        task <strong>{task}</strong> · preset <strong>{presetTitle}</strong>
      </span>
      {training && (
        <span data-testid="steps-per-minute">
          {run.stepsPerMinute > 0 ? `${run.stepsPerMinute.toFixed(1)} steps/min` : '— steps/min'}
        </span>
      )}
      {budget > 0 && (
        <span className="budget">
          <progress
            max={budget}
            value={Math.min(run.step, budget)}
            aria-label={`Progress: ${run.step} of ${budget} steps`}
            data-testid="progress"
          />
          <span>
            {run.step}/{budget}
            {training ? ` · ETA ${fmtDuration(eta)}` : ''}
          </span>
        </span>
      )}
      {!offline.isolated && (
        <span className="isolation-note" data-testid="isolation-note" data-phase={offline.phase}>
          One WASM thread: this page is not cross-origin isolated{offline.note ? ` (${offline.note})` : ''}. Training
          works, only slower.
        </span>
      )}
      <KeepForOffline />
      {offline.updateReady && (
        <span className="update-note" data-testid="update-ready">
          A new version is ready.{' '}
          <button type="button" onClick={applyUpdate}>
            Reload to update
          </button>
        </span>
      )}
      {activity && (
        <span className="activity" data-testid="activity" data-what={p?.what ?? ''}>
          {activity}
          {(waiting || (p && p.total > 0)) && ' — '}
          {p && p.total > 0 ? (
            <>
              <progress className="wait" max={p.total} value={p.done} aria-hidden="true" />{' '}
              <span data-testid="activity-progress">{progressText(p)}</span>
            </>
          ) : (
            // Before the worker's first count (loading, compiling): a percentage from the press on, at 0.
            waiting && (
              <>
                <progress className="wait" max={1} value={0} aria-hidden="true" />{' '}
                <span data-testid="activity-progress">0%</span>
              </>
            )
          )}
        </span>
      )}
      <span className="backend" data-testid="backend" data-kind={b?.kind ?? ''}>
        {backendText}
        {b && (
          <details className="why">
            <summary aria-label="Why this backend?">why?</summary>
            <span className="popover" data-testid="backend-reason">
              {b.reason}
            </span>
          </details>
        )}
      </span>
    </div>
  );
}

const mbText = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/**
 * The first visit caches only what the first run needs; this offers the rest (recordings, other
 * checkpoints) at its stated size, for a class that will be offline.
 */
function KeepForOffline() {
  const kept = useOffline((s) => s.kept);
  if (kept.state === 'unknown' || kept.totalBytes === 0) return null;
  const left = kept.totalBytes - kept.cachedBytes;
  return (
    <span className="keep-offline" data-testid="keep-offline" data-state={kept.state}>
      {kept.state === 'kept' && 'Everything is kept for offline use.'}
      {kept.state === 'keeping' && (
        <>
          Keeping everything for offline use… {mbText(kept.cachedBytes)} of {mbText(kept.totalBytes)}{' '}
          <progress className="wait" max={kept.totalBytes} value={kept.cachedBytes} aria-hidden="true" />
        </>
      )}
      {(kept.state === 'partial' || kept.state === 'failed') && (
        <>
          {kept.state === 'failed' && `Keeping stopped: ${kept.message}. `}
          <button
            type="button"
            onClick={() => void keepEverythingForOffline()}
            title="Recordings of the lessons and runs, and every shipped checkpoint"
          >
            Keep everything for offline use ({mbText(left)})
          </button>
        </>
      )}
    </span>
  );
}
