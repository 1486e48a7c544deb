import { draftValidation, pause, reset, start, stepOnce } from '../controller.ts';
import { useApp } from '../store.ts';

/** Opens the field's section (Advanced is a <details>) and moves the focus to it. */
function focusField(path: string): void {
  const id = path.startsWith('difficulty.') ? `knob-${path.slice(11)}` : `f-${path.replace(/\W/g, '-')}`;
  const el = document.getElementById(id);
  const details = el?.closest('details');
  if (details) details.open = true;
  el?.scrollIntoView({ block: 'center' });
  el?.focus();
}

/** Start, Pause, Step once, Reset; Start stays disabled while the setup has invalid values. */
export function Controls() {
  const state = useApp((s) => s.run.state);
  const invalidFields = useApp((s) => Object.keys(draftValidation(s).errors).join(' '));
  const invalidList = invalidFields ? invalidFields.split(' ') : [];
  const invalid = invalidList.length;
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
          Fix {invalid} invalid setting{invalid === 1 ? '' : 's'} to train:{' '}
          {invalidList.map((f, i) => (
            <span key={f}>
              {i > 0 && ', '}
              <button type="button" className="link" data-testid={`invalid-${f}`} onClick={() => focusField(f)}>
                {f}
              </button>
            </span>
          ))}
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
