import { useApp } from '../../state/store.ts';
import { compareWith, showRun } from '../../state/viewer-actions.ts';
import { closeViewerRun } from '../../state/viewer-close.ts';
import type { ViewerRun } from '../../state/viewer-state.ts';
import { runListStatus } from '../../derive/step-notes.ts';

const status = (r: ViewerRun) =>
  runListStatus({
    error: r.error,
    loading: r.loading,
    steps: r.index?.steps.length ?? r.listedSteps,
    problems: r.index?.problems,
    listedErrors: r.listedErrors,
  });

/** The runs found (in the folders opened and on the server), the open one, and the one compared with it. */
export function RunList() {
  const runs = useApp((s) => s.viewer.runs);
  const open = useApp((s) => s.viewer.open);
  const other = useApp((s) => s.viewer.compareWith);
  if (!runs.length) return null;
  return (
    <div className="viewer-runs">
      <table className="viewer-run-list" data-testid="viewer-runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Format</th>
            <th scope="col">Steps</th>
            <th scope="col">Compare</th>
            <th scope="col">
              <span className="visually-hidden">Close</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr
              key={r.key}
              className={r.key === open ? 'selected' : ''}
              data-testid="viewer-run"
              data-name={r.name}
              data-format={r.format}
            >
              <td>
                <button
                  type="button"
                  className="link"
                  aria-pressed={r.key === open}
                  onClick={() => void showRun(r.key)}
                  data-testid="viewer-run-open"
                >
                  {r.name}
                </button>
              </td>
              <td>{r.format}</td>
              <td className={status(r).bad ? 'bad' : ''} data-testid="viewer-run-status">
                {status(r).text}
              </td>
              <td>
                {r.key !== open && (
                  <label>
                    <input
                      type="checkbox"
                      checked={other === r.key}
                      disabled={!open}
                      onChange={(e) => void compareWith(e.target.checked ? r.key : null)}
                      data-testid="viewer-compare"
                    />{' '}
                    compare with the open run
                  </label>
                )}
              </td>
              <td>
                <button
                  type="button"
                  className="link"
                  aria-label={`Close ${r.name}`}
                  title="Close this run and free what reading it holds"
                  onClick={() => closeViewerRun(r.key)}
                  data-testid="viewer-run-close"
                >
                  Close
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
