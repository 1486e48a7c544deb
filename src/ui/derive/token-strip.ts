/**
 * What the one token view (src/ui/components/rollouts/TokenView.tsx TokenStripView) draws of a completion:
 * each token's text, its value under the channel shown and that value's colour, its hover text and its data-*
 * attributes. Two projections feed it: a live or recorded rollout of the page (InspectRollout, the rollout
 * inspector) and a completion the run viewer read (RunCompletion.tokens, src/runs/types.ts), so the token
 * channels of every run are coloured by the same rules (channels.ts colorFor) and drawn by one component.
 */
import type { InspectRollout } from '../../../workers/protocol.ts';
import type { RunCompletion, RunStep } from '../../runs/types.ts';
import type { TokenColour } from '../state/viewer-state.ts';
import { type ChannelSpec, channelScale, colorFor, num } from './channels.ts';

export interface TokenStrip {
  /** Each token's text, as the model's tokenizer split it. */
  text: string[];
  /** Each token's value under the channel shown (null: not recorded for it). */
  values: (number | string | null)[];
  /** Each token's background: its value's colour on the step's scale. */
  colours: string[];
  /** Each token's hover text: every number recorded for it, its text first. */
  titles: string[];
  /** Tokens outside the loss (drawn pale); all false where the run does not say. */
  masked: boolean[];
  /** Each token's data-* attributes besides data-index, data-channel and data-value, by name without "data-". */
  data: Record<string, string>[];
}

function rolloutTitle(r: InspectRollout, i: number): string {
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

/** A rollout of the page's run under `spec`, on the scale of its step's rollouts (`all`). */
export function rolloutStrip(r: InspectRollout, all: InspectRollout[], spec: ChannelSpec): TokenStrip {
  const scale = channelScale(spec, all);
  const values = r.tokens.map((_, i) => spec.value(r, i));
  return {
    text: r.tokens.map((_, i) => r.tokenText[i] ?? ''),
    values,
    colours: values.map((v) => colorFor(spec, v, scale)),
    titles: r.tokens.map((_, i) => rolloutTitle(r, i)),
    masked: r.tokens.map((_, i) => !r.trained[i]),
    data: r.tokens.map((_, i) => ({
      advantage: String(r.advantage),
      logp: String(r.newLogp[i]),
      'old-logp': String(r.oldLogp[i]),
      ratio: String(r.ratio[i]),
      clipped: r.clipped[i] ?? '',
      entropy: String(r.entropy[i]),
      kl: String(r.kl[i]),
      loss: String(r.lossContribution[i]),
    })),
  };
}

/** The run viewer's colourings of a completion's tokens (the store's `viewer.colour`). */
export type ViewerChannel = TokenColour;

/** Each viewer colouring as a channel of the token view (the inspector's rules, channels.ts). */
export const viewerChannels: Record<ViewerChannel, Pick<ChannelSpec, 'id' | 'kind' | 'label' | 'legend'>> = {
  logprob: {
    id: 'logp',
    kind: 'logp',
    label: 'Log-prob (as sampled)',
    legend: 'darker: less likely when it was sampled',
  },
  advantage: {
    id: 'advantage',
    kind: 'diverging',
    label: 'Advantage',
    legend: 'green: reinforced (A > 0) · red: pushed down (A < 0)',
  },
  entropy: {
    id: 'entropy',
    kind: 'sequential',
    label: 'Entropy',
    legend: 'darker: higher entropy (the policy was unsure)',
  },
  ratio: { id: 'ratio', kind: 'ratio', label: 'Ratio π/π_old', legend: 'orange: ratio > 1 · blue: ratio < 1' },
  clipped: {
    id: 'clipped',
    kind: 'category',
    label: 'Clipped (low/high)',
    legend: 'blue: clipped at 1 − ε (A < 0) · orange: clipped at 1 + ε_high (A > 0)',
  },
};

/** The sampling log-probs where recorded, else the trained policy's. */
const logprobsOf = (c: RunCompletion) => c.tokens?.logprobs ?? c.tokens?.newLogprobs;

/** Token i's value of completion `c` under `channel`. */
function viewerValue(c: RunCompletion, channel: ViewerChannel, i: number): number | string | null {
  const t = c.tokens;
  if (!t) return null;
  switch (channel) {
    case 'logprob':
      return logprobsOf(c)?.[i] ?? null;
    case 'advantage':
      // Per token where the writer logged advantages per token (NeMo-RL, prime-rl), else the completion's.
      return t.advantages?.[i] ?? c.advantage ?? null;
    case 'entropy':
      return t.entropy?.[i] ?? null;
    case 'ratio':
      return t.ratio?.[i] ?? null;
    case 'clipped':
      return t.clipped?.[i] ?? null;
  }
}

/** The colourings the step's completions hold: log-prob and advantage always, the others where recorded. */
export function viewerChannelsOf(step: RunStep): ViewerChannel[] {
  const rows = step.groups.flatMap((g) => g.completions);
  const has = (k: 'entropy' | 'ratio' | 'clipped') => rows.some((c) => c.tokens?.[k]?.length);
  return (['logprob', 'advantage', 'entropy', 'ratio', 'clipped'] as const).filter(
    (ch) => ch === 'logprob' || ch === 'advantage' || has(ch),
  );
}

/** The step's scale for a colouring (its largest magnitude), so colours compare across its completions. */
function stepScale(step: RunStep, channel: ViewerChannel): number {
  const spec = viewerChannels[channel];
  let m = 0;
  for (const g of step.groups)
    for (const c of g.completions)
      for (let i = 0; i < (c.tokens?.text.length ?? 0); i++) {
        const v = viewerValue(c, channel, i);
        if (typeof v !== 'number' || !Number.isFinite(v)) continue;
        m = Math.max(m, spec.kind === 'ratio' ? Math.abs(Math.log(v)) : spec.kind === 'logp' ? -v : Math.abs(v));
      }
  const floor = spec.kind === 'ratio' ? Math.log(1.02) : 0;
  return Math.max(m, floor) || 1;
}

function completionTitle(c: RunCompletion, i: number): string {
  const t = c.tokens!;
  const logprobs = logprobsOf(c);
  return [
    `token ${i}: ${JSON.stringify(t.text[i])}${t.ids ? ` (id ${t.ids[i]})` : ''}`,
    logprobs ? `log-prob ${num(logprobs[i])}` : '',
    t.newLogprobs && t.logprobs ? `trained policy ${num(t.newLogprobs[i])}` : '',
    t.advantages ? `advantage ${num(t.advantages[i])}` : '',
    t.entropy ? `entropy ${num(t.entropy[i])}` : '',
    t.ratio ? `ratio ${num(t.ratio[i], 6)}${t.clipped?.[i] ? ` (clipped ${t.clipped[i]})` : ''}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** A completion the run viewer read (its tokens recorded) under `channel`, on its step's scale. */
export function completionStrip(step: RunStep, c: RunCompletion, channel: ViewerChannel): TokenStrip {
  const text = c.tokens?.text ?? [];
  const spec = viewerChannels[channel];
  const scale = stepScale(step, channel);
  const values = text.map((_, i) => viewerValue(c, channel, i));
  const logprobs = logprobsOf(c);
  return {
    text,
    values,
    colours: values.map((v) => colorFor(spec, v, scale)),
    titles: text.map((_, i) => completionTitle(c, i)),
    masked: text.map(() => false),
    data: text.map((_, i) => ({ logprob: String(logprobs?.[i] ?? '') })),
  };
}
