// Reliability (docs/reliability.md), the fast part that runs in the main suite: non-finite steps pause the loop
// after three in a row with an explanation; a snapshot (the autosave) restores everything a run needs
// to continue with exactly the metrics of an uninterrupted run, including the KL reference after a
// ProRL reset and the difficulty ladder; a lost WebGPU device stops the session cleanly.
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import type { InitRequest, RunSnapshot, SessionEvent, StepMetrics } from './protocol.ts';
import { NON_FINITE_LIMIT, TrainingSession } from './training-session.ts';

const shipped = (id: string) =>
  pathToFileURL(fileURLToPath(new URL(`../public/checkpoints/${id}/manifest.json`, import.meta.url))).href;

function newSession() {
  const events: SessionEvent[] = [];
  const s = new TrainingSession({
    createBackend: async () => createNodeBackend(1),
    fetchBytes: async (url) => new Uint8Array(await readFile(fileURLToPath(url))),
    flushMs: 1,
    yieldToEvents: () => new Promise((ok) => setImmediate(ok)),
  });
  s.subscribe((batch) => events.push(...batch));
  return { s, events };
}

/** Metrics without wall-clock timings (those differ between any two runs). */
const strip = (m: StepMetrics) =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('time/') && !k.startsWith('tokens_per_second')));

/**
 * Weights and AdamW state (moments and step count) as bytes, without the checkpoint's name (which carries the step).
 */
async function deviceState(s: TrainingSession) {
  const c = (await s.snapshot()).current;
  return { weights: c.bytes, m: c.optimizer.m, v: c.optimizer.v, adamStep: c.optimizer.step };
}

async function until(cond: () => boolean, ms = 60_000) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

const nano: InitRequest = {
  config: {
    task: 'arithmetic',
    difficulty: { digits: 1, ops: '+' },
    prompts_per_step: 2,
    num_generations: 2,
    max_completion_length: 8,
    eval_every: 0,
    seed: 11,
    learning_rate: 1e-3,
  },
  checkpoint: { kind: 'fresh', model: 'nano', seed: 4 },
  backend: null,
};

describe('non-finite steps (NaN/Inf in the loss or gradients)', () => {
  it(`are skipped and recorded; ${NON_FINITE_LIMIT} in a row pause the loop with an explanation and ` +
    'suggestions', async () => {
    const { s, events } = newSession();
    await s.init({ ...nano, stepBudget: 50 });
    await s.stepOnce();
    const good = await deviceState(s);

    // One bad step: skipped, reported on its step event, the loop goes on.
    s.debugInjectNonFinite(1);
    await s.stepOnce();
    s.flush();
    const one = events.filter((e) => e.type === 'step').at(-1)!;
    expect(one.type === 'step' && one.skipped && one.metrics.skipped).toBe(1);
    expect(events.some((e) => e.type === 'error')).toBe(false);
    expect(await deviceState(s)).toEqual(good);
    const before = await deviceState(s);

    // A good step resets the streak; then three bad ones in a row pause the running loop.
    await s.stepOnce();
    const afterGood = await deviceState(s);
    expect(afterGood.adamStep).toBe(before.adamStep + 1);
    s.debugInjectNonFinite(NON_FINITE_LIMIT + 5);
    s.start();
    await until(() => s.status().state === 'paused');
    s.flush();
    expect(s.status().step).toBe(3 + NON_FINITE_LIMIT); // paused right after the third, not at the budget
    const steps = events.filter((e) => e.type === 'step').slice(-NON_FINITE_LIMIT);
    expect(steps.map((e) => e.type === 'step' && e.skipped)).toEqual(new Array(NON_FINITE_LIMIT).fill(true));
    const err = events.find((e) => e.type === 'error');
    expect(err).toMatchObject({ type: 'error', code: 'non-finite', fatal: false });
    const msg = err!.type === 'error' ? err!.message : '';
    expect(msg).toMatch(/3 steps in a row/);
    expect(msg).toMatch(/learning_rate \(now 0\.001; try 0\.0001\)/);
    expect(msg).toMatch(/max_grad_norm/);
    expect(msg).toMatch(/paused/i);
    // Weights and optimizer state untouched by the skipped steps.
    expect(await deviceState(s)).toEqual(afterGood);
    const snap = await s.snapshot();
    expect(snap.trainer.nonFiniteStreak).toBe(NON_FINITE_LIMIT);
    expect(
      s
        .metricsHistory()
        .metrics.slice(-NON_FINITE_LIMIT)
        .map((m) => m.skipped),
    ).toEqual([1, 1, 1]);

    // Once the cause is gone, Start trains again (the hook had 5 poisoned steps left: clear them).
    s.debugInjectNonFinite(0);
    const m = await s.stepOnce();
    expect(m.skipped).toBe(0);
    expect((await deviceState(s)).adamStep).toBe(afterGood.adamStep + 1);
  }, 120_000);
});

describe('resume from a snapshot (the autosave) is exact', () => {
  // The shipped arithmetic checkpoint solves the easy levels, so the ladder really climbs; beta > 0
  // with a reference reset every 2 steps moves the KL anchor off the base weights.
  const request: InitRequest = {
    config: {
      task: 'arithmetic',
      curriculum: 'ladder',
      ladder_window: 1,
      ladder_advance_at: 0.3,
      ladder_step_back_at: 0,
      prompts_per_step: 2,
      num_generations: 4,
      max_completion_length: 24,
      eval_every: 3,
      eval_prompts: 2,
      seed: 7,
      beta: 0.05,
      ref_reset_every: 2,
      learning_rate: 3e-4,
      warmup_steps: 2,
    },
    checkpoint: { kind: 'shipped', id: 'arithmetic-tiny', manifestUrl: shipped('arithmetic-tiny') },
    backend: null,
  };
  const K = 3;
  const M = 4;

  async function continueFrom(snap: RunSnapshot, steps: number) {
    const b = newSession();
    const init = await b.s.init({ ...request, restore: structuredClone(snap) });
    const out: StepMetrics[] = [];
    for (let i = 0; i < steps; i++) out.push(await b.s.stepOnce());
    b.s.flush();
    const difficulty = b.events.flatMap((e) => (e.type === 'step' ? [e.difficulty] : []));
    return { init, metrics: out.map(strip), difficulty, session: b.s };
  }

  it(`weights, AdamW moments, counters, reference, ladder, config and metrics history: the next ${M} steps ` +
    'match an uninterrupted run', async () => {
    const a = newSession();
    await a.s.init(request);
    for (let i = 0; i < K; i++) await a.s.stepOnce();
    await a.s.updateConfig({ learning_rate: 5e-4 }); // a live change must survive the restore too
    const snap = await a.s.snapshot();
    expect(snap.trainer.ladder?.level, 'the ladder climbed before the snapshot').toBeGreaterThan(0);
    expect(snap.reference, 'the reference weights are saved').toBeTruthy();
    expect(snap.reference).not.toEqual(snap.base.bytes); // moved by the reset at step 2
    const uninterrupted: StepMetrics[] = [];
    for (let i = 0; i < M; i++) uninterrupted.push(await a.s.stepOnce());
    a.s.flush();
    const aDifficulty = a.events.flatMap((e) => (e.type === 'step' ? [e.difficulty] : [])).slice(K);

    const b = await continueFrom(snap, M);
    expect(b.init.step).toBe(K);
    expect(b.init.config.learning_rate).toBe(5e-4);
    expect(b.init.metrics.map(strip)).toEqual(snap.metrics.map(strip));
    expect(b.init.evals).toEqual(snap.evals);
    expect(b.metrics).toEqual(uninterrupted.map(strip));
    expect(b.difficulty).toEqual(aDifficulty);
    expect((await b.session.saveCheckpoint()).bytes).toEqual((await a.s.saveCheckpoint()).bytes);
    expect(b.session.metricsHistory().evals).toEqual(a.s.metricsHistory().evals);

    // The test can fail: an older snapshot without the reference or the ladder state diverges.
    const noRef = await continueFrom({ ...snap, reference: undefined }, 1);
    expect(noRef.metrics[0]!.kl).not.toEqual(uninterrupted[0]!.kl);
    const noLadder = await continueFrom(
      { ...snap, trainer: { step: snap.trainer.step, promptCounter: snap.trainer.promptCounter } },
      1,
    );
    expect(noLadder.difficulty[0]).not.toEqual(aDifficulty[0]);
  }, 300_000);

  it('a corrupt snapshot is refused and the current run is untouched', async () => {
    const a = newSession();
    await a.s.init(nano);
    await a.s.stepOnce();
    const snap = await a.s.snapshot();
    const before = (await a.s.saveCheckpoint()).bytes;
    await expect(
      a.s.init({ ...nano, restore: { ...structuredClone(snap), trainer: { step: -1, promptCounter: 0 } } }),
    ).rejects.toThrow(/step must be an integer/);
    await expect(
      a.s.init({
        ...nano,
        restore: { ...structuredClone(snap), current: { ...snap.current, bytes: new Uint8Array(10) } },
      }),
    ).rejects.toThrow();
    expect(a.s.status().step).toBe(1);
    expect((await a.s.saveCheckpoint()).bytes).toEqual(before);
  }, 60_000);
});

describe('bad checkpoint files', () => {
  it('each is refused with a clear message and the current run, weights and step are untouched', async () => {
    const { s } = newSession();
    await s.init(nano);
    await s.stepOnce();
    const good = await s.saveCheckpoint();
    const before = await deviceState(s);
    const n = Number(new DataView(good.bytes.buffer, good.bytes.byteOffset).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(good.bytes.subarray(8, 8 + n)));
    const rebuild = (edit: (h: Record<string, { dtype: string; shape: number[] }>) => void) => {
      const h = structuredClone(header);
      edit(h);
      const json = new TextEncoder().encode(JSON.stringify(h));
      const out = new Uint8Array(8 + json.length + good.bytes.length - 8 - n);
      new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
      out.set(json, 8);
      out.set(good.bytes.subarray(8 + n), 8 + json.length);
      return out;
    };
    const tinyManifest = JSON.parse(await readFile(fileURLToPath(shipped('arithmetic-tiny')), 'utf8'));
    const cases: [string, Uint8Array, unknown, RegExp][] = [
      ['0-byte file', new Uint8Array(0), good.manifest, /empty \(0 bytes\)/],
      ['truncated file', good.bytes.subarray(0, good.bytes.length - 100), good.manifest, /truncated/],
      [
        'random bytes',
        Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24),
        good.manifest,
        /not a safetensors file/,
      ],
      [
        'wrong header',
        Uint8Array.from([...new Uint8Array(8), ...new TextEncoder().encode('hello')]),
        good.manifest,
        /not a safetensors file/,
      ],
      ['wrong dtype', rebuild((h) => (h['wte']!.dtype = 'I64')), good.manifest, /dtype "I64" is not supported/],
      [
        'wrong shapes',
        rebuild((h) => (h['wte']!.shape = [...h['wte']!.shape].reverse())),
        good.manifest,
        /tensor "wte" has shape/,
      ],
      ['a manifest from another model', good.bytes, tinyManifest, /does not match its manifest/],
      ['a manifest that is not ours', good.bytes, { format: 'onnx' }, /"format" must be "rlvr-playground-checkpoint"/],
    ];
    for (const [what, bytes, manifest, message] of cases) {
      await expect(s.loadCheckpoint(bytes, manifest, what), what).rejects.toThrow(message);
      expect(s.status().step, what).toBe(1);
    }
    expect(await deviceState(s)).toEqual(before);
    expect(s.metricsHistory().metrics).toHaveLength(1);
  }, 60_000);
});

describe('a lost WebGPU device', () => {
  it('stops the loop, reports a fatal "device-lost" error once, and refuses further engine work', async () => {
    const { s, events } = newSession();
    await s.init({ ...nano, stepBudget: 1000 });
    s.start();
    await until(() => s.status().step >= 1);
    s.deviceLost('simulated');
    s.deviceLost('again');
    await until(() => s.status().state === 'error');
    // The loop has ended (pause() resolves when it has): an error it would report later is emitted by now.
    await s.pause();
    s.flush();
    const errs = events.filter((e) => e.type === 'error');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ code: 'device-lost', fatal: true });
    expect(s.status().state).toBe('error');
    await expect(s.stepOnce()).rejects.toThrow(/device was lost/);
  }, 60_000);
});
