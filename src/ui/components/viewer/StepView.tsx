import { memo, useEffect, useMemo, useRef } from 'react';
import type { RunGroup, RunStep } from '../../../runs/types.ts';
import { setState, useApp } from '../../state/store.ts';
import { followPrompt, runByKey, selectCompletion, showStep, stepBy } from '../../state/viewer-actions.ts';
import { cell, groupStats, inferScaling, sortByReward, type StepScaling } from '../../derive/run-view-model.ts';
import { stepScalingNote } from '../../derive/step-notes.ts';
import { CompletionDetail } from './CompletionDetail.tsx';
import { ProblemList } from './ProblemList.tsx';

/** The step scrubber: a range over the steps that have rollouts; arrow keys and the buttons move one step. */
function Scrubber({ steps }: { steps: number[] }) {
  const step = useApp((s) => s.viewer.step);
  const i = Math.max(0, steps.indexOf(step ?? NaN));
  return (
    <div className="viewer-scrubber">
      <button type="button" onClick={() => stepBy(-1)} disabled={i === 0} aria-label="Previous step">
        ◀
      </button>
      <input
        type="range"
        min={0}
        max={Math.max(0, steps.length - 1)}
        value={i}
        aria-label="Step"
        aria-valuetext={`step ${steps[i] ?? ''}`}
        data-testid="viewer-scrubber"
        onChange={(e) => void showStep(steps[Number(e.target.value)]!)}
      />
      <button type="button" onClick={() => stepBy(1)} disabled={i >= steps.length - 1} aria-label="Next step">
        ▶
      </button>
      <span data-testid="viewer-step">
        step {step ?? '—'} ({i + 1} of {steps.length})
      </span>
    </div>
  );
}

function GroupRows({ step, g, names, scaling }: { step: RunStep; g: RunGroup; names: string[]; scaling: StepScaling }) {
  const selected = useApp((s) => s.viewer.selected);
  const marked = useApp((s) => (s.viewer.marked?.step === step.step ? s.viewer.marked.rows : null));
  const stats = groupStats(g.completions.map((c) => c.reward));
  const sorted = sortByReward(g.completions);
  return (
    <tbody className="viewer-group" data-testid="viewer-group" data-group={g.index} data-mean={g.mean} data-std={g.std}>
      <tr className="group-start">
        <th scope="rowgroup" colSpan={names.length + 6} className="prompt-cell">
          <span className="muted small">group {g.index}</span> ·{' '}
          <span data-testid="viewer-group-stats">
            mean {cell(stats.mean)} · std {cell(stats.std)} (sample std, n−1 = {stats.n - 1})
          </span>
          {stats.zeroVariance && (
            <span className="flag zero" title="Every completion got the same reward: its advantages are all 0">
              zero variance
            </span>
          )}{' '}
          <button
            type="button"
            className="link"
            onClick={() => void followPrompt(g.prompt)}
            data-testid="viewer-follow"
          >
            This prompt over training
          </button>
          <pre data-testid="viewer-prompt">{g.prompt}</pre>
        </th>
      </tr>
      {sorted.map((c, rank) => {
        const isSel = selected?.group === g.index && selected.row === c.row;
        const isMarked = !!marked?.includes(c.row);
        return (
          <tr
            key={c.row}
            className={[isSel ? 'selected' : '', isMarked ? 'marked' : ''].join(' ').trim()}
            data-marked={isMarked ? 'true' : undefined}
            data-testid="viewer-completion"
            data-step={step.step}
            data-row={c.row}
            data-reward={c.reward}
            data-advantage={c.advantage ?? ''}
            onClick={() => selectCompletion(g.index, c.row)}
          >
            <td>{rank + 1}</td>
            <td className="viewer-completion-text">
              <button type="button" className="link" onClick={() => selectCompletion(g.index, c.row)}>
                <pre data-testid="viewer-completion-text">{c.completion}</pre>
              </button>
            </td>
            {names.map((n) => (
              <td key={n} data-reward-name={n} data-value={c.rewards[n] ?? ''}>
                {cell(c.rewards[n])}
              </td>
            ))}
            <td data-testid="viewer-total">{cell(c.reward)}</td>
            <td data-testid="viewer-advantage">{c.advantage === undefined ? 'not logged' : cell(c.advantage)}</td>
            <td>
              {c.length} {c.lengthUnit}
            </td>
            <td>
              {c.truncated === undefined ? '—' : c.truncated ? <span className="flag trunc">truncated</span> : 'no'}
            </td>
          </tr>
        );
      })}
      {selected?.group === g.index && (
        <tr>
          <td colSpan={names.length + 6}>
            <CompletionDetail step={step} group={g} row={selected.row} scaling={scaling} />
          </td>
        </tr>
      )}
    </tbody>
  );
}

/**
 * The step's groups: each prompt with its completions sorted by reward, every reward function and the advantage.
 * Memoized: a step switch first marks the step loading, and the step still shown is not drawn again then.
 */
const Groups = memo(function Groups({ step, names }: { step: RunStep; names: string[] }) {
  const scaling = useMemo(() => inferScaling(step), [step]);
  return (
    <div className="table-wrap">
      <p className="muted small" data-testid="viewer-scaling">
        {stepScalingNote(step, scaling)}
      </p>
      <table className="groups viewer-groups" data-testid="viewer-groups">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Completion</th>
            {names.map((n) => (
              <th scope="col" key={n}>
                {n}
              </th>
            ))}
            <th scope="col">Reward</th>
            <th scope="col">Advantage</th>
            <th scope="col">Length</th>
            <th scope="col">Truncated</th>
          </tr>
        </thead>
        {step.groups.map((g) => (
          <GroupRows key={g.index} step={step} g={g} names={names} scaling={scaling} />
        ))}
      </table>
    </div>
  );
});

export function StepView() {
  const open = useApp((s) => s.viewer.open);
  const data = useApp((s) => s.viewer.stepData);
  const loading = useApp((s) => s.viewer.stepLoading);
  const error = useApp((s) => s.viewer.stepError);
  const scrollTo = useApp((s) => s.viewer.scrollToStep);
  const section = useRef<HTMLElement>(null);
  // A link to a step (`?view=NAME&step=S`) lands on that step, not on the curves above it: once.
  useEffect(() => {
    if (!scrollTo || !data || !section.current) return;
    section.current.scrollIntoView({ block: 'start' });
    setState((s) => ({ viewer: { ...s.viewer, scrollToStep: false } }));
  }, [scrollTo, data]);
  useApp((s) => s.viewer.runs);
  const run = runByKey(open);
  if (!run?.index) return null;
  if (!run.index.steps.length) return <p className="muted">This run has no step with rollouts.</p>;
  return (
    <section className="viewer-step" aria-label="Step" ref={section}>
      <Scrubber steps={run.index.steps} />
      {error && (
        <p className="bad" role="alert">
          {error}
        </p>
      )}
      {loading && !data && (
        <p className="muted" role="status">
          Reading the step…
        </p>
      )}
      {data && (
        <>
          <ProblemList problems={data.problems} what={`in step ${data.step}`} />
          <Groups step={data} names={run.index.rewardNames} />
        </>
      )}
    </section>
  );
}
