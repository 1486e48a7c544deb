import { useEffect } from 'react';
import { openStep } from '../../state/controller.ts';
import { patch, useApp } from '../../state/store.ts';
import { GroupsTable } from './GroupsTable.tsx';
import { ObjectivePanel } from './ObjectivePanel.tsx';
import { TokenView } from './TokenView.tsx';
import { shownLiveStep, shownRolloutSteps, showsRecording } from '../../derive/shown-run.ts';

/** Choose a step, see its groups, open a completion token by token, and the objective for a token. */
export default function RolloutInspector() {
  // A recording shown in the page feeds the same views from its record (src/ui/state/recording.ts).
  const recorded = useApp(showsRecording);
  const steps = useApp(shownRolloutSteps);
  const insp = useApp((s) => s.inspector);
  const runStep = useApp(shownLiveStep);
  const latest = steps[steps.length - 1];
  // Follow the latest step until the person picks one.
  useEffect(() => {
    if (latest !== undefined && (insp.step === null || (!steps.includes(insp.step) && !insp.loading)))
      void openStep(latest);
  }, [latest, insp.step, steps, insp.loading]);
  if (!steps.length && recorded)
    return (
      <p className="muted">
        This recording holds no rollouts (it was written without them): its charts and pass@k are all there is.
      </p>
    );
  if (!steps.length && runStep > 0)
    return (
      <p className="muted" data-testid="rollouts-not-kept">
        This run is at step {runStep}, but the rollouts of steps 1–{runStep} were not kept: a saved run (what a reload
        or Restore brings back) holds the weights, the optimizer’s state and the metrics, not the rollouts, which would
        take megabytes per step of this browser’s storage. The steps it trains from now on show their rollouts here.
      </p>
    );
  if (!steps.length)
    return (
      <p className="muted">
        No rollouts yet: start training (or press Step once) and the groups of each step appear here.
      </p>
    );
  const data = insp.data;
  const rec =
    data && insp.open
      ? data.records.find((r) => r.group === insp.open!.group && r.index === insp.open!.index)
      : undefined;
  return (
    <div className="inspector">
      <div className="inspector-toolbar">
        <label htmlFor="rollout-step">Step</label>
        <select
          id="rollout-step"
          value={insp.step ?? ''}
          data-testid="rollout-step"
          onChange={(e) => void openStep(Number(e.target.value))}
        >
          {steps.map((s) => (
            <option key={s} value={s}>
              step {s}
            </option>
          ))}
        </select>
        <button
          type="button"
          disabled={latest === undefined || insp.step === latest}
          onClick={() => latest !== undefined && void openStep(latest)}
        >
          Latest
        </button>
        <span className="muted small">
          {recorded
            ? `recorded rollouts of ${steps.length} step${steps.length === 1 ? '' : 's'}` +
              '; the scrubber above moves through them'
            : `the last ${steps.length} steps are kept in full (rollout_history_steps); older ones are summarised`}
        </span>
        {insp.loading && <span className="muted">loading…</span>}
      </div>
      {data && (
        <div className="inspector-body" data-testid="inspector" data-step={data.step}>
          <GroupsTable records={data.records} />
          {rec ? (
            <div className="rollout-detail">
              <TokenView r={rec} all={data.records} />
              {insp.token !== null && insp.token < rec.tokens.length ? (
                <ObjectivePanel r={rec} i={insp.token} s={data.settings} all={data.records} />
              ) : (
                <p className="muted">Select a token to see the objective with its numbers.</p>
              )}
              <button type="button" onClick={() => patch('inspector', { open: null, token: null })}>
                Close completion
              </button>
            </div>
          ) : (
            <p className="muted">Open a completion to see its tokens.</p>
          )}
        </div>
      )}
    </div>
  );
}
