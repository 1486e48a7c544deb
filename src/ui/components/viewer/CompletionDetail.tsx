import { useMemo } from 'react';
import type { RunCompletion, RunGroup, RunStep } from '../../../runs/types.ts';
import { num } from '../../derive/channels.ts';
import { completionStrip, viewerChannels, viewerChannelsOf } from '../../derive/token-strip.ts';
import { useApp } from '../../state/store.ts';
import { setColour } from '../../state/viewer-actions.ts';
import { deriveCompletion, type StepScaling } from '../../derive/run-view-model.ts';
import type { TokenColour } from '../../state/viewer-state.ts';
import { TokenStripView } from '../rollouts/TokenView.tsx';

/** The completion's tokens, coloured by a recorded channel, in the rollout inspector's token view. */
function TokenHeatMap({ step, c }: { step: RunStep; c: RunCompletion }) {
  const picked = useApp((s) => s.viewer.colour);
  const offered = useMemo(() => viewerChannelsOf(step), [step]);
  // A colouring this step does not hold (picked on another run's step) shows as the log-probs.
  const colour = offered.includes(picked) ? picked : 'logprob';
  const strip = useMemo(() => completionStrip(step, c, colour), [step, c, colour]);
  const spec = viewerChannels[colour];
  return (
    <TokenStripView
      strip={strip}
      ids={{ view: 'viewer-tokens', channel: 'viewer-colour', token: 'viewer-token' }}
      selectId="viewer-colour"
      channel={colour}
      channels={offered.map((id) => ({ id, label: viewerChannels[id].label }))}
      legend={spec.legend}
      channelLabel={spec.label}
      onChannel={(id) => setColour(id as TokenColour)}
    />
  );
}

/** One completion: how its advantage comes from its group's rewards, and its tokens where recorded. */
export function CompletionDetail({
  step,
  group,
  row,
  scaling,
}: {
  step: RunStep;
  group: RunGroup;
  row: number;
  scaling: StepScaling;
}) {
  const position = group.completions.findIndex((c) => c.row === row);
  const c = group.completions[position];
  if (!c) return null;
  const d = deriveCompletion(step, group, position, scaling.scaling);
  const extra = Object.entries(c.extra);
  return (
    <div className="viewer-detail" data-testid="viewer-detail">
      <div className="derivation" data-testid="viewer-derivation">
        <p>
          {`rewards of the group: [${d.rewards.map((r) => num(r, 3)).join(', ')}] · mean ${num(d.mean)}`}
          {` · std ${num(d.std)} (sample std, n−1)`}
        </p>
        <p>
          <code>{d.formula}</code>
        </p>
        <p>
          <code data-testid="viewer-derived">{d.substituted}</code>{' '}
          {c.advantage === undefined ? (
            <span className="muted">(the run logged no advantage to check it against)</span>
          ) : d.matches ? (
            <span className="ok">= the logged {num(c.advantage)}</span>
          ) : (
            <span className="bad">≠ the logged {num(c.advantage)}</span>
          )}
        </p>
      </div>
      {extra.length > 0 && (
        <p className="muted small">
          {extra.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ')}
        </p>
      )}
      {c.tokens ? (
        <TokenHeatMap step={step} c={c} />
      ) : (
        <p className="muted small">No tokens were recorded for this run: the length is in {c.lengthUnit}.</p>
      )}
    </div>
  );
}
