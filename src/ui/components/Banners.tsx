import { discardSaved, dismissError, reset, restartFromAutosave, restoreOffered, updateSetup } from '../controller.ts';
import { setState, useApp } from '../store.ts';

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
          <button type="button" onClick={() => (updateSetup((s) => ({ ...s, checkpoint: null, model: null })), dismissError())}>
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

function SavedRunBanner() {
  const saved = useApp((s) => s.savedRun);
  if (!saved) return null;
  return (
    <div className="banner info" role="status" data-testid="saved-run-banner">
      This link opens a different experiment than the run saved in this browser (step {saved.step}, saved {new Date(saved.savedAt).toLocaleString()}).{' '}
      <button type="button" onClick={() => void restoreOffered()}>
        Restore the saved run
      </button>{' '}
      <button type="button" onClick={() => void discardSaved()}>
        Forget it
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

export function Banners() {
  return (
    <div className="banners">
      <ErrorBanner />
      <SavedRunBanner />
      <UrlNotes />
    </div>
  );
}
