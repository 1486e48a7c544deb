// The worker's run record (Keep & share): every step's rollouts, live config changes, the current
// weights on request, and a run resumed from an autosave that says what it lacks.
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import { loadWeights } from '../src/model/checkpoint.ts';
import { readRunRecord } from '../src/record/run-record.ts';
import type { InitRequest } from './protocol.ts';
import { TrainingSession } from './training-session.ts';

const request: InitRequest = {
  config: {
    task: 'arithmetic',
    difficulty: { digits: 1, ops: '+' },
    prompts_per_step: 2,
    num_generations: 4,
    max_completion_length: 12,
    eval_every: 2,
    eval_prompts: 2,
    seed: 5,
    rollout_history_steps: 1,
  },
  checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
  backend: null,
};

const newSession = () =>
  new TrainingSession({
    createBackend: async () => createNodeBackend(1),
    fetchBytes: async () => new Uint8Array(),
    flushMs: 1,
  });

describe("the worker's run record", () => {
  it("holds every step (beyond the inspector's history), config changes, and the current weights on request; " +
    'a resumed run notes what it lacks', {
    timeout: 300_000,
  }, async () => {
    const s = newSession();
    await s.init(request);
    await s.stepOnce();
    expect((await s.updateConfig({ learning_rate: 5e-5 })).ok).toBe(true);
    await s.stepOnce();
    await s.stepOnce();
    expect(s.rolloutSteps()).toEqual([3]); // the inspector keeps one step in full; the record keeps them all

    const { record } = await readRunRecord(await s.runRecord({ weights: true }));
    expect(record.provenance.writer).toBe('playground');
    expect(record.config.learning_rate).not.toBe(5e-5);
    expect(record.config_changes).toEqual([{ step: 1, changed: { learning_rate: 5e-5 } }]);
    expect(record.steps.map((x) => x.step)).toEqual([1, 2, 3]);
    expect(record.rollouts.map((x) => x.step)).toEqual([1, 2, 3]);
    expect(record.evals.map((e) => e.step)).toEqual([0, 2]);
    expect(record.checkpoints.map((c) => c.step)).toEqual([3]);
    const saved = await s.saveCheckpoint();
    const tensors = (b: Uint8Array) => [...loadWeights(saved.manifest, b)].map(([k, v]) => [k, Array.from(v)]);
    expect(tensors(record.checkpoints[0]!.safetensors)).toEqual(tensors(saved.bytes));
    expect((await readRunRecord(await s.runRecord())).record.checkpoints).toEqual([]);

    // Resumed from a snapshot (what a reload restores): the earlier metrics, no earlier rollouts, and a note.
    const snap = await s.snapshot();
    const r = newSession();
    await r.init({ ...request, restore: snap });
    await r.stepOnce();
    const resumed = (await readRunRecord(await r.runRecord())).record;
    expect(resumed.steps.map((x) => x.step)).toEqual([1, 2, 3, 4]);
    expect(resumed.rollouts.map((x) => x.step)).toEqual([4]);
    expect(resumed.provenance.note).toMatch(
      /resumed from an autosave at step 3: steps up to 3 have metrics but no rollouts/,
    );
    await s.stop();
    await r.stop();
  });
});
