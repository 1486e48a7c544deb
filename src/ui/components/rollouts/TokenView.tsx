import { useState } from 'react';
import type { InspectRollout } from '../../../../workers/protocol.ts';
import { channels, channelScale, channelSpec, colorFor, num, tokenLabel } from '../../derive/channels.ts';
import { patch, useApp, type Channel } from '../../state/store.ts';
import { Flags } from './GroupsTable.tsx';

function tokenTitle(r: InspectRollout, i: number): string {
  return [
    `token ${i}: ${JSON.stringify(r.tokenText[i])}`,
    `advantage ${r.advantage}`,
    `logp new ${r.newLogp[i]} · old ${r.oldLogp[i]}${r.refLogp ? ` · ref ${r.refLogp[i]}` : ''}`,
    `ratio ${r.ratio[i]}${r.clipped[i] ? ` (clipped ${r.clipped[i]})` : ''}`,
    `entropy ${r.entropy[i]} · KL ${r.kl[i]}`,
    `weight ${r.weight[i]} · token loss ${r.tokenLoss[i]} · contribution ${r.lossContribution[i]}`,
    r.trained[i] ? '' : 'masked: not in the loss',
  ]
    .filter(Boolean)
    .join('\n');
}

function TokenDetail({ r, i }: { r: InspectRollout; i: number }) {
  return (
    <dl className="token-detail" data-testid="token-detail">
      <dt>token</dt>
      <dd>
        <code>{JSON.stringify(r.tokenText[i])}</code> (#{i})
      </dd>
      <dt>log-prob</dt>
      <dd>
        new {num(r.newLogp[i])} · old {num(r.oldLogp[i])}
        {r.refLogp ? ` · ref ${num(r.refLogp[i])}` : ''}
      </dd>
      <dt>ratio</dt>
      <dd>
        {num(r.ratio[i], 6)}
        {r.clipped[i] ? ` · clipped ${r.clipped[i]}` : ''}
      </dd>
      <dt>entropy · KL</dt>
      <dd>
        {num(r.entropy[i])} · {num(r.kl[i], 6)}
      </dd>
      <dt>advantage</dt>
      <dd>{num(r.advantage)}</dd>
      <dt>loss</dt>
      <dd>
        {num(r.weight[i], 6)} × {num(r.tokenLoss[i], 6)} = {num(r.lossContribution[i], 6)}
        {!r.trained[i] && ' (masked)'}
      </dd>
    </dl>
  );
}

/** One completion, token by token, coloured by the chosen channel; hover or focus shows every number, click selects. */
export function TokenView({ r, all }: { r: InspectRollout; all: InspectRollout[] }) {
  const channel = useApp((s) => s.inspector.channel);
  const selected = useApp((s) => s.inspector.token);
  const [hover, setHover] = useState<number | null>(null);
  const spec = channelSpec(channel);
  const scale = channelScale(spec, all);
  const shown = hover ?? selected;
  return (
    <div className="token-view" data-testid="token-view" data-group={r.group} data-index={r.index} data-step={r.step}>
      <div className="token-toolbar">
        <label htmlFor="channel">Colour by</label>
        <select
          id="channel"
          value={channel}
          data-testid="channel"
          onChange={(e) => patch('inspector', { channel: e.target.value as Channel })}
        >
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
        <span className="muted small">{spec.legend}</span>
      </div>
      <p className="rollout-meta">
        <span className={r.correct ? 'ok' : 'bad'}>{r.correct ? '✓ correct' : '✗ wrong'}</span> · reward{' '}
        {num(r.reward, 3)} (
        {Object.entries(r.components)
          .map(([k, v]) => `${k} ${num(v, 2)}`)
          .join(', ')}
        ) · advantage {num(r.advantage, 3)} · {r.reason} <Flags r={r} />
      </p>
      <div className="tokens" role="group" aria-label="Completion tokens">
        <span className="prompt-text">{r.prompt}</span>
        {r.hint && (
          <span
            className="hint-text"
            title="Hint: forced prefix of the reference solution (not sampled, not trained)"
            data-testid="hint-text"
          >
            {r.hint}
          </span>
        )}
        {r.tokens.map((_, i) => {
          const v = spec.value(r, i);
          return (
            <button
              type="button"
              key={i}
              className={`tok${r.trained[i] ? '' : ' masked'}${selected === i ? ' selected' : ''}`}
              style={{ background: colorFor(spec, v, scale) }}
              title={tokenTitle(r, i)}
              aria-label={
                `token ${i} ${JSON.stringify(r.tokenText[i])}, ${spec.label} ` +
                `${typeof v === 'number' ? num(v) : (v ?? 'none')}`
              }
              aria-pressed={selected === i}
              data-testid="token"
              data-index={i}
              data-channel={channel}
              data-value={v === null ? '' : String(v)}
              data-advantage={String(r.advantage)}
              data-logp={String(r.newLogp[i])}
              data-old-logp={String(r.oldLogp[i])}
              data-ratio={String(r.ratio[i])}
              data-clipped={r.clipped[i] ?? ''}
              data-entropy={String(r.entropy[i])}
              data-kl={String(r.kl[i])}
              data-loss={String(r.lossContribution[i])}
              onMouseEnter={() => setHover(i)}
              onMouseLeave={() => setHover(null)}
              onFocus={() => setHover(i)}
              onBlur={() => setHover(null)}
              onClick={() => patch('inspector', { token: i })}
            >
              {tokenLabel(r.tokenText[i] ?? '')}
            </button>
          );
        })}
      </div>
      {shown !== null && shown < r.tokens.length && <TokenDetail r={r} i={shown} />}
    </div>
  );
}
