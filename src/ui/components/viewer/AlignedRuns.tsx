import { useEffect } from 'react';
import type { AlignedSide } from '../../../runs/align.ts';
import { cell } from '../../derive/run-view-model.ts';
import { useApp } from '../../state/store.ts';
import { runByKey } from '../../state/viewer-actions.ts';
import { closeAligned, showAligned } from '../../state/viewer-align.ts';

function Side({ side, testId }: { side: AlignedSide; testId: string }) {
  return (
    <td data-testid={testId}>
      <span className="muted small">mean reward {cell(side.mean)}</span>
      <ol>
        {side.completions.map((c) => (
          <li key={c.row} data-reward={c.reward}>
            <span className="muted small">
              reward {cell(c.reward)}
              {c.advantage !== undefined ? ` · A ${cell(c.advantage)}` : ''}
            </span>
            <pre>{c.completion}</pre>
          </li>
        ))}
      </ol>
    </td>
  );
}

/**
 * Two runs side by side at the completion level, on the prompts they share: the open run's step beside
 * the nearest step of the run compared with it (or of the live run, at its inspected step). Entered from
 * the compare control (`compareWith`); follows the open step.
 */
export function AlignedRuns() {
  const aligned = useApp((s) => s.viewer.aligned);
  const compared = useApp((s) => s.viewer.compareWith);
  const open = useApp((s) => s.viewer.open);
  const stepData = useApp((s) => s.viewer.stepData);
  const live = useApp((s) => s.inspector.data?.step ?? null);
  useApp((s) => s.viewer.runs);
  const withWhat = aligned?.with ?? null;
  // The view follows the open step and the run compared with.
  useEffect(() => {
    if (withWhat) void showAligned(withWhat);
  }, [withWhat, stepData, compared]);
  if (!open || (!compared && live === null)) return null;
  const here = runByKey(open)?.name ?? '';
  const data = aligned?.data;
  return (
    <section className="viewer-aligned" aria-label="Aligned on shared prompts" data-testid="viewer-aligned">
      <h3>Aligned on shared prompts</h3>
      <p>
        {compared && (
          <button type="button" onClick={() => void showAligned('compared')} data-testid="viewer-align-compared">
            Align with {runByKey(compared)?.name}
          </button>
        )}{' '}
        {live !== null && (
          <button type="button" onClick={() => void showAligned('live')} data-testid="viewer-align-live">
            Align with the live run (its step {live})
          </button>
        )}{' '}
        {aligned && (
          <button type="button" className="link" onClick={closeAligned}>
            close
          </button>
        )}
      </p>
      {aligned?.loading && <p role="status">Reading {aligned.otherName}…</p>}
      {aligned?.error && (
        <p className="bad" role="alert">
          {aligned.error}
        </p>
      )}
      {data && (
        <>
          <p data-testid="viewer-aligned-summary" data-shared={data.shared.length} data-step-b={data.stepB}>
            Step {data.stepA} of {here} beside step {data.stepB} of {aligned.otherName}
            {data.stepA === data.stepB ? '' : ' (the nearest it has)'}: {data.shared.length} prompt
            {data.shared.length === 1 ? '' : 's'} both sampled; {data.onlyA} only in {here}, {data.onlyB} only in{' '}
            {aligned.otherName}.
          </p>
          {data.shared.length > 0 && (
            <div className="table-wrap">
              <table className="groups viewer-side-by-side" data-testid="viewer-aligned-table">
                <thead>
                  <tr>
                    <th scope="col">Prompt</th>
                    <th scope="col">{here}</th>
                    <th scope="col">{aligned.otherName}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.shared.map((p) => (
                    <tr key={p.prompt} data-testid="viewer-aligned-prompt">
                      <th scope="row">
                        <pre className="viewer-hit-text">{p.prompt}</pre>
                      </th>
                      <Side side={p.a} testId="viewer-aligned-a" />
                      <Side side={p.b} testId="viewer-aligned-b" />
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
