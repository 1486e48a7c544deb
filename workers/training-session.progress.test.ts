import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import type { SessionEvent } from './protocol.ts';
import { TrainingSession } from './training-session.ts';

type Progress = Extract<SessionEvent, { type: 'progress' }>;

describe('TrainingSession progress (what the status bar shows during long waits)', () => {
  it('streams the step-0 evaluation by samples and each step by phase: tokens sampled, reference scoring, ' +
    'minibatches', async () => {
    const events: SessionEvent[] = [];
    // flushMs 0: every progress event goes out at once, so the test sees each one.
    const s = new TrainingSession({
      createBackend: async () => createNodeBackend(1),
      fetchBytes: async () => new Uint8Array(),
      flushMs: 0,
    });
    s.subscribe((batch) => events.push(...batch));
    await s.init({
      config: {
        task: 'arithmetic',
        difficulty: { digits: 1, ops: '+' },
        prompts_per_step: 2,
        num_generations: 4,
        max_completion_length: 12,
        eval_every: 5,
        eval_prompts: 4,
        seed: 5,
        beta: 0.02,
        minibatches: 2,
      },
      checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
      backend: null,
    });
    await s.stepOnce();
    s.flush();
    const progress = events.filter((e): e is Progress => e.type === 'progress');
    const evals = progress.filter((e) => e.what === 'eval');
    expect(evals.length).toBeGreaterThan(2);
    expect(evals.every((e) => e.total === 16 && e.done >= 0 && e.done <= 16)).toBe(true);
    expect(evals.some((e) => e.done > 0 && e.done < 16)).toBe(true); // partway, not only 0% and 100%
    expect(evals[evals.length - 1]!.done).toBe(16);
    const step = progress.filter((e) => e.what === 'step');
    const tokens = step.filter((e) => e.phase === 'sampling, tokens');
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.every((e) => e.total === 12 && e.done >= 0 && e.done <= 12)).toBe(true);
    expect(tokens[0]!.done).toBe(0); // shown as soon as sampling starts (the first token can wait on a graph compile)
    expect(step.some((e) => e.phase === 'scoring the reference policy')).toBe(true); // beta > 0
    const updates = step.filter((e) => e.phase === 'updating, minibatches').map((e) => `${e.done}/${e.total}`);
    expect(updates).toEqual(['0/2', '1/2', '1/2', '2/2']);
    // Phases come in order: sampling, then scoring, then the update.
    const order = step.map((e) => e.phase);
    expect(order.indexOf('scoring the reference policy')).toBeGreaterThan(order.lastIndexOf('sampling, tokens'));
    expect(order.indexOf('updating, minibatches')).toBeGreaterThan(order.indexOf('scoring the reference policy'));
    // The hooks are gone after the step: a pass@k evaluation does not report step phases.
    const n = step.length;
    await s.evaluatePassAtK({ n: 2, prompts: 2 });
    s.flush();
    expect(events.filter((e) => e.type === 'progress' && e.what === 'step')).toHaveLength(n);
    await s.stop();
  }, 120_000);

  it('pass@k returns to the event loop after every sampling batch, so pings and Cancel are answered during ' +
    'it', async () => {
    let yields = 0;
    const s = new TrainingSession({
      createBackend: async () => createNodeBackend(1),
      fetchBytes: async () => new Uint8Array(),
      flushMs: 0,
      yieldToEvents: () => ((yields += 1), new Promise((ok) => setImmediate(ok))),
    });
    await s.init({
      config: {
        task: 'arithmetic',
        difficulty: { digits: 1, ops: '+' },
        prompts_per_step: 2,
        num_generations: 2,
        max_completion_length: 6,
        eval_every: 0,
        eval_prompts: 4,
        seed: 5,
      },
      checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
      backend: null,
    });
    const before = yields;
    // 4 prompts x 4 samples in batches of 2 x 2 rows: 4 batches for the base policy and 4 for the current one.
    await s.evaluatePassAtK({ n: 4, prompts: 4 });
    expect(yields - before).toBe(8);
    await s.stop();
  }, 120_000);

  it('a cancelled warm start stops after the step it is on and leaves the model as it was; an uncancelled ' +
    'one changes it', async () => {
    let yields = 0;
    let s: TrainingSession | null = null;
    s = new TrainingSession({
      createBackend: async () => createNodeBackend(1),
      fetchBytes: async () => new Uint8Array(),
      flushMs: 0,
      // Cancel is pressed while the third SFT step's yield waits: the worker answers between steps.
      yieldToEvents: () => {
        yields += 1;
        if (yields === 3) s?.cancelWarmStart();
        return new Promise((ok) => setImmediate(ok));
      },
    });
    const progress: Progress[] = [];
    s.subscribe((batch) => progress.push(...batch.filter((e): e is Progress => e.type === 'progress')));
    await s.init({
      config: { task: 'arithmetic', difficulty: { digits: 1, ops: '+' }, eval_every: 0, seed: 5 },
      checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
      backend: null,
    });
    const before = await s.saveCheckpoint();
    const r = await s.warmStart({ steps: 40, batchSize: 4 });
    expect(r.cancelled).toBe(true);
    expect(r.losses).toHaveLength(3);
    const after = await s.saveCheckpoint();
    expect(after.manifest.name).toBe(before.manifest.name);
    expect(Buffer.from(after.bytes).equals(Buffer.from(before.bytes))).toBe(true);
    expect(s.status().state).toBe('ready');
    // The line starts at 0 before the first step's graph compiles.
    s.flush();
    expect(progress.find((e) => e.what === 'warm-start')).toMatchObject({ done: 0, total: 40 });
    const done = await s.warmStart({ steps: 5, batchSize: 4 });
    expect(done.cancelled).toBe(false);
    expect(done.losses).toHaveLength(5);
    const trained = await s.saveCheckpoint();
    expect(trained.manifest.name).toContain('+sft5');
    expect(Buffer.from(trained.bytes).equals(Buffer.from(before.bytes))).toBe(false);
    await s.stop();
  }, 120_000);
});
