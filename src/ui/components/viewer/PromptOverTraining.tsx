import { useMemo } from 'react';
import type { RunSearchHit } from '../../../runs/types.ts';
import { type Change, changesOverTraining } from '../../derive/word-diff.ts';
import { useApp } from '../../state/store.ts';
import { cancelSearch, closePrompt, runByKey, showStep } from '../../state/viewer-actions.ts';
import { cell, promptTimeline } from '../../derive/run-view-model.ts';
import type { ViewerSearch } from '../../state/viewer-state.ts';

/** A completion with what changed since the earlier one it is compared with: removed words struck, added marked. */
function Changed({ h, change }: { h: RunSearchHit; change: Change<RunSearchHit> | undefined }) {
  if (!change) return <pre>{h.completion}</pre>;
  return (
    <>
      <span className="muted small" data-testid="viewer-prompt-change" data-change={change.reward}>
        {change.reward} since step {change.earlier.step}
        {change.diff.exact ? '' : ' (too long to compare word by word: shown whole)'}
      </span>
      <pre data-testid="viewer-prompt-diff">
        {change.diff.parts.map((p, i) =>
          p.kind === 'same' ? (
            <span key={i}>{p.text}</span>
          ) : p.kind === 'added' ? (
            <ins key={i}>{p.text}</ins>
          ) : (
            <del key={i}>{p.text}</del>
          ),
        )}
      </pre>
    </>
  );
}

function Column({
  label,
  search,
  slot,
}: {
  label: string;
  search: ViewerSearch;
  slot: 'promptSearch' | 'comparePromptSearch';
}) {
  const hits = search.result?.hits;
  const steps = promptTimeline(hits ?? []);
  // Each completion against the most alike of the nearest earlier step's (word-diff.ts).
  const changes = useMemo(() => changesOverTraining(hits ?? []), [hits]);
  return (
    <div className="viewer-prompt-run" data-testid="viewer-prompt-run" data-run={label}>
      <h4>{label}</h4>
      {search.running && (
        <p role="status">
          Searching {search.progress ? `step ${search.progress.done} of ${search.progress.total}` : ''}…{' '}
          <button type="button" onClick={() => cancelSearch(slot)}>
            Cancel
          </button>
        </p>
      )}
      {search.error && <p className="bad">{search.error}</p>}
      {search.result && (
        <p className="muted small" data-testid="viewer-prompt-count" data-steps={steps.length}>
          sampled at {steps.length} step{steps.length === 1 ? '' : 's'}, {search.result.count} completions
          {search.result.cancelled ? ' (cancelled)' : ''}
        </p>
      )}
      <div className="viewer-prompt-steps">
        {steps.map((s) => (
          <div className="viewer-prompt-step" key={s.step} data-testid="viewer-prompt-step" data-step={s.step}>
            <button type="button" className="link" onClick={() => void showStep(s.step)}>
              step {s.step}
            </button>{' '}
            <span className="muted small">mean reward {cell(s.mean)}</span>
            <ol>
              {s.hits.map((h: RunSearchHit) => (
                <li key={h.row} data-reward={h.reward}>
                  <span className="muted small">
                    reward {cell(h.reward)} · A {cell(h.advantage)}
                  </span>{' '}
                  <Changed h={h} change={changes.get(`${h.step}:${h.row}`)} />
                </li>
              ))}
            </ol>
          </div>
        ))}
      </div>
    </div>
  );
}

/** Compare: one row per step, the two runs' completions of the prompt side by side. */
function SideBySide({ labels, searches }: { labels: string[]; searches: ViewerSearch[] }) {
  const timelines = searches.map((x) => new Map(promptTimeline(x.result?.hits ?? []).map((s) => [s.step, s])));
  const steps = [...new Set(timelines.flatMap((t) => [...t.keys()]))].sort((a, b) => a - b);
  if (!steps.length) return null;
  return (
    <div className="table-wrap">
      <table className="groups viewer-side-by-side" data-testid="viewer-side-by-side">
        <thead>
          <tr>
            <th scope="col">Step</th>
            {labels.map((l) => (
              <th scope="col" key={l}>
                {l}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {steps.map((step) => (
            <tr key={step} data-step={step}>
              <th scope="row">{step}</th>
              {timelines.map((t, i) => {
                const s = t.get(step);
                return (
                  <td key={labels[i]}>
                    {s ? (
                      <>
                        <span className="muted small">mean reward {cell(s.mean)}</span>
                        <ol>
                          {s.hits.map((h) => (
                            <li key={h.row}>
                              <span className="muted small">reward {cell(h.reward)}</span> <pre>{h.completion}</pre>
                            </li>
                          ))}
                        </ol>
                      </>
                    ) : (
                      <span className="muted">not sampled</span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every step where one prompt was sampled, its completions and rewards side by side (and in the compared run). */
export function PromptOverTraining() {
  const prompt = useApp((s) => s.viewer.prompt);
  const search = useApp((s) => s.viewer.promptSearch);
  const other = useApp((s) => s.viewer.comparePromptSearch);
  const open = useApp((s) => s.viewer.open);
  const compared = useApp((s) => s.viewer.compareWith);
  useApp((s) => s.viewer.runs);
  if (prompt === null) return null;
  const labels = [runByKey(open)?.name ?? '', runByKey(compared)?.name ?? ''];
  return (
    <section className="viewer-prompt" aria-label="This prompt over training" data-testid="viewer-prompt-over-training">
      <h3>
        This prompt over training{' '}
        <button type="button" className="link" onClick={closePrompt}>
          close
        </button>
      </h3>
      <pre className="viewer-prompt-text">{prompt}</pre>
      <div className="viewer-prompt-columns">
        <Column label={labels[0]!} search={search} slot="promptSearch" />
        {compared && <Column label={labels[1]!} search={other} slot="comparePromptSearch" />}
      </div>
      {compared && (
        <>
          <h4>Side by side</h4>
          <SideBySide labels={labels} searches={[search, other]} />
        </>
      )}
    </section>
  );
}
