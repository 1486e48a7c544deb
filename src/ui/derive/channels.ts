/**
 * Token colouring for the rollout inspector: each channel reads one of the trainer's per-token
 * numbers from the rollout record (never recomputes it) and maps it to a colour.
 */
import type { InspectRollout } from '../../../workers/protocol.ts';
import type { Channel } from '../state/store.ts';

export interface ChannelSpec {
  id: Channel;
  label: string;
  /** The record's own value for token i (a number, or 'low' | 'high' | null for clipping). */
  value(r: InspectRollout, i: number): number | string | null;
  kind: 'diverging' | 'sequential' | 'ratio' | 'category' | 'logp';
  legend: string;
}

export const channels: ChannelSpec[] = [
  {
    id: 'advantage',
    label: 'Advantage',
    value: (r) => r.advantage,
    kind: 'diverging',
    legend: 'green: reinforced (A > 0) · red: pushed down (A < 0)',
  },
  {
    id: 'logp',
    label: 'Log-prob (current policy)',
    value: (r, i) => r.newLogp[i] ?? null,
    kind: 'logp',
    legend: 'darker: less likely under the current policy',
  },
  {
    id: 'ratio',
    label: 'Ratio π/π_old',
    value: (r, i) => r.ratio[i] ?? null,
    kind: 'ratio',
    legend: 'orange: ratio > 1 · blue: ratio < 1',
  },
  {
    id: 'clipped',
    label: 'Clipped (low/high)',
    value: (r, i) => r.clipped[i] ?? null,
    kind: 'category',
    legend: 'blue: clipped at 1 − ε (A < 0) · orange: clipped at 1 + ε_high (A > 0)',
  },
  {
    id: 'entropy',
    label: 'Entropy',
    value: (r, i) => r.entropy[i] ?? null,
    kind: 'sequential',
    legend: 'darker: higher entropy (the policy was unsure)',
  },
  {
    id: 'kl',
    label: 'KL to reference',
    value: (r, i) => r.kl[i] ?? null,
    kind: 'sequential',
    legend: 'darker: further from the reference policy',
  },
  {
    id: 'loss',
    label: 'Loss contribution',
    value: (r, i) => r.lossContribution[i] ?? null,
    kind: 'diverging',
    legend: 'green: lowers the loss when made likelier · red: the opposite',
  },
];

export function channelSpec(id: Channel): ChannelSpec {
  return channels.find((c) => c.id === id)!;
}

/** Per-step scale of a channel (max magnitude over every token of the step), so colours compare across completions. */
export function channelScale(spec: ChannelSpec, records: InspectRollout[]): number {
  let m = 0;
  for (const r of records) {
    for (let i = 0; i < r.tokens.length; i++) {
      const v = spec.value(r, i);
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const x = spec.kind === 'ratio' ? Math.abs(Math.log(v)) : spec.kind === 'logp' ? -v : Math.abs(v);
      if (x > m) m = x;
    }
  }
  // Floors keep float noise from looking like signal: with μ = 1 every ratio is 1 up to rounding, and
  // with β = 0 the KL is ~0; a ratio within 2% of 1 or a KL below 0.01 stays pale.
  const floor = spec.kind === 'ratio' ? Math.log(1.02) : spec.id === 'kl' ? 0.01 : 0;
  return Math.max(m, floor) || 1;
}

/** Background colour for a value (transparent when there is nothing to show). */
export function colorFor(spec: Pick<ChannelSpec, 'id' | 'kind'>, v: number | string | null, scale: number): string {
  if (v === null || v === undefined) return 'transparent';
  // The hues are CSS variables (--tok-*, styles.css), one lightness per theme, chosen so the theme's
  // text keeps at least 4.5:1 contrast on a chip at any strength (a light chip under dark text, a dark one under light
  // text).
  const c = (name: string, alpha: string) => `hsl(var(--tok-${name}) / ${alpha})`;
  if (spec.kind === 'category') return v === 'low' ? c('down', '0.75') : v === 'high' ? c('up', '0.8') : 'transparent';
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'transparent';
  const a = (t: number) => (0.08 + 0.72 * Math.min(1, Math.abs(t))).toFixed(3);
  switch (spec.kind) {
    case 'diverging': {
      const t = v / scale;
      return t >= 0 ? c('pos', a(t)) : c('neg', a(t));
    }
    case 'ratio': {
      const t = Math.log(v) / scale;
      return t >= 0 ? c('up', a(t)) : c('down', a(t));
    }
    case 'logp':
      return c('logp', a(-v / scale));
    case 'sequential':
      return c('seq', a(v / scale));
  }
  return 'transparent';
}

/** How a token is drawn: visible whitespace and named specials. */
export function tokenLabel(text: string): string {
  if (text === '\n') return '⏎';
  if (text === ' ') return '\u00a0';
  return text;
}

export const num = (v: number | null | undefined, digits = 4) =>
  typeof v === 'number' && Number.isFinite(v)
    ? v !== 0 && Math.abs(v) < 1e-3
      ? v.toExponential(3)
      : v.toFixed(digits)
    : '—';
