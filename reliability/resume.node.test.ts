// Reliability (docs/reliability.md): exact resume under the heavier knobs (the fast version with a ladder and a
// reference reset
// is in workers/training-session.faults.test.ts). Every random stream is derived from (seed, step,
// round) and every prompt from promptCounter, so weights + AdamW state + reference + trainer state
// restored from a snapshot continue with metrics identical to the uninterrupted run.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { InitRequest, RunConfig, StepMetrics } from '../workers/protocol.ts';
import { nodeSession, strip } from './helpers.ts';

const manifestUrl = pathToFileURL(
  fileURLToPath(new URL('../public/checkpoints/arithmetic-tiny/manifest.json', import.meta.url)),
).href;

const configs: [string, Partial<RunConfig>][] = [
  [
    'DAPO-style: dynamic sampling with refills, clip-higher, token-level loss, overlong shaping',
    {
      loss_type: 'dapo',
      dynamic_sampling: true,
      max_refill_rounds: 2,
      epsilon_high: 0.28,
      overlong_penalty: true,
      overlong_cache_length: 4,
    },
  ],
  [
    'off-policy: 2 minibatches x 2 iterations, sequence-level ratio, top-entropy tokens, KL k1',
    {
      minibatches: 2,
      num_iterations: 2,
      importance_sampling_level: 'sequence',
      top_entropy_quantile: 0.5,
      beta: 0.02,
      kl_estimator: 'k1',
    },
  ],
  [
    'noisy verifier + hints + RLPR mix',
    { noise_p_fn: 0.2, noise_p_fp: 0.1, hints: true, hint_fraction: 0.5, reward_source: 'mix', rlpr_weight: 0.3 },
  ],
];

describe.each(configs)('resume is exact: %s', (_name, extra) => {
  it('6 steps, snapshot, 6 more: the restored run matches the uninterrupted one', async () => {
    const req: InitRequest = {
      config: {
        task: 'arithmetic',
        difficulty: { digits: 2, ops: '+' },
        prompts_per_step: 2,
        num_generations: 4,
        max_completion_length: 24,
        eval_every: 4,
        eval_prompts: 2,
        seed: 3,
        learning_rate: 5e-4,
        ...extra,
      },
      checkpoint: { kind: 'shipped', id: 'arithmetic-tiny', manifestUrl },
      backend: null,
    };
    const a = nodeSession();
    await a.s.init(req);
    for (let i = 0; i < 6; i++) await a.s.stepOnce();
    const snap = structuredClone(await a.s.snapshot());
    const want: StepMetrics[] = [];
    for (let i = 0; i < 6; i++) want.push(await a.s.stepOnce());
    const b = nodeSession();
    await b.s.init({ ...req, restore: snap });
    const got: StepMetrics[] = [];
    for (let i = 0; i < 6; i++) got.push(await b.s.stepOnce());
    expect(got.map(strip)).toEqual(want.map(strip));
    expect(b.s.metricsHistory().evals).toEqual(a.s.metricsHistory().evals);
    expect((await b.s.snapshot()).current).toEqual((await a.s.snapshot()).current);
  }, 600_000);
});
