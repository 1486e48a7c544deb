// use_adaptive_entropy in the trainer: each optimizer step applies the controller's coefficient in the
// graph, and the mean entropy of that step's trained tokens moves it (adaptive-entropy.ts; the
// controller itself is checked against TRL's own code in src/export/trl/loss-parity.test.ts).
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { modelPresets } from '../model/config.ts';
import { Policy } from '../model/policy.ts';
import { initParams } from '../model/transformer.ts';
import { validateConfig } from './config.ts';
import { Trainer } from './trainer.ts';

const cfg = modelPresets.nano;
const base = {
  task: 'arithmetic',
  difficulty: { digits: 1, ops: '+' },
  prompts_per_step: 4,
  num_generations: 4,
  max_completion_length: 12,
  minibatches: 2,
  seed: 4,
};

async function oneStep(patch: Record<string, unknown>) {
  const policy = await Policy.create(
    createNodeBackend(1),
    cfg,
    { promptLen: 8, completionLen: 12 },
    initParams(cfg, 7),
  );
  const trainer = await Trainer.create(
    policy,
    validateConfig({ ...base, use_adaptive_entropy: true, entropy_coef: 0.05, entropy_coef_delta: 0.01, ...patch }),
  );
  const r = await trainer.trainStep();
  // the second minibatch's rows: its last optimizer step, whose entropy the controller measured last
  const last = r.rollouts.slice(8);
  let sum = 0;
  let n = 0;
  const applied: number[] = [];
  for (const rec of last)
    rec.entropy.forEach((h, i) => {
      if (!rec.trained[i]) return;
      sum += h;
      n++;
      // beta = 0: token loss = −obj − coef · entropy
      applied.push(-(rec.tokenLoss[i]! + rec.objective[i]!) / h);
    });
  return { trainer, measured: sum / n, applied };
}

describe('use_adaptive_entropy in the trainer', () => {
  it('below the target: the coefficient rises a delta per optimizer step and the second step applies it', async () => {
    const { trainer, measured, applied } = await oneStep({ entropy_target: 100 });
    expect(trainer.entropyControl!.coef).toBeCloseTo(0.07, 12);
    expect(trainer.entropyControl!.lastEntropy).toBeCloseTo(measured, 5);
    for (const a of applied) expect(a).toBeCloseTo(0.06, 4);
    expect(trainer.getState().entropyControl).toEqual(trainer.entropyControl);
  }, 120_000);

  it('above the target: it falls to entropy_coef_min and no bonus is applied', async () => {
    const { trainer, applied } = await oneStep({ entropy_target: 0, entropy_coef_min: 0.035 });
    expect(trainer.entropyControl!.coef).toBeCloseTo(0.035, 12);
    for (const a of applied) expect(Math.abs(a)).toBeLessThan(1e-4);
  }, 120_000);
});
