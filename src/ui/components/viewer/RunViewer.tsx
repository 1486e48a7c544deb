import { useEffect, useState } from 'react';
import { useApp } from '../../state/store.ts';
import { compareViewedRun } from '../../state/compare-viewed.ts';
import { dismissError, pollServed, runByKey } from '../../state/viewer-actions.ts';
import { viewerLink } from '../../state/viewer-url.ts';
import { AlignedRuns } from './AlignedRuns.tsx';
import { FindingsPanel } from './FindingsPanel.tsx';
import { OpenRunFolder } from './OpenRunFolder.tsx';
import { ProblemList } from './ProblemList.tsx';
import { PromptOverTraining } from './PromptOverTraining.tsx';
import { RunCurves } from './RunCurves.tsx';
import { RunList } from './RunList.tsx';
import { SearchPanel } from './SearchPanel.tsx';
import { StepView } from './StepView.tsx';

/** How often a served run is listed again while the viewer is on screen (a live run's new steps). */
const POLL_MS = 3000;

/** The link to the open served run, its step and prompt: shown, and copied by the button. */
function RunLink() {
  const v = useApp((s) => s.viewer);
  const [copied, setCopied] = useState(false);
  const link = viewerLink(v);
  if (!link) return null;
  return (
    <p className="viewer-link">
      Link to this run, step and prompt:{' '}
      <a href={link} data-testid="viewer-link">
        {link}
      </a>{' '}
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(link).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy link'}
      </button>
    </p>
  );
}

function OpenRunHeader() {
  const open = useApp((s) => s.viewer.open);
  useApp((s) => s.viewer.runs);
  const run = runByKey(open);
  if (!run) return null;
  return (
    <header className="viewer-open" data-testid="viewer-open" data-name={run.name} data-format={run.format}>
      <h3>
        {run.name} <span className="muted small">({run.format})</span>
      </h3>
      {run.loading && <p role="status">Opening {run.name}…</p>}
      {run.error && (
        <p className="bad" role="alert">
          {run.error}
        </p>
      )}
      {run.index?.notes.map((n) => (
        <p className="muted small" key={n}>
          {n}
        </p>
      ))}
      {run.index && <ProblemList problems={run.index.problems} what="while opening" />}
      <RunLink />
      {run.index && run.index.metrics.length > 0 && (
        <button
          type="button"
          data-testid="viewer-compare-live"
          title="Its curves beside live runs trained in this tab, drawn by the same charts"
          onClick={() => compareViewedRun(run.key)}
        >
          Compare with live runs
        </button>
      )}
    </header>
  );
}

/** The run viewer: runs made elsewhere (TRL, veRL, JSONL) or records, from a folder or from `rlvr view`. */
export default function RunViewer() {
  const loading = useApp((s) => s.viewer.loading);
  const error = useApp((s) => s.viewer.error);
  const served = useApp((s) => s.viewer.served);
  const hasRuns = useApp((s) => s.viewer.runs.length > 0);
  const problems = useApp((s) => s.viewer.problems);
  useEffect(() => {
    // While on screen: new runs and the steps a live run adds appear without a reload.
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') void pollServed();
    }, POLL_MS);
    return () => clearInterval(id);
  }, []);
  return (
    <div className="run-viewer" data-testid="run-viewer" data-served={served ? 'true' : 'false'}>
      <OpenRunFolder />
      {loading && <p role="status">{loading}</p>}
      {error && (
        <p className="bad" role="alert" data-testid="viewer-error">
          {error}{' '}
          <button type="button" className="link" onClick={dismissError}>
            dismiss
          </button>
        </p>
      )}
      {served && !hasRuns && (
        <p className="muted" role="status">
          rlvr view finds no run in the folders it serves yet; this list looks again every few seconds.
        </p>
      )}
      {!hasRuns && !loading && !served && (
        <p className="muted">
          Open the folder a training run wrote, and see its steps as groups: each prompt's completions sorted by reward,
          every reward function, the advantage and where it comes from, the tokens where they were recorded, one prompt
          followed over training, a search over every step, and two runs side by side. `rlvr view PATH` serves folders
          on a GPU box the same way.
        </p>
      )}
      <ProblemList problems={problems} what="in the folder" />
      <RunList />
      <OpenRunHeader />
      <RunCurves />
      <FindingsPanel />
      <StepView />
      <PromptOverTraining />
      <AlignedRuns />
      <SearchPanel />
    </div>
  );
}
