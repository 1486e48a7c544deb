// Reliability (docs/reliability.md): a 1000-step soak of the trainer worker's session on onnxruntime-node (nano model,
// tiny
// batch, short completions), driven through the same start()/step-budget loop the Web Worker runs.
// Checked every 100 steps, each time with the loop stopped between steps:
//  - device tensors (engine outputs not yet disposed: weights, moments, caches) stay exactly constant;
//  - the JS heap after a full GC grows by no more than HEAP_GROWTH_BOUND from step 100 to step 1000
//    (what grows by design: the metrics history, one ~1 KB record per step, and the one-line
//    summaries of old rollout steps; everything else must be flat);
//  - every step sends its metrics (1000 step events, no gap, all finite);
//  - rollout history memory is bounded: at most rollout_history_steps steps kept in full.
import { describe, expect, it } from 'vitest';
import { CountingBackend, heapAfterGc, nodeSession, until } from './helpers.ts';

const STEPS = 1000;
const EVERY = 100;
const KEEP = 10;
/**
 * JS heap growth allowed over steps 100..1000 (measured here: 1.0 MB, i.e. ~1.1 KB per step of metrics + summaries).
 */
const HEAP_GROWTH_BOUND = 4 * 1024 * 1024;
/**
 * Growth allowed over the second half alone, per step: a leak of one step's rollout records (~20 KB) would exceed it.
 */
const HEAP_SLOPE_BOUND = 4 * 1024;

describe('1000-step soak on onnxruntime-node', () => {
  it(`${STEPS} steps: device tensors constant, heap bounded, metrics every step, rollout history bounded`, async () => {
    const counting = new CountingBackend();
    const { s, counts } = nodeSession(() => counting.asSessionBackend());
    await s.init({
      config: {
        task: 'arithmetic',
        difficulty: { digits: 1, ops: '+' },
        prompts_per_step: 2,
        num_generations: 4,
        max_completion_length: 8,
        eval_every: 250,
        eval_prompts: 2,
        seed: 1,
        learning_rate: 1e-3,
        rollout_history_steps: KEEP,
        beta: 0.01,
      },
      checkpoint: { kind: 'fresh', model: 'nano', seed: 1 },
      backend: null,
    });
    const rows: {
      step: number;
      liveTensors: number;
      heapMB: number;
      rssMB: number;
      kept: number;
      summaries: number;
      metrics: number;
      seconds: number;
    }[] = [];
    const t0 = performance.now();
    for (let target = EVERY; target <= STEPS; target += EVERY) {
      s.setStepBudget(target);
      s.start();
      await until(() => s.status().state === 'done', 600_000, `step ${target}`);
      s.flush();
      const p = s.memoryProbe();
      rows.push({
        step: s.status().step,
        liveTensors: p.liveTensors,
        heapMB: heapAfterGc() / 2 ** 20,
        rssMB: process.memoryUsage().rss / 2 ** 20,
        kept: p.rolloutStepsKept,
        summaries: p.rolloutSummaries,
        metrics: p.metrics,
        seconds: (performance.now() - t0) / 1000,
      });
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `soak: ${STEPS} steps in ${seconds.toFixed(0)} s (${((seconds * 1000) / STEPS).toFixed(0)} ms/step, ` +
        `${counting.runs} engine runs)`,
    );
    console.table(
      rows.map((r) => ({
        ...r,
        heapMB: r.heapMB.toFixed(2),
        rssMB: r.rssMB.toFixed(0),
        seconds: r.seconds.toFixed(0),
      })),
    );

    expect(counts.errors).toEqual([]);
    expect(counts.steps).toBe(STEPS);
    expect(counts.gaps).toBe(0);
    expect(counts.nonFiniteMetrics).toBe(0);
    expect(rows.at(-1)!.metrics).toBe(STEPS);
    // Device tensors: the same count at every checkpoint (weights + m + v of every parameter).
    const live = rows.map((r) => r.liveTensors);
    expect(new Set(live).size, `live device tensors changed: ${live.join(', ')}`).toBe(1);
    expect(live[0]).toBeGreaterThan(0);
    // Rollout history: never more than KEEP steps in full.
    for (const r of rows) expect(r.kept).toBeLessThanOrEqual(KEEP);
    // JS heap.
    const growth = (rows.at(-1)!.heapMB - rows[0]!.heapMB) * 2 ** 20;
    const half = rows.findIndex((r) => r.step === STEPS / 2);
    const slope = ((rows.at(-1)!.heapMB - rows[half]!.heapMB) * 2 ** 20) / (STEPS / 2);
    console.log(
      `heap growth ${(growth / 2 ** 20).toFixed(2)} MB over steps ${rows[0]!.step}..${STEPS} (bound ` +
        `${HEAP_GROWTH_BOUND / 2 ** 20} ` +
        `MB); ${(slope / 1024).toFixed(2)} KB/step over the second half (bound ${HEAP_SLOPE_BOUND / 1024} ` +
        'KB/step)',
    );
    expect(growth).toBeLessThan(HEAP_GROWTH_BOUND);
    expect(slope).toBeLessThan(HEAP_SLOPE_BOUND);
    await s.stop();
    expect(counting.asSessionBackend().liveTensors(), 'stop() frees every device tensor').toBe(0);
  });
});
