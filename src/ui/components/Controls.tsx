import { useEffect, useRef, useState } from 'react';
import { pause, start, stepOnce } from '../state/controller.ts';
import { reset } from '../state/run-load.ts';
import { draftValidation } from '../state/setup-state.ts';
import { mainRunEstimate } from '../state/pace.ts';
import { setState, useApp } from '../state/store.ts';

/** Opens the field's section (Advanced is a <details>) and moves the focus to it. */
function focusField(path: string): void {
  const id = path.startsWith('difficulty.') ? `knob-${path.slice(11)}` : `f-${path.replace(/\W/g, '-')}`;
  const el = document.getElementById(id);
  const details = el?.closest('details');
  if (details) details.open = true;
  el?.scrollIntoView({ block: 'center' });
  el?.focus();
}

/** Asks before Reset throws the run away, and says what is kept. */
function ConfirmReset({ onDone }: { onDone: () => void }) {
  const step = useApp((s) => s.run.step);
  const saved = useApp((s) => s.autosave);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby="confirm-reset-title"
      aria-describedby="confirm-reset-text"
      data-testid="confirm-reset"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
      }}
    >
      <strong id="confirm-reset-title">Reset the run?</strong>{' '}
      <span id="confirm-reset-text">
        The model goes back to its base checkpoint, and{' '}
        {step === 1
          ? 'the 1 step of training and its charts are'
          : `the ${step} steps of training and their charts are`}{' '}
        discarded.{' '}
        {saved
          ? `The autosave of step ${saved.step} is kept as a saved run (Restore brings it back).`
          : 'There is no autosave of this run.'}
      </span>{' '}
      <button
        type="button"
        className="danger"
        data-testid="confirm-reset-yes"
        onClick={() => {
          onDone();
          void reset();
        }}
      >
        Reset
      </button>{' '}
      <button type="button" ref={cancel} data-testid="confirm-reset-no" onClick={onDone}>
        Cancel
      </button>
    </div>
  );
}

/** Start, Pause, Step once, Reset; Start stays disabled while the setup has invalid values or is still loading. */
export function Controls() {
  const state = useApp((s) => s.run.state);
  const invalidFields = useApp((s) => Object.keys(draftValidation(s).errors).join(' '));
  const invalidList = invalidFields ? invalidFields.split(' ') : [];
  const invalid = invalidList.length;
  const pending = useApp((s) => s.pendingRestart);
  const liveNote = useApp((s) => s.liveNote);
  const booted = useApp((s) => s.booted);
  const action = useApp((s) => s.busy);
  const guideOpen = useApp((s) => s.guideOpen);
  const [confirming, setConfirming] = useState(false);
  // "about N min": from this device's measured pace before Start, from the run's own steps while it trains.
  const estimate = useApp((s) => mainRunEstimate(s));
  const busy = state === 'loading' || state === 'pausing' || action !== null || !booted;
  const running = state === 'running';
  const stepping = action === 'running one step';
  return (
    <div className="controls" role="group" aria-label="Training controls" aria-busy={busy} data-testid="controls">
      <button
        type="button"
        className="primary"
        data-testid="start"
        disabled={invalid > 0 || busy || running}
        onClick={() => void start()}
      >
        {!booted ? 'Loading…' : state === 'paused' || state === 'done' ? 'Resume training' : 'Start training'}
      </button>
      <button type="button" data-testid="pause" disabled={!running || stepping} onClick={() => void pause()}>
        Pause
      </button>
      <button
        type="button"
        data-testid="step-once"
        disabled={invalid > 0 || busy || running}
        aria-busy={stepping}
        onClick={() => void stepOnce()}
      >
        {stepping ? 'Stepping…' : 'Step once'}
      </button>
      <button
        type="button"
        data-testid="reset"
        disabled={busy || state === 'idle' || confirming}
        onClick={() => setConfirming(true)}
      >
        Reset
      </button>
      <button
        type="button"
        className="subtle"
        data-testid="guide-open"
        aria-pressed={guideOpen}
        onClick={() => setState({ guideOpen: !guideOpen })}
      >
        Guide
      </button>
      {estimate && (
        <span className="note muted" data-testid="time-estimate">
          {estimate}
        </span>
      )}
      {confirming && <ConfirmReset onDone={() => setConfirming(false)} />}
      {action && (
        <span className="note muted" role="status" data-testid="busy-note">
          {action}…
        </span>
      )}
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
