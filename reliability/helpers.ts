/** Shared by the reliability tests: a node-backed TrainingSession and a backend that counts device tensors. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { DeviceTensor, Session } from '../src/engine/backend.ts';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import type { SessionEvent, StepMetrics } from '../workers/protocol.ts';
import { TrainingSession, type SessionBackend } from '../workers/training-session.ts';

/**
 * onnxruntime-node keeps every tensor on the CPU, so its backend's liveTensors() (GPU buffers) is
 * always 0. This wrapper counts what would be device memory on a GPU: outputs of engine runs not yet
 * disposed (the resident weights and AdamW moments, KV caches, logits...). A leak of any of them shows
 * as growth here exactly as it would on WebGPU.
 */
export class CountingBackend {
  readonly inner = createNodeBackend(1);
  private outstanding = new Set<DeviceTensor>();
  runs = 0;

  asSessionBackend(): SessionBackend {
    const self = this;
    const b = this.inner;
    return {
      kind: b.kind,
      description: b.description,
      reason: b.reason,
      async createSession(graph, opts) {
        const s = await b.createSession(graph, opts);
        const wrapped: Session = {
          graph: s.graph,
          async run(feeds) {
            const out = await s.run(feeds);
            self.runs++;
            for (const t of Object.values(out)) self.outstanding.add(t);
            return out;
          },
          release: () => s.release(),
        };
        return wrapped;
      },
      tensor: (dtype, data, shape) => b.tensor(dtype, data, shape),
      read: (t) => b.read(t),
      dispose(t) {
        self.outstanding.delete(t);
        b.dispose(t);
      },
      liveTensors: () => self.outstanding.size,
    };
  }
}

export function nodeSession(backend: () => SessionBackend = () => createNodeBackend(1)) {
  const counts = { steps: 0, skipped: 0, errors: [] as string[], lastStep: 0, gaps: 0, nonFiniteMetrics: 0 };
  const s = new TrainingSession({
    createBackend: async () => backend(),
    fetchBytes: async (url) => new Uint8Array(await readFile(fileURLToPath(url))),
    flushMs: 5,
  });
  // Keep counts only: holding the events would itself be a leak.
  s.subscribe((batch: SessionEvent[]) => {
    for (const e of batch) {
      if (e.type === 'step') {
        counts.steps++;
        if (e.skipped) counts.skipped++;
        if (e.metrics.step !== counts.lastStep + 1) counts.gaps++;
        counts.lastStep = e.metrics.step;
        for (const k of ['loss', 'reward', 'grad_norm', 'entropy'] as const)
          if (!Number.isFinite(e.metrics[k])) counts.nonFiniteMetrics++;
      } else if (e.type === 'error') counts.errors.push(e.message);
    }
  });
  return { s, counts };
}

/** Metrics without wall-clock timings (those differ between any two runs). */
export const strip = (m: StepMetrics) =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('time/') && !k.startsWith('tokens_per_second')));

export async function until(cond: () => boolean, ms: number, what = 'condition') {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

export function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (vitest.reliability.config.ts passes it)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
