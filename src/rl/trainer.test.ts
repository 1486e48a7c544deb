import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { modelPresets } from '../model/config.ts';
import { Policy } from '../model/policy.ts';
import { pretrain } from '../model/pretrain.ts';
import { initParams } from '../model/transformer.ts';
import { validateConfig, type RunConfig } from './config.ts';
import { Trainer } from './trainer.ts';

const cfg = modelPresets.nano;
const base = {
  task: 'arithmetic',
  difficulty: { digits: 1, ops: '+' },
  prompts_per_step: 4,
  num_generations: 4,
  max_completion_length: 24,
  eval_prompts: 4,
};

async function warmPolicy(): Promise<Policy> {
  const policy = await Policy.create(
    createNodeBackend(1),
    cfg,
    { promptLen: 8, completionLen: 24 },
    initParams(cfg, 7),
  );
  await pretrain(policy, {
    mix: [{ task: 'arithmetic', difficulty: { digits: 1, ops: '+' } }],
    steps: 40,
    batchSize: 16,
    lr: 3e-3,
    warmupSteps: 5,
    seed: 2,
  });
  return policy;
}

async function run(config: RunConfig, steps: number): Promise<{ metrics: Record<string, number>[]; trainer: Trainer }> {
  const policy = await warmPolicy();
  const trainer = await Trainer.create(policy, config);
  const metrics: Record<string, number>[] = [];
  for (let i = 0; i < steps; i++) {
    const r = await trainer.trainStep();
    const m = { ...r.metrics };
    for (const k of Object.keys(m)) if (k.startsWith('time/') || k.startsWith('tokens_per_second')) delete m[k];
    metrics.push(m);
  }
  return { metrics, trainer };
}

describe('trainer on onnxruntime-node', () => {
  it('same seed, same config: the first 20 steps have identical metrics', async () => {
    const c = validateConfig({ ...base, seed: 3, beta: 0.02 });
    const a = await run(c, 20);
    const b = await run(c, 20);
    expect(a.metrics).toHaveLength(20);
    expect(b.metrics).toEqual(a.metrics);
    // not a constant stream
    expect(new Set(a.metrics.map((m) => m['completions/mean_length'])).size).toBeGreaterThan(1);
    const rec = a.trainer.history.get(19)!;
    expect(rec).toHaveLength(16);
    expect(rec[0]!.newLogp.length).toBe(Math.min(rec[0]!.tokens.length, 24));
  }, 300_000);

  it('on-policy (μ = 1, one minibatch): ratios are 1 up to float error, nothing is clipped', async () => {
    const { metrics } = await run(validateConfig({ ...base, seed: 5 }), 2);
    for (const m of metrics) {
      expect(Math.abs(m['ratio/max']! - 1)).toBeLessThan(1e-3);
      expect(Math.abs(m['ratio/min']! - 1)).toBeLessThan(1e-3);
      expect(m['clip_ratio/region_mean']).toBe(0);
    }
  }, 120_000);

  it('a step whose loss is not finite is skipped, ' +
    'recorded, and leaves weights and optimizer state ' +
    'unchanged', async () => {
    const policy = await warmPolicy();
    const trainer = await Trainer.create(policy, validateConfig({ ...base, seed: 1 }));
    await trainer.trainStep();
    const before = await policy.getWeights();
    const optBefore = await policy.getOptimizerState();
    // A reward weight of NaN (as a buggy reward function would produce) poisons every advantage.
    trainer.config = { ...trainer.config, reward_weights: { correctness: NaN, format: 0.1, partial: 0 } };
    const r = await trainer.trainStep();
    expect(r.skipped).toBe(true);
    expect(r.metrics.skipped).toBe(1);
    expect(trainer.nonFiniteStreak).toBe(1);
    const after = await policy.getWeights();
    for (const [k, v] of before) expect(Array.from(after.get(k)!)).toEqual(Array.from(v));
    const optAfter = await policy.getOptimizerState();
    expect(optAfter.step).toBe(optBefore.step);
    for (const [k, v] of optBefore.m) expect(Array.from(optAfter.m.get(k)!)).toEqual(Array.from(v));
  }, 120_000);

  it('the held-out evaluation takes eval_samples samples per prompt, and num_generations when it is 0', async () => {
    const policy = await warmPolicy();
    const two = await Trainer.create(policy, validateConfig({ ...base, eval_prompts: 5, eval_samples: 2 }));
    const r2 = await two.evaluate();
    expect(r2.n).toBe(2);
    expect(Object.keys(r2.pass_at_k)).toEqual(['1', '2']);
    expect(r2.correct).toHaveLength(5);
    expect(Math.max(...r2.correct)).toBeLessThanOrEqual(2);
    const fromGroup = await Trainer.create(policy, validateConfig({ ...base, eval_prompts: 5 }));
    expect((await fromGroup.evaluate()).n).toBe(base.num_generations);
  }, 120_000);

  it("accuracy/first_round is the first sampling round's accuracy: equal to accuracy without refills, logged " +
    'with them', async () => {
    const plain = await run(validateConfig({ ...base, seed: 4 }), 3);
    for (const m of plain.metrics) expect(m['accuracy/first_round']).toBe(m.accuracy);
    const refilled = await run(validateConfig({ ...base, seed: 4, dynamic_sampling: true, max_refill_rounds: 2 }), 3);
    for (const m of refilled.metrics) {
      expect(m['accuracy/first_round']).toBeGreaterThanOrEqual(0);
      expect(m['accuracy/first_round']).toBeLessThanOrEqual(1);
    }
    // The first round is the same draw with or without refills (same seed, same weights before step 1).
    expect(refilled.metrics[0]!['accuracy/first_round']).toBe(plain.metrics[0]!['accuracy/first_round']);
  }, 120_000);

  it('random_token_fraction trains as many tokens as top_entropy_quantile, drawn at random, reproducibly', async () => {
    const trainedOf = (t: Trainer) => t.history.get(1)!.map((r) => r.trained);
    const count = (m: boolean[][]) => m.flat().filter(Boolean).length;
    const all = await run(validateConfig({ ...base, seed: 5 }), 1);
    const top = await run(validateConfig({ ...base, seed: 5, top_entropy_quantile: 0.2 }), 1);
    const rand = await run(validateConfig({ ...base, seed: 5, random_token_fraction: 0.2 }), 1);
    const again = await run(validateConfig({ ...base, seed: 5, random_token_fraction: 0.2 }), 1);
    const n = count(trainedOf(all.trainer));
    expect(n).toBeGreaterThan(20);
    // The same first batch under each (the mask changes the update, not the sampling before it).
    expect(rand.trainer.history.get(1)!.map((r) => r.tokens)).toEqual(all.trainer.history.get(1)!.map((r) => r.tokens));
    expect(count(trainedOf(rand.trainer))).toBe(Math.round(0.2 * n));
    // ties at the threshold
    expect(Math.abs(count(trainedOf(top.trainer)) - Math.round(0.2 * n))).toBeLessThanOrEqual(2);
    expect(trainedOf(again.trainer)).toEqual(trainedOf(rand.trainer));
    // Drawn without looking at entropy: the random fifth is not the top fifth.
    expect(trainedOf(rand.trainer)).not.toEqual(trainedOf(top.trainer));
    const meanEntropy = (t: Trainer) => {
      const picked = t.history.get(1)!.flatMap((r) => r.entropy.filter((_, i) => r.trained[i]));
      return picked.reduce((a, b) => a + b, 0) / picked.length;
    };
    expect(meanEntropy(top.trainer)).toBeGreaterThan(meanEntropy(rand.trainer));
  }, 120_000);

  it('length_bias/push_ratio: GRPO pushes a long wrong answer down less per token than a short one in its ' +
    'group; Dr. GRPO alike', async () => {
    // The ratio recomputed from the step's own rollout records: per group, the per-token push
    // (|advantage| × aggregation weight) on its longest pushed-down completion over its shortest's.
    const fromRecords = (t: Trainer, step: number) => {
      const ratios: number[] = [];
      const recs = t.history.get(step)!.filter((r) => r.advantage < 0);
      for (const g of new Set(recs.map((r) => r.group))) {
        const inGroup = recs.filter((r) => r.group === g).sort((a, b) => a.tokens.length - b.tokens.length);
        const push = (r: (typeof recs)[number]) => -r.advantage * r.weight[0]!;
        const [short, long] = [inGroup[0]!, inGroup[inGroup.length - 1]!];
        if (long.tokens.length > short.tokens.length) ratios.push(push(long) / push(short));
      }
      return ratios;
    };
    const steps = 6;
    // The warm nano policy answers every prompt wrong; a verifier that calls a wrong answer right half
    // the time gives every group two reward values (and the pushed-down answers one advantage each).
    const noisy = { ...base, seed: 4, noise_p_fp: 0.5 };
    const grpo = await run(validateConfig({ ...noisy, loss_type: 'grpo' }), steps);
    const dr = await run(validateConfig({ ...noisy, loss_type: 'dr_grpo', scale_rewards: 'none' }), steps);
    let judged = 0;
    for (let s = 1; s <= steps; s++) {
      const g = fromRecords(grpo.trainer, s);
      const d = fromRecords(dr.trainer, s);
      const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 1);
      expect(grpo.metrics[s - 1]!['length_bias/push_ratio']).toBeCloseTo(mean(g), 5);
      expect(dr.metrics[s - 1]!['length_bias/push_ratio']).toBeCloseTo(mean(d), 5);
      // Per-sequence normalisation: the push is |A| / length, so the longer answer gets less per token.
      for (const x of g) expect(x).toBeLessThan(1);
      // A constant divisor: answers with the same advantage get the same push per token.
      for (const x of d) expect(x).toBeCloseTo(1, 5);
      judged += g.length + d.length;
    }
    expect(judged).toBeGreaterThan(3);
  }, 120_000);
});
