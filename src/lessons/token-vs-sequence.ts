import { v, pct, sat, type Lesson } from './lesson.ts';

export const tokenVsSequence: Lesson = {
  id: 'token-vs-sequence',
  title: 'Token vs sequence ratios: GRPO vs GSPO',
  paper: 'Group Sequence Policy Optimization; SSPO; LUSPO',
  claim:
    'GSPO uses a "response level importance ratio"; SSPO: when "all the response tokens share a common importance ' +
    'ratio, extreme values can [lead] to the entire response being mistakenly discarded".',
  text:
    'Off-policy updates (μ = 2 passes, 2 minibatches) move the ratio away from 1. GRPO clips token by token; GSPO ' +
    'clips whole responses with a very tight range. Look at the ratio spread and how much gets clipped.',
  lookAt: ['ratio/min', 'ratio/max', 'clip_ratio/region_mean'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'GRPO (token ratio)', preset: 'grpo', config: { num_iterations: 2, minibatches: 2 } },
    { label: 'GSPO (sequence ratio)', preset: 'gspo', config: { num_iterations: 2, minibatches: 2 } },
  ],
  measures: [
    { description: 'fraction of tokens clipped', metric: 'clip_ratio/region_mean', window: 150 },
    { description: 'largest ratio seen per step (mean)', metric: 'ratio/max', window: 150 },
  ],
  verdict: (m) => {
    const tok = v(m, 0, 'clip_ratio/region_mean');
    const seq = v(m, 1, 'clip_ratio/region_mean');
    return seq > tok * 2 && seq > 0.01
      ? {
          shows: true,
          text:
            `Shows: GSPO clipped ${pct(seq)} of tokens (whole responses at once) against GRPO's ${pct(tok)} ` +
            'token by token.',
        }
      : { shows: false, text: `The clipping differs little here: GSPO ${pct(seq)} vs GRPO ${pct(tok)} of tokens.` };
  },
};
