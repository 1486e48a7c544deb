import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import type { InitRequest, RunSnapshot, SaveTarget, SessionEvent } from './protocol.ts';
import { MAX_UNCOMMITTED, RunSaver, SAVE_SHARE, SaveThrottle } from './run-saver.ts';
import type { StoredRun } from './run-store.ts';
import { TrainingSession } from './training-session.ts';

// The worker's own saves (workers/run-saver.ts). IndexedDB itself is exercised in real Chromium by
// e2e/tab-runs.spec.mjs; here the records go to an array, in the shape workers/run-store.ts writes.

type Rec = StoredRun & { runId: string };
const target = (runId: string, tabId = 'tab-a'): SaveTarget => ({
  runId,
  tabId,
  setup: { draft: { task: 'arithmetic' }, runId },
  experiment: `exp-${runId}`,
});

describe('SaveThrottle: saves hold the loop for at most SAVE_SHARE of its time', () => {
  it('allows the next save once the time since the last start is the held time over the share', () => {
    const t = new SaveThrottle(0.1);
    expect(t.due(0)).toBe(true); // nothing saved yet
    t.started(1000);
    expect(t.busy).toBe(true);
    expect(t.due(5000)).toBe(false); // one in flight
    t.ended(20); // the save held the loop 20 ms: next one 200 ms after the last started
    expect(t.nextAt()).toBe(1200);
    expect(t.due(1199)).toBe(false);
    expect(t.due(1200)).toBe(true);
    t.started(1200);
    t.ended(0); // a failed or empty save holds nothing: the next may start at once
    expect(t.due(1200)).toBe(true);
  });

  it('keeps the held share at or below the bound over any sequence of saves', () => {
    const t = new SaveThrottle(SAVE_SHARE);
    let now = 0;
    let held = 0;
    const heldTimes = [5, 40, 3, 120, 7, 7, 60];
    let i = 0;
    for (let step = 0; step < 500; step++) {
      now += 50; // a 50 ms step
      if (t.due(now)) {
        const h = heldTimes[i++ % heldTimes.length]!;
        t.started(now);
        now += h;
        held += h;
        t.ended(h);
      }
    }
    expect(held / now).toBeLessThanOrEqual(SAVE_SHARE + 1e-9);
    expect(i).toBeGreaterThan(10);
  });

  it('refuses a share outside (0, 1]', () => {
    expect(() => new SaveThrottle(0)).toThrow(/save share/);
    expect(() => new SaveThrottle(1.5)).toThrow(/save share/);
  });
});

/** A snapshot of `step` (only the fields a saved record's listing reads). */
const snap = (step: number): RunSnapshot =>
  ({
    trainer: { step },
    savedAt: `2026-01-01T00:00:${String(step).padStart(2, '0')}Z`,
    config: { task: 'arithmetic' },
  }) as unknown as RunSnapshot;

function saver(opts: { fail?: () => boolean; hold?: () => Promise<void>; commit?: () => Promise<void> } = {}) {
  let step = 0;
  let clock = 0;
  const written: Rec[] = [];
  const events: SessionEvent[] = [];
  const s = new RunSaver({
    snapshot: async () => {
      const at = step;
      await opts.hold?.();
      return snap(at);
    },
    write: async (r, onQueued) => {
      if (opts.fail?.())
        throw Object.assign(new Error('QuotaExceededError: the quota has been exceeded'), {
          name: 'QuotaExceededError',
        });
      onQueued?.(0);
      await opts.commit?.();
      written.push(r);
      return { putMs: 0 };
    },
    emit: (e) => events.push(e),
    now: () => clock,
  });
  return { s, written, events, setStep: (n: number) => (step = n), tick: (ms: number) => (clock += ms) };
}

describe('RunSaver: what the worker saves, when, and under which record', () => {
  it('saves nothing without a target, then only under its run id, with its tab and setup', async () => {
    const w = saver();
    w.setStep(1);
    w.s.afterStep(1);
    expect(await w.s.saveNow(true)).toBeNull();
    w.s.setTarget(target('run-1'));
    w.setStep(2);
    w.s.afterStep(2);
    await w.s.idle();
    expect(w.written.map((r) => [r.runId, r.tabId, r.experiment, r.snapshot.trainer.step])).toEqual([
      ['run-1', 'tab-a', 'exp-run-1', 2],
    ]);
    expect(w.written[0]!.setup).toEqual({ draft: { task: 'arithmetic' }, runId: 'run-1' });
    expect(w.events).toEqual([
      { type: 'saved', runId: 'run-1', step: 2, savedAt: snap(2).savedAt, ms: { snapshot: 0, put: 0, commit: 0 } },
    ]);
  });

  it('saves only steps that are multiples of the interval (0: none), but always when asked', async () => {
    const w = saver();
    w.s.setTarget(target('r'), 3);
    for (let n = 1; n <= 7; n++) {
      w.setStep(n);
      w.s.afterStep(n);
      await w.s.idle();
    }
    expect(w.written.map((r) => r.snapshot.trainer.step)).toEqual([3, 6]);
    w.s.setTarget(target('r'), 0);
    w.setStep(9);
    w.s.afterStep(9);
    await w.s.idle();
    await w.s.saveNow();
    expect(w.written.map((r) => r.snapshot.trainer.step)).toEqual([3, 6, 9]);
    expect(() => w.s.setTarget(target('r'), -1)).toThrow(/whole number/);
  });

  it('has at most one save in flight; one asked for meanwhile runs after it, with the later state', async () => {
    let release!: () => void;
    let gate: Promise<void> | null = new Promise((ok) => (release = ok));
    const w = saver({ hold: () => gate ?? Promise.resolve() });
    w.s.setTarget(target('r'));
    w.setStep(1);
    w.s.afterStep(1); // in flight, held at its snapshot
    gate = null;
    w.setStep(2);
    w.s.afterStep(2); // skipped: one is in flight
    w.setStep(3);
    const a = w.s.saveNow();
    const b = w.s.saveNow(); // coalesced with the queued one
    expect(b).toBe(a);
    release();
    expect((await a)?.step).toBe(3);
    expect(w.written.map((r) => r.snapshot.trainer.step)).toEqual([1, 3]);
  });

  it(
    `the next save may start while the last commits, but no more than ${MAX_UNCOMMITTED} wait for their ` + 'commit',
    async () => {
      let release!: () => void;
      let gate = new Promise<void>((ok) => (release = ok));
      const w = saver({ commit: () => gate });
      w.s.setTarget(target('r'));
      for (let n = 1; n <= MAX_UNCOMMITTED + 2; n++) {
        w.setStep(n);
        w.s.afterStep(n);
        await new Promise((ok) => setTimeout(ok, 0)); // the save hands its record over
      }
      const opened = gate;
      gate = Promise.resolve();
      release();
      await opened;
      await w.s.idle();
      const first = Array.from({ length: MAX_UNCOMMITTED }, (_, i) => i + 1);
      // the later steps found MAX_UNCOMMITTED uncommitted
      expect(w.written.map((r) => r.snapshot.trainer.step)).toEqual(first);
      const next = MAX_UNCOMMITTED + 3;
      w.setStep(next);
      w.s.afterStep(next);
      await w.s.idle();
      expect(w.written.map((r) => r.snapshot.trainer.step)).toEqual([...first, next]);
    },
  );

  it('a save started under one run id stays under it when the page moves on to another run', async () => {
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    const w = saver({ hold: () => gate });
    w.s.setTarget(target('old'));
    w.setStep(5);
    const p = w.s.saveNow();
    w.s.setTarget(target('new', 'tab-a'));
    release();
    await p;
    expect(w.written.map((r) => [r.runId, r.setup])).toEqual([['old', target('old').setup]]);
  });

  it('a failed write turns automatic saves off (and says why) until a forced save succeeds', async () => {
    let failing = true;
    const w = saver({ fail: () => failing });
    w.s.setTarget(target('r'));
    w.setStep(1);
    w.s.afterStep(1);
    await w.s.idle();
    expect(w.events).toEqual([
      {
        type: 'save-failed',
        runId: 'r',
        message: 'QuotaExceededError: the quota has been exceeded',
        name: 'QuotaExceededError',
      },
    ]);
    w.setStep(2);
    w.s.afterStep(2);
    await w.s.idle();
    expect(await w.s.saveNow()).toBeNull(); // a pause's save while off
    expect(w.events).toHaveLength(1); // neither tried to write
    await expect(w.s.saveNow(true)).rejects.toThrow(/quota/); // Save now reports the failure
    expect(w.written).toEqual([]);
    failing = false;
    expect((await w.s.saveNow(true))?.step).toBe(2);
    w.setStep(3);
    w.s.afterStep(3);
    await w.s.idle();
    expect(w.written.map((r) => r.snapshot.trainer.step)).toEqual([2, 3]);
  });
});

const request: InitRequest = {
  config: {
    task: 'arithmetic',
    difficulty: { digits: 1, ops: '+' },
    prompts_per_step: 2,
    num_generations: 2,
    max_completion_length: 8,
    eval_every: 0,
    seed: 5,
  },
  checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
  backend: null,
};

describe('TrainingSession saves its own run (onnxruntime-node, records into an array)', () => {
  it('saves after steps and when the budget is reached, under the page-given run id only, and the last ' +
    'record resumes at the last step', async () => {
    const written: Rec[] = [];
    const s = new TrainingSession({
      createBackend: async () => createNodeBackend(1),
      fetchBytes: async () => new Uint8Array(),
      flushMs: 1,
      writeRun: async (r) => (written.push(structuredClone(r)), { putMs: 0 }),
    });
    s.subscribe(() => undefined);
    await s.init({ ...request, stepBudget: 3 });
    await s.stepOnce(); // no target yet: nothing saved
    await s.savesIdle();
    expect(written).toEqual([]);
    s.saveTo(target('run-a'));
    s.start();
    while (s.status().state === 'running' || s.status().state === 'pausing')
      await new Promise((ok) => setTimeout(ok, 20));
    await s.savesIdle();
    expect(s.status()).toMatchObject({ state: 'done', step: 3 });
    const steps = written.map((r) => r.snapshot.trainer.step);
    expect(steps.at(-1)).toBe(3); // the end of the run is always saved
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(written.map((r) => r.runId))).toEqual(new Set(['run-a']));
    // A new run (Reset) saves nowhere until the page names its record: never over run-a's.
    const before = written.length;
    await s.reset();
    await s.stepOnce();
    await s.savesIdle();
    expect(written.length).toBe(before);
    // The last record is a complete snapshot: a session restored from it resumes at step 3 with the same metrics.
    const last = written.at(-1)!;
    const r = await s.init({
      config: last.snapshot.config,
      checkpoint: { kind: 'fresh', model: 'nano', seed: 0 },
      backend: null,
      restore: last.snapshot,
    });
    expect(r.step).toBe(3);
    expect(r.metrics.map((m) => m.step)).toEqual([1, 2, 3]);
    await s.stop();
  }, 120_000);
});
