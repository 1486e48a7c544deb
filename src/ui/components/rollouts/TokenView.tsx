import { type ReactNode, useState } from 'react';
import type { InspectRollout } from '../../../../workers/protocol.ts';
import { channels, channelSpec, num, tokenLabel } from '../../derive/channels.ts';
import { rolloutStrip, type TokenStrip } from '../../derive/token-strip.ts';
import { patch, useApp, type Channel } from '../../state/store.ts';
import { Flags } from './GroupsTable.tsx';

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

/** The test ids of a token view's parts (the e2e tests find the inspector's and the run viewer's by them). */
export interface TokenViewIds {
  view: string;
  channel: string;
  token: string;
}

/**
 * The one token view: a completion's tokens, each coloured by its value under the chosen channel (a TokenStrip,
 * src/ui/derive/token-strip.ts), with the channel picker. Where `onSelect` is given a token is a button that
 * selects it; `detail(i)` is drawn for the token hovered, focused or selected.
 */
export function TokenStripView(props: {
  strip: TokenStrip;
  ids: TokenViewIds;
  /** The <select>'s element id. */
  selectId: string;
  channel: string;
  channels: { id: string; label: string }[];
  legend: string;
  /** The channel's name in a token's aria-label. */
  channelLabel: string;
  onChannel(id: string): void;
  /** The view's own data-* attributes, by name without "data-". */
  viewData?: Record<string, string | number>;
  /** Drawn above the tokens (the completion's reward and flags). */
  meta?: ReactNode;
  /** Drawn before the tokens, in their line (the prompt, a hint). */
  lead?: ReactNode;
  selected?: number | null;
  onSelect?(i: number): void;
  detail?(i: number): ReactNode;
}) {
  const { strip, ids, selected = null, onSelect } = props;
  const [hover, setHover] = useState<number | null>(null);
  const shown = hover ?? selected;
  const dataAttrs = (d: Record<string, string | number>) =>
    Object.fromEntries(Object.entries(d).map(([k, v]) => [`data-${k}`, v]));
  return (
    <div className="token-view" data-testid={ids.view} {...dataAttrs(props.viewData ?? {})}>
      <div className="token-toolbar">
        <label htmlFor={props.selectId}>Colour by</label>
        <select
          id={props.selectId}
          value={props.channel}
          data-testid={ids.channel}
          onChange={(e) => props.onChannel(e.target.value)}
        >
          {props.channels.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
        <span className="muted small">{props.legend}</span>
      </div>
      {props.meta}
      <div className="tokens" role="group" aria-label="Completion tokens">
        {props.lead}
        {strip.text.map((text, i) => {
          const v = strip.values[i] ?? null;
          const common = {
            className: `tok${strip.masked[i] ? ' masked' : ''}${selected === i ? ' selected' : ''}`,
            style: { background: strip.colours[i] },
            title: strip.titles[i],
            'aria-label':
              `token ${i} ${JSON.stringify(text)}, ${props.channelLabel} ` +
              `${typeof v === 'number' ? num(v) : (v ?? 'none')}`,
            'data-testid': ids.token,
            'data-index': i,
            'data-channel': props.channel,
            'data-value': v === null ? '' : String(v),
            ...dataAttrs(strip.data[i] ?? {}),
            // Hover shows the token's detail, where there is one to show.
            onMouseEnter: props.detail ? () => setHover(i) : undefined,
            onMouseLeave: props.detail ? () => setHover(null) : undefined,
          };
          return onSelect ? (
            <button
              type="button"
              key={i}
              {...common}
              aria-pressed={selected === i}
              onFocus={() => setHover(i)}
              onBlur={() => setHover(null)}
              onClick={() => onSelect(i)}
            >
              {tokenLabel(text)}
            </button>
          ) : (
            <span key={i} {...common}>
              {tokenLabel(text)}
            </span>
          );
        })}
      </div>
      {props.detail && shown !== null && shown < strip.text.length && props.detail(shown)}
    </div>
  );
}

/**
 * One rollout of the page's run (live or a recording), token by token, coloured by the chosen channel; hover or
 * focus shows every number, click selects.
 */
export function TokenView({ r, all }: { r: InspectRollout; all: InspectRollout[] }) {
  const channel = useApp((s) => s.inspector.channel);
  const selected = useApp((s) => s.inspector.token);
  const spec = channelSpec(channel);
  return (
    <TokenStripView
      strip={rolloutStrip(r, all, spec)}
      ids={{ view: 'token-view', channel: 'channel', token: 'token' }}
      selectId="channel"
      channel={channel}
      channels={channels}
      legend={spec.legend}
      channelLabel={spec.label}
      onChannel={(id) => patch('inspector', { channel: id as Channel })}
      viewData={{ group: r.group, index: r.index, step: r.step }}
      meta={
        <p className="rollout-meta">
          <span className={r.correct ? 'ok' : 'bad'}>{r.correct ? '✓ correct' : '✗ wrong'}</span> · reward{' '}
          {num(r.reward, 3)} (
          {Object.entries(r.components)
            .map(([k, v]) => `${k} ${num(v, 2)}`)
            .join(', ')}
          ) · advantage {num(r.advantage, 3)} · {r.reason} <Flags r={r} />
        </p>
      }
      lead={
        <>
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
        </>
      }
      selected={selected}
      onSelect={(i) => patch('inspector', { token: i })}
      detail={(i) => <TokenDetail r={r} i={i} />}
    />
  );
}
