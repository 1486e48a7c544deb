import { describe, expect, it } from 'vitest';
import { createNodeBackend } from './backend-node.ts';
import { sessionOptionsFor } from './backend.ts';
import { compile } from './compile.ts';
import { Graph } from './graph.ts';

describe('sessionOptionsFor (the one-thread hint for sessions of many small ops)', () => {
  it('runs small-op sessions on one thread only where onnxruntime-node chooses the thread count', () => {
    expect(sessionOptionsFor('node', { intraOpNumThreads: 0 }, { smallOps: true }).intraOpNumThreads).toBe(1);
    expect(sessionOptionsFor('node', {}, { smallOps: true }).intraOpNumThreads).toBe(1);
    // An explicit thread count (--threads, RLVR_THREADS) is the user's choice, for every session.
    expect(sessionOptionsFor('node', { intraOpNumThreads: 2 }, { smallOps: true }).intraOpNumThreads).toBe(2);
    expect(sessionOptionsFor('node', { intraOpNumThreads: 0 }, {}).intraOpNumThreads).toBe(0);
    // The web builds take their thread count from ort.env, once, for all sessions.
    expect(sessionOptionsFor('wasm', {}, { smallOps: true }).intraOpNumThreads).toBeUndefined();
  });

  it('leaves the backend options untouched', () => {
    const base = { intraOpNumThreads: 0, graphOptimizationLevel: 'all' as const };
    const out = sessionOptionsFor('node', base, { smallOps: true });
    expect(base.intraOpNumThreads).toBe(0);
    expect(out.graphOptimizationLevel).toBe('all');
  });

  it('a one-thread session computes what an automatic one does', async () => {
    const be = createNodeBackend(0);
    const g = new Graph({ forwardOnly: true });
    g.output(g.softmax(g.matmul(g.input('a', 'float32', [32, 64]), g.input('b', 'float32', [64, 48])), -1), 'y');
    const compiled = compile(g);
    const feeds = {
      a: be.tensor(
        'float32',
        Float32Array.from({ length: 32 * 64 }, (_, i) => Math.sin(i)),
        [32, 64],
      ),
      b: be.tensor(
        'float32',
        Float32Array.from({ length: 64 * 48 }, (_, i) => Math.cos(i)),
        [64, 48],
      ),
    };
    const outs: Float32Array[] = [];
    for (const smallOps of [false, true]) {
      const s = await be.createSession(compiled, { smallOps });
      outs.push((await be.read((await s.run(feeds))['y']!)) as Float32Array);
      await s.release();
    }
    expect(outs[1]!.length).toBe(32 * 48);
    expect(Array.from(outs[1]!)).toEqual(Array.from(outs[0]!));
  });
});
