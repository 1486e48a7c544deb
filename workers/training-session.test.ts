import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import type { InitRequest, SessionEvent } from './protocol.ts';
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
    beta: 0.02,
  },
  checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
  backend: null,
};

function newSession() {
  const events: SessionEvent[] = [];
  const s = new TrainingSession({
    createBackend: async () => createNodeBackend(1),
    fetchBytes: async () => new Uint8Array(),
    flushMs: 1,
  });
  s.subscribe((batch) => events.push(...batch));
  return { s, events };
}

describe('TrainingSession (the trainer worker, on onnxruntime-node)', () => {
  it('runs steps, streams events, and its rollout numbers reproduce the loss contributions', async () => {
    const { s, events } = newSession();
    const init = await s.init(request);
    expect(init.config.difficulty).toEqual({ digits: 1, ops: '+', mulDigits: 1 });
    expect(init.backend.kind).toBe('node');
    const m = await s.stepOnce();
    expect(m.step).toBe(1); // steps are numbered by updates done: the first update is step 1
    expect(s.rolloutSteps()).toEqual([1]);
    s.flush();
    expect(events.some((e) => e.type === 'step')).toBe(true);
    expect(events.filter((e) => e.type === 'eval').map((e) => (e.type === 'eval' ? e.point.step : -1))).toEqual([0]);
    const r = s.getRollouts(1)!;
    expect(r.records).toHaveLength(8);
    expect(r.records.every((rec) => rec.step === 1)).toBe(true);
    let checked = 0;
    // Every per-token term comes from the update graph; here they must fit the objective's formula.
    const st = r.settings;
    for (const rec of r.records) {
      rec.lossContribution.forEach((lc, i) => {
        const ratio = rec.ratio[i]!;
        const obj = Math.min(
          Math.min(ratio, st.delta ?? Infinity) * rec.advantage,
          Math.min(Math.max(ratio, 1 - st.epsilon), 1 + st.epsilon_high) * rec.advantage,
        );
        expect(rec.objective[i]).toBeCloseTo(obj, 5);
        expect(rec.tokenLoss[i]).toBeCloseTo(-obj + st.beta * rec.kl[i]! - st.entropy_coef * rec.entropy[i]!, 5);
        expect(lc).toBeCloseTo(rec.weight[i]! * rec.tokenLoss[i]!, 5);
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(8);
  });

  it('start runs to the step budget; pass@k, config updates and bad checkpoints behave', async () => {
    const { s, events } = newSession();
    await s.init({ ...request, stepBudget: 3 });
    s.start();
    const passk = await s.evaluatePassAtK({ n: 4 }); // queued between steps, never overlapping one
    expect(passk.ks).toEqual([1, 2, 3, 4]);
    expect(Object.keys(passk.base)).toHaveLength(4);
    while (s.status().state === 'running') await new Promise((ok) => setTimeout(ok, 20));
    expect(s.status()).toMatchObject({ state: 'done', step: 3 });
    s.flush();
    expect(events.filter((e) => e.type === 'step')).toHaveLength(3);
    // before the first step, every eval_every, and at the budget's end (as rlvr train)
    expect(s.metricsHistory().evals.map((e) => e.step)).toEqual([0, 2, 3]);

    const refused = await s.updateConfig({ num_generations: 8 });
    expect(refused).toMatchObject({ ok: false, field: 'num_generations' });
    const ok = await s.updateConfig({ learning_rate: 5e-4 });
    expect(ok).toMatchObject({ ok: true, changed: ['learning_rate'] });

    const before = await s.saveCheckpoint();
    await expect(s.loadCheckpoint(new Uint8Array([1, 2, 3]), before.manifest)).rejects.toThrow();
    await expect(s.loadCheckpoint(before.bytes, { format: 'nope' })).rejects.toThrow(/format/);
    expect(s.status().step).toBe(3);
    expect((await s.saveCheckpoint()).bytes).toEqual(before.bytes);
  });

  it('a snapshot restores the same weights, optimizer, counters and metrics', async () => {
    const a = newSession();
    await a.s.init(request);
    await a.s.stepOnce();
    await a.s.stepOnce();
    const snap = await a.s.snapshot();
    const b = newSession();
    const init = await b.s.init({ ...request, restore: structuredClone(snap) });
    expect(init.step).toBe(2);
    expect(init.metrics).toHaveLength(2);
    expect((await b.s.saveCheckpoint()).bytes).toEqual((await a.s.saveCheckpoint()).bytes);
    const ma = await a.s.stepOnce();
    const mb = await b.s.stepOnce();
    const strip = (m: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(m).filter(([k]) => !k.startsWith('time/') && !k.startsWith('tokens_per_second')),
      );
    expect(strip(mb)).toEqual(strip(ma));
  });
});
