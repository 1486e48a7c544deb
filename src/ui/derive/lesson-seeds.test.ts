import { describe, expect, it } from 'vitest';
import type { EvalPoint } from '../../rl/run.ts';
import { meanEvals, meanMetrics, seedsSentence, seedToShow } from './lesson-seeds.ts';

describe('a lesson over its seeds', () => {
  it('draws the mean per step of the steps every seed has', () => {
    const m = meanMetrics([
      [
        { step: 1, reward: 0 },
        { step: 2, reward: 1, kl: 0.5 },
      ],
      [
        { step: 1, reward: 1 },
        { step: 2, reward: 0 },
        { step: 3, reward: 1 },
      ],
    ]);
    expect(m).toEqual([
      { step: 1, reward: 0.5 },
      { step: 2, reward: 0.5, kl: 0.5 },
    ]);
  });
  it('averages pass@k per k at the evaluation steps every seed has', () => {
    const a = [{ step: 0, pass_at_k: { '1': 0.2, '2': 0.4 } }];
    const b: EvalPoint[] = [
      { step: 0, pass_at_k: { '1': 0.4, '2': 0.6 } },
      { step: 10, pass_at_k: { '1': 1 } },
    ];
    expect(meanEvals([a, b])).toEqual([{ step: 0, pass_at_k: { '1': 0.30000000000000004, '2': 0.5 } }]);
  });
  it('shows a seed on which the effect shows and says on how many it does', () => {
    const v = (shows: boolean) => ({ shows, text: '' });
    const perSeed = [
      { seed: 1, verdict: v(false) },
      { seed: 2, verdict: v(true) },
      { seed: 3, verdict: v(true) },
    ];
    const shown = seedToShow(perSeed, 1);
    expect(shown).toEqual({ seed: 2, shows: true, showsOn: 2, of: 3 });
    expect(seedsSentence([1, 2, 3], shown)).toMatch(/mean over seeds 1, 2, 3.*shows on 2 of the 3 seeds alone/);
    expect(seedsSentence([1, 2, 3], shown)).toMatch(/seed 2, one on which it shows/);
    const none = seedToShow(
      [
        { seed: 11, verdict: v(false) },
        { seed: 12, verdict: v(false) },
      ],
      11,
    );
    expect(seedsSentence([11, 12], none)).toMatch(/shows on 0 of the 2 seeds alone/);
    expect(seedsSentence([11, 12], none)).toMatch(/seed 11, on which it does not show alone/);
  });
});
