import { describe, expect, it } from 'vitest';
import { createNodeBackend } from './backend-node.ts';
import { FeedError, type DeviceTensor } from './backend.ts';
import { compile } from './compile.ts';
import { Graph, GraphError } from './graph.ts';
import { adamw } from './optimizer.ts';
import { evaluate, nd } from './reference.ts';
import { runTinyTraining } from '../model/tiny-training.ts';
import { Rng } from '../util/rng.ts';

const backend = createNodeBackend();

describe('ONNX export runs in onnxruntime-node and matches the float64 reference', () => {
  it('a graph that uses every op', async () => {
    const rng = new Rng(5);
    const g = new Graph();
    const x = g.input('x', 'float32', [2, 3, 4]);
    const w = g.input('w', 'float32', [4, 5]);
    const idx = g.input('idx', 'int64', [2, 3]);
    const emb = g.gather(w, idx, 0); // [2,3,5]
    const h = g.matmul(g.layerNorm(x, g.constant([1, 2, 0.5, 1], [4]), g.constant([0, 0.1, 0, -0.1], [4])), w);
    const s = g.softmax(g.add(h, emb), -1);
    const ls = g.logSoftmax(g.tanh(g.sub(h, emb)), -1);
    const e = g.gatherElements(ls, g.constant([0, 4, 2, 1, 3, 0], [2, 3, 1], 'int64'), 2);
    const mix = g.concat([g.slice(s, [1], [4], [2]), g.expand(e, [2, 3, 2])], 2); // [2,3,5]
    const m = g.mul(g.sigmoid(mix), g.erf(g.clip(mix, -0.5, 0.5)));
    const r = g.div(g.pow(g.add(g.exp(m), 1), 0.5), g.sqrt(g.add(g.log(g.add(g.exp(m), 2)), 1)));
    const t = g.transpose(g.reshape(r, [6, 5]), [1, 0]);
    const wh = g.where(g.greater(t, 1), t, g.cast(g.less(t, 0.5), 'float32'));
    const red = g.add(g.reduceSum(wh, [1], false), g.add(g.reduceMean(wh, [1], false), g.reduceMax(wh, [1], false)));
    g.output(g.add(red, g.reduceLogSumExp(wh, [1], false)), 'y');
    g.output(g.cast(g.equal(idx, 2), 'float32'), 'eq');

    const xs = Array.from({ length: 24 }, () => rng.normal());
    const ws = Array.from({ length: 20 }, () => rng.normal());
    const is = [0, 1, 2, 3, 2, 1];
    const ref = evaluate(g, { x: nd([2, 3, 4], xs), w: nd([4, 5], ws), idx: nd([2, 3], is) });
    const session = await backend.createSession(compile(g));
    const out = await session.run({
      x: backend.tensor('float32', xs, [2, 3, 4]),
      w: backend.tensor('float32', ws, [4, 5]),
      idx: backend.tensor('int64', is, [2, 3]),
    });
    const y = await backend.read(out['y']!);
    expect(Array.from(y as Float32Array).length).toBe(5);
    ref[0]!.data.forEach((v, i) =>
      expect(Math.abs((y[i] as number) - v)).toBeLessThan(1e-4 * Math.max(1, Math.abs(v))),
    );
    expect(Array.from((await backend.read(out['eq']!)) as Float32Array)).toEqual([0, 0, 1, 0, 1, 0]);
  });

  it('AdamW with clipping matches a hand computation in float64, and skips non-finite steps', async () => {
    const g = new Graph();
    const p = g.input('p', 'float32', [3]);
    const gr = g.input('g', 'float32', [3]);
    const m = g.input('m', 'float32', [3]);
    const v = g.input('v', 'float32', [3]);
    const step = g.input('step', 'float32', []);
    const lr = g.input('lr', 'float32', []);
    const cfg = { beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1.0 };
    const o = adamw(g, { params: [p], m, v }, [gr], step, lr, cfg);
    g.output(o.params[0]!, 'p2');
    g.output(o.m, 'm2');
    g.output(o.v, 'v2');
    g.output(o.gradNorm, 'norm');
    const session = await backend.createSession(compile(g));
    const P = [0.5, -1, 2];
    const G = [3, 4, 0];
    const M = [0.1, 0, -0.2];
    const V = [0.01, 0.02, 0.03];
    const run = (grad: number[]) =>
      session.run({
        p: backend.tensor('float32', P, [3]),
        g: backend.tensor('float32', grad, [3]),
        m: backend.tensor('float32', M, [3]),
        v: backend.tensor('float32', V, [3]),
        step: backend.tensor('float32', [3], []),
        lr: backend.tensor('float32', [0.01], []),
      });
    const out = await run(G);
    // float64 by hand: norm 5, clip factor 1/(5+1e-6)
    const c = 1 / (5 + 1e-6);
    const expected = P.map((pi, i) => {
      const gi = G[i]! * c;
      const mi = 0.9 * M[i]! + 0.1 * gi;
      const vi = 0.99 * V[i]! + 0.01 * gi * gi;
      const upd = mi / (1 - 0.9 ** 3) / (Math.sqrt(vi / (1 - 0.99 ** 3)) + 1e-8);
      return pi * (1 - 0.01 * 0.1) - 0.01 * upd;
    });
    const p2 = await backend.read(out['p2']!);
    expected.forEach((e, i) => expect(Math.abs((p2[i] as number) - e)).toBeLessThan(1e-6));
    expect((await backend.read(out['norm']!))[0]).toBeCloseTo(5, 5);

    const bad = await run([1, NaN, 0]);
    expect(Array.from((await backend.read(bad['p2']!)) as Float32Array)).toEqual(P);
    expect(Array.from((await backend.read(bad['m2']!)) as Float32Array)).toEqual(Array.from(Float32Array.from(M)));
    const inf = await run([Infinity, 0, 0]);
    expect(Array.from((await backend.read(inf['v2']!)) as Float32Array)).toEqual(Array.from(Float32Array.from(V)));
  });

  // decays: weight decay on some parameters only (transformers leaves biases and norms out), in runs of
  // neighbours alike and alone.
  it.each([[undefined], [[true, false, true]], [[false, false, true]]])(
    'AdamW over several parameters: one global norm, flat moments in parameter order, shapes kept (decays %j)',
    async (decays) => {
      const g = new Graph();
      const shapes = [[2, 3], [4], [1, 2, 2]];
      const total = shapes.reduce((n, s) => n + s.reduce((a, b) => a * b, 1), 0);
      const ps = shapes.map((s, i) => g.input(`p${i}`, 'float32', s));
      const gs = shapes.map((s, i) => g.input(`g${i}`, 'float32', s));
      const m = g.input('m', 'float32', [total]);
      const v = g.input('v', 'float32', [total]);
      const step = g.input('step', 'float32', []);
      const lr = g.input('lr', 'float32', []);
      const cfg = { beta1: 0.8, beta2: 0.95, eps: 1e-8, weightDecay: 0.05, maxGradNorm: 0.5 };
      const o = adamw(g, { params: ps, decays, m, v }, gs, step, lr, cfg);
      o.params.forEach((t, i) => {
        expect(t.shape).toEqual(shapes[i]);
        g.output(t, `p${i}.new`);
      });
      g.output(o.m, 'm.new');
      const session = await backend.createSession(compile(g));
      const rng = new Rng(4);
      const vals = (n: number, scale: number) => Array.from({ length: n }, () => (rng.next() - 0.5) * scale);
      const P = shapes.map((s) =>
        vals(
          s.reduce((a, b) => a * b, 1),
          2,
        ),
      );
      const G = shapes.map((s) =>
        vals(
          s.reduce((a, b) => a * b, 1),
          3,
        ),
      );
      const M = vals(total, 0.2);
      const V = vals(total, 0.1).map(Math.abs);
      const feeds: Record<string, DeviceTensor> = {
        m: backend.tensor('float32', M, [total]),
        v: backend.tensor('float32', V, [total]),
        step: backend.tensor('float32', [2], []),
        lr: backend.tensor('float32', [0.03], []),
      };
      shapes.forEach((s, i) => {
        feeds[`p${i}`] = backend.tensor('float32', P[i]!, s);
        feeds[`g${i}`] = backend.tensor('float32', G[i]!, s);
      });
      const out = await session.run(feeds);
      // float64 by hand, parameter by parameter, with the norm over all of them
      const f32 = (a: number[]) => Array.from(Float32Array.from(a));
      const flatG = G.flatMap(f32);
      const norm = Math.sqrt(flatG.reduce((a, x) => a + x * x, 0));
      const clip = Math.min(cfg.maxGradNorm / (norm + 1e-6), 1);
      const m32 = f32(M);
      const v32 = f32(V);
      let k = 0;
      for (let i = 0; i < shapes.length; i++) {
        const got = await backend.read(out[`p${i}.new`]!);
        f32(P[i]!).forEach((pj, j) => {
          const gj = flatG[k]! * clip;
          const mj = cfg.beta1 * m32[k]! + (1 - cfg.beta1) * gj;
          const vj = cfg.beta2 * v32[k]! + (1 - cfg.beta2) * gj * gj;
          const upd = mj / (1 - cfg.beta1 ** 2) / (Math.sqrt(vj / (1 - cfg.beta2 ** 2)) + cfg.eps);
          const keep = (decays?.[i] ?? true) ? 1 - 0.03 * cfg.weightDecay : 1;
          expect(Math.abs((got[j] as number) - (pj * keep - 0.03 * upd))).toBeLessThan(1e-6);
          k++;
        });
      }
      const mNew = (await backend.read(out['m.new']!)) as Float32Array;
      expect(mNew.length).toBe(total);
      mNew.forEach((x, j) =>
        expect(Math.abs(x - (cfg.beta1 * m32[j]! + (1 - cfg.beta1) * flatG[j]! * clip))).toBeLessThan(1e-6),
      );
    },
  );

  it('the tiny training graph learns on onnxruntime-node (20 steps)', async () => {
    const r = await runTinyTraining(backend, 20);
    expect(r.losses).toHaveLength(20);
    expect(r.losses[0]).toBeGreaterThan(2.5); // ~ln(24) at init
    expect(r.losses[19]!).toBeLessThan(r.losses[0]! - 0.5);
  });
});

describe('bad input fails with a clear message', () => {
  it('mismatched shapes name the op and the shapes', () => {
    const g = new Graph();
    const a = g.input('a', 'float32', [2, 3]);
    const b = g.input('b', 'float32', [4, 5]);
    expect(() => g.matmul(a, b)).toThrow(GraphError);
    expect(() => g.matmul(a, b)).toThrow(/MatMul\(a:float32\[2,3\], b:float32\[4,5\]\): inner dimensions differ/);
    expect(() => g.add(a, g.input('c', 'float32', [3, 2]))).toThrow(/Add.*do not broadcast/);
    expect(() => g.reshape(a, [4, 2])).toThrow(/cannot reshape \[2,3\]/);
  });

  it('an unknown op is rejected when the graph is built', () => {
    const g = new Graph();
    const a = g.input('a', 'float32', [2]);
    // @ts-expect-error ScatterND is not in the op table (OpName): a typed caller cannot even name it
    expect(() => g.op('ScatterND', [a])).toThrow(/unknown op "ScatterND"/);
  });

  it('a feed with the wrong dtype or shape names the tensor', async () => {
    const g = new Graph();
    const a = g.input('tokens', 'int64', [2]);
    g.output(g.cast(a, 'float32'), 'y');
    const s = await backend.createSession(compile(g), { label: 'demo' });
    await expect(s.run({ tokens: backend.tensor('float32', [1, 2], [2]) })).rejects.toThrow(FeedError);
    await expect(s.run({ tokens: backend.tensor('float32', [1, 2], [2]) })).rejects.toThrow(
      'demo: input "tokens" must be int64, got float32',
    );
    await expect(s.run({ tokens: backend.tensor('int64', [1, 2, 3], [3]) })).rejects.toThrow(
      'input "tokens" must have shape [2], got [3]',
    );
    await expect(s.run({})).rejects.toThrow('missing input "tokens"');
    await expect(
      s.run({ tokens: backend.tensor('int64', [1, 2], [2]), extra: backend.tensor('int64', [1], [1]) }),
    ).rejects.toThrow('unexpected input "extra"');
  });
});
