import { draftValidation, pause, reset, start, stepOnce } from '../controller.ts';
import { useApp } from '../store.ts';

/** Start, Pause, Step once, Reset; Start stays disabled while the setup has invalid values. */
export function Controls() {
  const state = useApp((s) => s.run.state);
  const invalid = useApp((s) => Object.keys(draftValidation(s).errors).length);
  const pending = useApp((s) => s.pendingRestart);
  const liveNote = useApp((s) => s.liveNote);
  const busy = state === 'loading' || state === 'pausing';
  const running = state === 'running';
  return (
    <div className="controls" role="group" aria-label="Training controls">
      <button type="button" className="primary" data-testid="start" disabled={invalid > 0 || busy || running} onClick={() => void start()}>
        {state === 'paused' || state === 'done' ? 'Resume training' : 'Start training'}
      </button>
      <button type="button" data-testid="pause" disabled={!running} onClick={() => void pause()}>
        Pause
      </button>
      <button type="button" data-testid="step-once" disabled={invalid > 0 || busy || running} onClick={() => void stepOnce()}>
        Step once
      </button>
      <button type="button" data-testid="reset" disabled={busy || state === 'idle'} onClick={() => void reset()}>
        Reset
      </button>
      {invalid > 0 && (
        <span className="inline-error" data-testid="invalid-note">
          Fix {invalid} invalid setting{invalid === 1 ? '' : 's'} to train
        </span>
      )}
      {pending && (
        <span className="note warn" data-testid="pending-restart">
          {pending.field}: {pending.reason}
        </span>
      )}
      {liveNote && !pending && (
        <span className="note muted" data-testid="live-note">
          {liveNote}
        </span>
      )}
    </div>
  );
}
