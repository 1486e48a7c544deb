import { useEffect, useRef, useState } from 'react';
import { autosave, setupKey } from '../state/autosave.ts';
import { start } from '../state/controller.ts';
import { discardSaved, restartFromAutosave, restoreOffered } from '../state/restore.ts';
import { dismissError } from '../state/errors.ts';
import { reset } from '../state/run-load.ts';
import { updateSetup } from '../state/setup-state.ts';
import { setNotices, useNotices } from '../state/notices.ts';
import { setState, useApp } from '../state/store.ts';
import { useTabs } from '../state/tabs.ts';

function ErrorBanner() {
  const error = useApp((s) => s.error);
  const autosave = useApp((s) => s.autosave);
  if (!error) return null;
  const webgpu = /webgpu/i.test(error.message);
  return (
    <div className="banner error" role="alert" data-testid="error-banner" data-kind={error.kind}>
      <strong>{error.title}</strong>
      <p data-testid="error-message">{error.message}</p>
      <div className="actions">
        {error.kind === 'crash' && (
          <>
            <button type="button" onClick={() => void restartFromAutosave()} data-testid="restart-autosave">
              {autosave ? `Restart from the last autosave (step ${autosave.step})` : 'Restart the worker'}
            </button>
            <button type="button" onClick={() => void reset()}>
              Start over
            </button>
          </>
        )}
        {error.kind === 'checkpoint' && (
          <button
            type="button"
            onClick={() => (updateSetup((s) => ({ ...s, checkpoint: null, model: null })), dismissError())}
          >
            Use the shipped checkpoint
          </button>
        )}
        {error.kind === 'restore' && (
          <button type="button" onClick={() => void discardSaved().then(reset)}>
            Forget the saved run and start over
          </button>
        )}
        {error.kind === 'step' && (
          <button type="button" onClick={() => void reset()}>
            Reset the run
          </button>
        )}
        {webgpu && (
          <button type="button" onClick={() => (updateSetup((s) => ({ ...s, backend: 'wasm' })), dismissError())}>
            Use WASM instead
          </button>
        )}
        <button type="button" onClick={dismissError} data-testid="dismiss-error">
          Dismiss
        </button>
      </div>
    </div>
  );
}

const savedAtText = (iso: string) => new Date(iso).toLocaleString();

/**
 * Saved runs this tab may restore: its own after a Reset, or, in a tab with no run of its own, the
 * runs other tabs saved (the most recent first). Nothing is restored without asking.
 */
function SavedRunBanner() {
  const offers = useApp((s) => s.savedRuns);
  const [showAll, setShowAll] = useState(false);
  if (!offers.length) return null;
  if (offers[0]!.kind === 'reset') {
    const o = offers[0]!;
    return (
      <div className="banner info" role="status" data-testid="saved-run-banner">
        The run was reset. Its autosave (step {o.step}, saved {savedAtText(o.savedAt)}) is kept as a saved run.{' '}
        <button type="button" data-testid="restore-saved-0" onClick={() => void restoreOffered(o.runId)}>
          Restore the saved run
        </button>{' '}
        <button type="button" data-testid="forget-saved-0" onClick={() => void discardSaved(o.runId)}>
          Forget it
        </button>
      </div>
    );
  }
  const shown = showAll ? offers : offers.slice(0, MAX_OFFERS);
  return (
    <div className="banner info" role="status" data-testid="saved-run-banner">
      <strong>Runs saved in this browser</strong> (the most recent first). This tab has no run of its own yet, so none
      was restored:
      <ul>
        {shown.map((o, i) => (
          <li key={o.runId} data-testid={`saved-run-${i}`}>
            {o.task}, step {o.step}, saved {savedAtText(o.savedAt)}
            {o.sameExperiment ? ' (the experiment of this link)' : ''}
            {o.openElsewhere ? ': open in another tab; restoring makes a copy for this tab' : ''}{' '}
            <button type="button" data-testid={`restore-saved-${i}`} onClick={() => void restoreOffered(o.runId)}>
              Restore
            </button>{' '}
            <button type="button" data-testid={`forget-saved-${i}`} onClick={() => void discardSaved(o.runId)}>
              {o.openElsewhere ? 'Hide' : 'Forget it'}
            </button>
          </li>
        ))}
      </ul>
      {offers.length > shown.length && (
        <button type="button" className="link" onClick={() => setShowAll(true)}>
          Show {offers.length - shown.length} more
        </button>
      )}{' '}
      <button type="button" onClick={() => setState({ savedRuns: [] })}>
        Dismiss
      </button>
    </div>
  );
}

const MAX_OFFERS = 3;

/** Another tab has this tab's experiment: both may be training it; each keeps its own saved run. */
function OtherTabBanner() {
  const experiment = useApp((s) => setupKey(s.setup));
  const others = useTabs((t) => t.others).filter((o) => o.experiment === experiment && o.state !== 'idle');
  if (!others.length) return null;
  const states = others.map((o) => `${o.state === 'running' ? 'training' : o.state} at step ${o.step}`);
  return (
    <div className="banner warn" role="status" data-testid="other-tab-banner">
      {others.length === 1
        ? 'Another tab of this browser has this same experiment open: its run is '
        : `${others.length} other tabs of this browser have this same experiment open: their runs are `}
      {states.join('; ')}. Each tab saves its own run, so neither overwrites the other, but they share this
      computer&apos;s cores, so both train more slowly.
    </div>
  );
}

/** What a reload or Restore brought back, and the steps lost if the page had shown more than was saved. */
function RestoredNotice() {
  const text = useNotices((s) => s.restored);
  const whileTraining = useNotices((s) => s.restoredWhileTraining);
  const state = useApp((s) => s.run.state);
  const resumable = state === 'paused' || state === 'ready';
  const resume = useRef<HTMLButtonElement>(null);
  // A reload mid-run asks rather than trains on its own: Resume takes the focus, so Enter goes on.
  useEffect(() => {
    if (whileTraining && resumable) resume.current?.focus();
  }, [whileTraining, resumable]);
  if (!text) return null;
  return (
    <div className="banner info" role="status" data-testid="restored-notice">
      <span data-testid="restored-message">{text}</span>{' '}
      {resumable && (
        <>
          It is paused.{' '}
          <button
            type="button"
            className="primary"
            data-testid="restored-resume"
            ref={resume}
            onClick={() => void start()}
          >
            Resume
          </button>{' '}
        </>
      )}
      <button type="button" onClick={() => setNotices({ restored: null, restoredWhileTraining: false })}>
        Dismiss
      </button>
    </div>
  );
}

function UrlNotes() {
  const notes = useApp((s) => s.urlNotes);
  if (!notes.length) return null;
  return (
    <div className="banner warn" role="status" data-testid="url-notes">
      <strong>About this link:</strong>
      <ul>
        {notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
      <button type="button" onClick={() => setState({ urlNotes: [] })}>
        Dismiss
      </button>
    </div>
  );
}

/** Autosave refused by the browser (storage full or unavailable): the run goes on, the person is told. */
function AutosaveOffBanner() {
  const why = useNotices((s) => s.autosaveOff);
  if (!why) return null;
  return (
    <div className="banner warn" role="status" data-testid="autosave-off">
      <p>{why}</p>
      <div className="actions">
        <button type="button" onClick={() => void autosave(true)}>
          Try again
        </button>
        <button type="button" onClick={() => setNotices({ autosaveOff: null })}>
          Dismiss
        </button>
      </div>
    </div>
  );
}

const suggestLr = (lr: number) => String(Number((lr / 10).toPrecision(2)));

/** The loop paused itself after repeated non-finite steps: why, and two one-click fixes. */
function NonFiniteBanner() {
  const nf = useNotices((s) => s.nonFinite);
  if (!nf) return null;
  const setEdit = (path: string, value: string) =>
    updateSetup((s) => ({ ...s, draft: { ...s.draft, edits: { ...s.draft.edits, [path]: value } } }));
  return (
    <div className="banner error" role="alert" data-testid="nonfinite-banner">
      <strong>Training paused: the loss or gradient kept being NaN or infinite</strong>
      <p data-testid="nonfinite-message">{nf.message}</p>
      <div className="actions">
        <button
          type="button"
          data-testid="nonfinite-lower-lr"
          onClick={() => setEdit('learning_rate', suggestLr(nf.learningRate))}
        >
          Lower learning_rate to {suggestLr(nf.learningRate)}
        </button>
        <button type="button" data-testid="nonfinite-clip" onClick={() => setEdit('max_grad_norm', '0.5')}>
          Clip gradients at max_grad_norm 0.5
        </button>
        <button type="button" onClick={() => setNotices({ nonFinite: null })}>
          Dismiss
        </button>
      </div>
    </div>
  );
}

/** A skipped step is shown where it happens (and in the `skipped` metric). */
function SkippedNotice() {
  const sk = useNotices((s) => s.skipped);
  const paused = useNotices((s) => s.nonFinite !== null);
  if (!sk || paused) return null;
  return (
    <div className="banner warn" role="status" data-testid="skipped-notice">
      Step {sk.step} was skipped: its loss or gradient was not finite (NaN or infinite), so the weights and optimizer
      state were left unchanged
      {sk.streak > 1 ? ` (${sk.streak} in a row)` : ''}. Three in a row pause training.
    </div>
  );
}

/** After a lost WebGPU device: where the run is now. */
function FallbackBanner() {
  const text = useNotices((s) => s.fallback);
  if (!text) return null;
  return (
    <div className="banner warn" role="status" data-testid="fallback-banner">
      <strong>The GPU was lost.</strong> {text}{' '}
      <button type="button" onClick={() => setNotices({ fallback: null })}>
        Dismiss
      </button>
    </div>
  );
}

export function Banners() {
  return (
    <div className="banners">
      <ErrorBanner />
      <NonFiniteBanner />
      <FallbackBanner />
      <AutosaveOffBanner />
      <SkippedNotice />
      <RestoredNotice />
      <OtherTabBanner />
      <SavedRunBanner />
      <UrlNotes />
    </div>
  );
}
