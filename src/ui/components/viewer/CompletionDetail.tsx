import { useMemo } from 'react';
import type { RunCompletion, RunGroup, RunStep } from '../../../runs/types.ts';
import { colorFor, num, tokenLabel } from '../../derive/channels.ts';
import { useApp } from '../../state/store.ts';
import { setColour } from '../../state/viewer-actions.ts';
import { deriveCompletion, type StepScaling } from '../../derive/run-view-model.ts';
import type { TokenColour } from '../../state/viewer-state.ts';

/** The sampling log-probs where recorded, else the trained policy's. */
const logprobsOf = (c: RunCompletion) => c.tokens?.logprobs ?? c.tokens?.newLogprobs;

const specs = {
  logprob: { id: 'logp', kind: 'logp', legend: 'darker: less likely when it was sampled' },
  advantage: { id: 'advantage', kind: 'diverging', legend: 'green: reinforced (A > 0) · red: pushed down (A < 0)' },
} as const;

/** The step's scale for a colouring, so colours compare across its completions (as the token panel's). */
function stepScale(step: RunStep, colour: TokenColour): number {
  let m = 0;
  for (const g of step.groups) {
    for (const c of g.completions) {
      if (colour === 'advantage') m = Math.max(m, Math.abs(c.advantage ?? 0));
      else for (const v of logprobsOf(c) ?? []) if (Number.isFinite(v)) m = Math.max(m, -v);
    }
  }
  return m || 1;
}

/** The completion's tokens, each coloured by its log-prob or by the completion's advantage. */
function TokenHeatMap({ step, c }: { step: RunStep; c: RunCompletion }) {
  const colour = useApp((s) => s.viewer.colour);
  const scale = useMemo(() => stepScale(step, colour), [step, colour]);
  const t = c.tokens!;
  const logprobs = logprobsOf(c);
  const spec = specs[colour];
  return (
    <div className="token-view" data-testid="viewer-tokens">
      <div className="token-toolbar">
        <label htmlFor="viewer-colour">Colour by</label>
        <select
          id="viewer-colour"
          value={colour}
          onChange={(e) => setColour(e.target.value as TokenColour)}
          data-testid="viewer-colour"
        >
          <option value="logprob">Log-prob (as sampled)</option>
          <option value="advantage">Advantage</option>
        </select>
        <span className="muted small">{spec.legend}</span>
      </div>
      <div className="tokens" role="group" aria-label="Completion tokens">
        {t.text.map((text, i) => {
          // Per token where the writer logged advantages per token (NeMo-RL, prime-rl), else the completion's.
          const v = colour === 'advantage' ? (t.advantages?.[i] ?? c.advantage ?? null) : (logprobs?.[i] ?? null);
          return (
            <span
              key={i}
              className="tok"
              style={{ background: colorFor(spec, v, scale) }}
              title={[
                `token ${i}: ${JSON.stringify(text)}${t.ids ? ` (id ${t.ids[i]})` : ''}`,
                logprobs ? `log-prob ${num(logprobs[i])}` : '',
                t.newLogprobs && t.logprobs ? `trained policy ${num(t.newLogprobs[i])}` : '',
                t.advantages ? `advantage ${num(t.advantages[i])}` : '',
                t.entropy ? `entropy ${num(t.entropy[i])}` : '',
                t.ratio ? `ratio ${num(t.ratio[i], 6)}${t.clipped?.[i] ? ` (clipped ${t.clipped[i]})` : ''}` : '',
              ]
                .filter(Boolean)
                .join('\n')}
              data-testid="viewer-token"
              data-logprob={logprobs?.[i] ?? ''}
            >
              {tokenLabel(text)}
            </span>
          );
        })}
      </div>
    </div>
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
