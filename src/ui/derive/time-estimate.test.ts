import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../rl/config.ts';
import {
  aboutTime,
  loadPace,
  paceOf,
  passKSeconds,
  savePace,
  secondsLeft,
  stepSeconds,
  trainingSeconds,
  waitSecondsLeft,
} from './time-estimate.ts';

const small = {
  ...defaultConfig,
  prompts_per_step: 2,
  num_generations: 4,
  max_completion_length: 32,
  num_iterations: 1,
  eval_every: 0,
};
const P = 200_000;

describe('time estimates', () => {
  it('a pace measured on one config predicts that config exactly', () => {
    const pace = paceOf([{ samplingSeconds: 3, updateSeconds: 1 }], small, P, 'wasm')!;
    expect(stepSeconds(pace, small, P)).toBeCloseTo(4, 10);
  });

  it('scales with prompts, generations, completion length, update passes and parameters', () => {
    const pace = paceOf([{ samplingSeconds: 3, updateSeconds: 1 }], small, P, 'wasm')!;
    // 32x the prompts, 2x the completion cap: 64x the sampling and update work; 2 passes double the update.
    const recipe = { ...small, prompts_per_step: 64, max_completion_length: 64, num_iterations: 2 };
    expect(stepSeconds(pace, recipe, P)).toBeCloseTo(3 * 64 + 1 * 64 * 2, 8);
    expect(stepSeconds(pace, small, 2 * P)).toBeCloseTo(8, 10);
  });

  it('adds the periodic evaluations, spread over eval_every steps', () => {
    const pace = paceOf([{ samplingSeconds: 3, updateSeconds: 1 }], small, P, 'wasm')!;
    // eval_prompts × G × L = 4 × 4 × 32 slots every 2 steps = 256 per step, as many as a step samples.
    expect(stepSeconds(pace, { ...small, eval_every: 2, eval_prompts: 4 }, P)).toBeCloseTo(4 + 3, 10);
  });

  it('takes the median step, and a pace measured beside other runs is that many times faster alone', () => {
    const steps = [
      { samplingSeconds: 2, updateSeconds: 1 },
      { samplingSeconds: 30, updateSeconds: 9 },
      { samplingSeconds: 4, updateSeconds: 1 },
    ];
    const alone = paceOf(steps, small, P, 'wasm')!;
    expect(stepSeconds(alone, small, P)).toBeCloseTo(4 + 1, 10);
    const shared = paceOf(steps, small, P, 'wasm', 2)!;
    expect(stepSeconds(shared, small, P)).toBeCloseTo(2.5, 10);
  });

  it('runs side by side add up (they share the cores)', () => {
    const pace = paceOf([{ samplingSeconds: 3, updateSeconds: 1 }], small, P, 'wasm')!;
    expect(
      trainingSeconds(pace, [
        { config: small, parameters: P, steps: 150 },
        { config: small, parameters: P, steps: 150 },
      ]),
    ).toBeCloseTo(1200, 8);
  });

  it('pass@k samples 64 per held-out prompt, twice when the base policy is not cached', () => {
    const pace = paceOf([{ samplingSeconds: 8, updateSeconds: 1 }], small, P, 'wasm')!;
    const c = { ...small, eval_prompts: 16 };
    // 16 × 64 × 32 slots against 2 × 4 × 32 per measured step: 128 steps' sampling.
    expect(passKSeconds(pace, c, P, false)).toBeCloseTo(128 * 8, 6);
    expect(passKSeconds(pace, c, P, true)).toBeCloseTo(2 * 128 * 8, 6);
  });

  it("a step's time outside sampling and the update, and a fresh run's start, are in the estimate", () => {
    // Steps of 5 s (3 sampling, 1 update, 1 else); the first step ended 12 s after Start: 7 s of start.
    const steps = [{ samplingSeconds: 3, updateSeconds: 1, stepSeconds: 5 }];
    const pace = paceOf(steps, small, P, 'wasm', 1, 12)!;
    expect(pace.other).toBeCloseTo(1, 10);
    expect(pace.start).toBeCloseTo(7, 10);
    expect(stepSeconds(pace, small, P)).toBeCloseTo(5, 10);
    const run = { config: small, parameters: P, steps: 4 };
    expect(trainingSeconds(pace, [run])).toBeCloseTo(20, 10);
    // Not started yet: its start too, once per run (two runs side by side each load and compile).
    expect(trainingSeconds(pace, [run], true)).toBeCloseTo(27, 10);
    expect(trainingSeconds(pace, [run, run], true)).toBeCloseTo(54, 10);
    // A pace stored before these were measured still estimates (sampling and update alone).
    const old = paceOf([{ samplingSeconds: 3, updateSeconds: 1 }], small, P, 'wasm')!;
    expect(old.other).toBeUndefined();
    expect(trainingSeconds(old, [run], true)).toBeCloseTo(16, 10);
  });

  it('no usable step, no pace', () => {
    expect(paceOf([], small, P, 'wasm')).toBeNull();
    expect(paceOf([{ samplingSeconds: NaN, updateSeconds: 1 }], small, P, 'wasm')).toBeNull();
    expect(paceOf([{ samplingSeconds: 1, updateSeconds: 1 }], small, 0, 'wasm')).toBeNull();
  });

  it('time left: the slowest run decides; unknown until every unfinished run has a pace', () => {
    expect(secondsLeft([{ step: 10, budget: 150, stepsPerMinute: 7 }])).toBeCloseTo(1200, 8);
    expect(
      secondsLeft([
        { step: 10, budget: 150, stepsPerMinute: 7 },
        { step: 10, budget: 150, stepsPerMinute: 3.5 },
      ]),
    ).toBeCloseTo(2400, 8);
    expect(secondsLeft([{ step: 10, budget: 150, stepsPerMinute: 0 }])).toBeNull();
    expect(
      secondsLeft([
        { step: 150, budget: 150, stepsPerMinute: 0 },
        { step: 20, budget: 150, stepsPerMinute: 13 },
      ]),
    ).toBeCloseTo(600, 8);
    expect(waitSecondsLeft(25, 100, 30)).toBeCloseTo(90, 10);
    expect(waitSecondsLeft(0, 100, 30)).toBeNull();
  });

  it('reads "about N s" under a minute and a half, else "about N min"', () => {
    expect(aboutTime(1800)).toBe('about 30 min');
    expect(aboutTime(89)).toBe('about 90 s');
    expect(aboutTime(91)).toBe('about 2 min');
    expect(aboutTime(20)).toBe('about 20 s');
    expect(aboutTime(8.6)).toBe('about 10 s');
    expect(aboutTime(1)).toBe('about 5 s');
    // within 1.5x of the time it states, from 5 s to 400 steps' worth
    for (let t = 4; t < 4000; t *= 1.07) {
      const said = Number(/about (\d+) (s|min)/.exec(aboutTime(t))![1]) * (aboutTime(t).endsWith('min') ? 60 : 1);
      expect(Math.max(said / t, t / said), `${t} s`).toBeLessThanOrEqual(1.5);
    }
  });

  it('keeps one pace per backend; the latest is used when no backend is forced', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    expect(loadPace(null, storage)).toBeNull();
    savePace({ sampling: 1e-9, update: 2e-9, backend: 'wasm' }, storage);
    savePace({ sampling: 3e-10, update: 1e-10, backend: 'webgpu' }, storage);
    expect(loadPace('wasm', storage)?.sampling).toBe(1e-9);
    expect(loadPace(null, storage)?.backend).toBe('webgpu');
    store.set('rlvr-playground:pace', '{not json');
    expect(loadPace(null, storage)).toBeNull();
  });
});
