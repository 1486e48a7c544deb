// The one token view's projections (token-strip.ts): a rollout of the page's run and a completion the run
// viewer read from the same record are coloured by the same rules (channels.ts), so the inspector and the
// viewer draw a record's token channels alike; the viewer offers only the channels its run recorded.
import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../rl/rollout.ts';
import { recordCompletion } from '../../runs/record.ts';
import type { RunCompletion, RunStep } from '../../runs/types.ts';
import { channelSpec } from './channels.ts';
import { completionStrip, rolloutStrip, viewerChannelsOf } from './token-strip.ts';

const rollout: RolloutRecord = {
  step: 3,
  group: 0,
  index: 0,
  prompt: '2+2=',
  hint: '',
  tokens: [5, 6, 7],
  tokenText: ['4', ' ', '\n'],
  completion: '4 \n',
  oldLogp: [-0.1, -2, -0.5],
  newLogp: [-0.2, -1.5, -0.5],
  refLogp: null,
  ratio: [0.9, 1.6, 1],
  clipped: [null, 'high', null],
  entropy: [0.3, 1.2, 0.1],
  kl: [0, 0.01, 0],
  advantage: 0.8,
  objective: [0.7, 0.96, 0.8],
  tokenLoss: [-0.7, -0.96, -0.8],
  weight: [1 / 3, 1 / 3, 0],
  lossContribution: [-0.23, -0.32, 0],
  trained: [true, true, false],
  reward: 1,
  components: {},
  correct: true,
  reason: 'ok',
  truncated: false,
  hinted: false,
  flipped: null,
};

const stepOf = (...completions: RunCompletion[]): RunStep => ({
  step: 3,
  problems: [],
  groups: [{ index: 0, prompt: '2+2=', completions, mean: 0, std: 0 }],
});

describe('the token strips of the one token view', () => {
  const c = recordCompletion(rollout, 0);
  const step = stepOf(c);

  it("colour a record's ratio, clipping, entropy and advantage in the viewer as the inspector does", () => {
    for (const channel of ['ratio', 'clipped', 'entropy', 'advantage'] as const) {
      const live = rolloutStrip(rollout, [rollout], channelSpec(channel));
      const viewed = completionStrip(step, c, channel);
      expect(viewed.values, channel).toEqual(live.values);
      expect(viewed.colours, channel).toEqual(live.colours);
      expect(viewed.text).toEqual(live.text);
    }
  });

  it('keep each part of a token the e2e tests read: its hover text first line and its data', () => {
    const live = rolloutStrip(rollout, [rollout], channelSpec('ratio'));
    expect(live.titles[1]!.split('\n')[0]).toBe('token 1: " "');
    expect(live.masked).toEqual([false, false, true]);
    expect(live.data[1]).toMatchObject({ ratio: '1.6', clipped: 'high', logp: '-1.5', 'old-logp': '-2' });
    const viewed = completionStrip(step, c, 'logprob');
    expect(viewed.titles[1]!.split('\n')[0]).toBe('token 1: " " (id 6)');
    // The viewer's log-prob is the sampling one (as sampled), the inspector's the current policy's.
    expect(viewed.values).toEqual(rollout.oldLogp);
    expect(viewed.data.map((d) => Number(d.logprob))).toEqual(rollout.oldLogp);
  });

  it("colour by the writer's per-token advantages where it logged them, and offer only recorded channels", () => {
    const perToken: RunCompletion = {
      ...c,
      tokens: { text: ['a', 'b'], logprobs: [-1, -2], advantages: [0.5, -0.5] },
    };
    expect(completionStrip(stepOf(perToken), perToken, 'advantage').values).toEqual([0.5, -0.5]);
    expect(viewerChannelsOf(stepOf(perToken))).toEqual(['logprob', 'advantage']);
    expect(viewerChannelsOf(step)).toEqual(['logprob', 'advantage', 'entropy', 'ratio', 'clipped']);
  });
});
