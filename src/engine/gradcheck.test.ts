import { describe, expect, it } from 'vitest';
import { gradCheck, type CheckInput } from './gradcheck.ts';
import { gradRules } from './gradients.ts';
import { opDefs } from './ops.ts';
import { gradients } from './autodiff.ts';
import { Graph, type Tensor } from './graph.ts';
import { evaluate, nd } from './reference.ts';
import { Rng } from '../util/rng.ts';

/** Tolerance: |autodiff - central difference| / max(1, |central difference|), float64, h = 1e-5. */
const TOL = 1e-6;

type Case = {
  name: string;
  op: string;
  make: (rng: Rng) => { inputs: CheckInput[]; build: (g: Graph, xs: Tensor[]) => Tensor };
};

const dim = (rng: Rng) => rng.int(2, 4);
const vals = (rng: Rng, n: number, lo = -1.5, hi = 1.5) => Array.from({ length: n }, () => lo + (hi - lo) * rng.next());
const nonzero = (rng: Rng, n: number) =>
  Array.from({ length: n }, () => (rng.next() < 0.5 ? -1 : 1) * (0.5 + 1.5 * rng.next()));
const inp = (rng: Rng, name: string, shape: number[], gen = vals): CheckInput => ({
  name,
  shape,
  values: gen(
    rng,
    shape.reduce((a, b) => a * b, 1),
  ),
});

const binary = (op: string, f: (g: Graph, a: Tensor, b: Tensor) => Tensor, genB = vals, genA = vals): Case => ({
  name: `${op} with broadcasting`,
  op,
  make: (rng) => {
    const [a, b, c] = [dim(rng), dim(rng), dim(rng)];
    return {
      inputs: [inp(rng, 'a', [a, b, c], genA), inp(rng, 'b', [b, 1], genB)],
      build: (g, [x, y]) => f(g, x!, y!),
    };
  },
});
const unary = (op: string, f: (g: Graph, a: Tensor) => Tensor, gen = vals): Case => ({
  name: op,
  op,
  make: (rng) => ({ inputs: [inp(rng, 'x', [dim(rng), dim(rng)], gen)], build: (g, [x]) => f(g, x!) }),
});
const positive = (rng: Rng, n: number) => vals(rng, n, 0.3, 2);

const cases: Case[] = [
  binary('Add', (g, a, b) => g.add(a, b)),
  binary('Sub', (g, a, b) => g.sub(a, b)),
  binary('Mul', (g, a, b) => g.mul(a, b)),
  binary('Div', (g, a, b) => g.div(a, b), nonzero),
  binary('Pow', (g, a, b) => g.pow(a, b), vals, positive),
  unary('Exp', (g, a) => g.exp(a)),
  unary('Log', (g, a) => g.log(a), positive),
  unary('Sqrt', (g, a) => g.sqrt(a), positive),
  unary('Tanh', (g, a) => g.tanh(a)),
  unary('Sigmoid', (g, a) => g.sigmoid(a)),
  unary('Erf', (g, a) => g.erf(a)),
  unary('Clip', (g, a) => g.clip(a, -0.7, 0.6)),
  unary('Identity', (g, a) => g.identity(a)),
  unary('Softmax', (g, a) => g.softmax(a, -1)),
  unary('ReduceSum', (g, a) => g.reduceSum(a, [0], false)),
  unary('ReduceMean', (g, a) => g.reduceMean(a, [1], true)),
  unary('ReduceMax', (g, a) => g.reduceMax(a, [1], false)),
  unary('ReduceLogSumExp', (g, a) => g.reduceLogSumExp(a, [-1], true)),
  {
    name: 'Cast (float to float via Where of a comparison keeps the gradient path)',
    op: 'Cast',
    make: (rng) => ({
      inputs: [inp(rng, 'x', [3, dim(rng)])],
      build: (g, [x]) => g.mul(x!, g.cast(g.greater(x!, 0), 'float32')),
    }),
  },
  {
    name: 'Where',
    op: 'Where',
    make: (rng) => {
      const s = [dim(rng), dim(rng)];
      const c: CheckInput = {
        name: 'c',
        shape: s,
        dtype: 'bool',
        values: vals(rng, s[0]! * s[1]!).map((v) => (v > 0 ? 1 : 0)),
        fixed: true,
      };
      return { inputs: [c, inp(rng, 'a', s), inp(rng, 'b', [s[1]!])], build: (g, [cc, a, b]) => g.where(cc!, a!, b!) };
    },
  },
  {
    name: 'Equal/Less/Greater (no gradient through the mask)',
    op: 'Equal',
    make: (rng) => ({
      inputs: [inp(rng, 'x', [dim(rng), 3])],
      build: (g, [x]) => g.mul(x!, g.cast(g.equal(g.less(x!, 0.1), g.greater(x!, -0.2)), 'float32')),
    }),
  },
  {
    name: 'MatMul batched x shared weight',
    op: 'MatMul',
    make: (rng) => {
      const [b, m, k, n] = [dim(rng), dim(rng), dim(rng), dim(rng)];
      return { inputs: [inp(rng, 'a', [b, m, k]), inp(rng, 'w', [k, n])], build: (g, [a, w]) => g.matmul(a!, w!) };
    },
  },
  {
    name: 'MatMul batched x batched',
    op: 'MatMul',
    make: (rng) => {
      const [b, m, k, n] = [dim(rng), dim(rng), dim(rng), dim(rng)];
      return { inputs: [inp(rng, 'a', [b, m, k]), inp(rng, 'b', [b, k, n])], build: (g, [a, c]) => g.matmul(a!, c!) };
    },
  },
  {
    name: 'Transpose',
    op: 'Transpose',
    make: (rng) => ({
      inputs: [inp(rng, 'x', [dim(rng), dim(rng), dim(rng)])],
      build: (g, [x]) => g.transpose(x!, [2, 0, 1]),
    }),
  },
  {
    name: 'Reshape',
    op: 'Reshape',
    make: (rng) => {
      const [a, b] = [dim(rng), dim(rng)];
      return { inputs: [inp(rng, 'x', [a, b, 2])], build: (g, [x]) => g.reshape(x!, [2 * a, b]) };
    },
  },
  {
    name: 'Expand',
    op: 'Expand',
    make: (rng) => {
      const [a, b] = [dim(rng), dim(rng)];
      return { inputs: [inp(rng, 'x', [a, 1])], build: (g, [x]) => g.expand(x!, [3, a, b]) };
    },
  },
  {
    name: 'Concat',
    op: 'Concat',
    make: (rng) => {
      const a = dim(rng);
      return { inputs: [inp(rng, 'x', [a, 2]), inp(rng, 'y', [a, 3])], build: (g, [x, y]) => g.concat([x!, y!], 1) };
    },
  },
  {
    name: 'Slice on two axes',
    op: 'Slice',
    make: (rng) => ({
      inputs: [inp(rng, 'x', [dim(rng) + 2, 5])],
      build: (g, [x]) => g.slice(x!, [1, 1], [3, 4], [0, 1]),
    }),
  },
  {
    name: 'Gather (embedding, repeated indices)',
    op: 'Gather',
    make: (rng) => {
      const [v, d] = [dim(rng) + 2, dim(rng)];
      const idx: CheckInput = { name: 'i', shape: [2, 3], dtype: 'int64', values: [0, 2, 2, 1, v - 1, 0], fixed: true };
      return { inputs: [inp(rng, 'w', [v, d]), idx], build: (g, [w, i]) => g.gather(w!, i!, 0) };
    },
  },
  {
    name: 'GatherElements (token log-prob gather)',
    op: 'GatherElements',
    make: (rng) => {
      const [b, t, v] = [dim(rng), dim(rng), dim(rng) + 2];
      const idx: CheckInput = {
        name: 'i',
        shape: [b, t, 1],
        dtype: 'int64',
        values: Array.from({ length: b * t }, () => rng.int(0, v - 1)),
        fixed: true,
      };
      return { inputs: [inp(rng, 'x', [b, t, v]), idx], build: (g, [x, i]) => g.gatherElements(x!, i!, 2) };
    },
  },
  {
    name: 'LayerNormalization',
    op: 'LayerNormalization',
    make: (rng) => {
      const d = dim(rng) + 2;
      return {
        inputs: [inp(rng, 'x', [dim(rng), dim(rng), d]), inp(rng, 's', [d]), inp(rng, 'b', [d])],
        build: (g, [x, s, b]) => g.layerNorm(x!, s!, b!, 1e-5),
      };
    },
  },
  // The Llama/Qwen2 pieces, composed from table ops (graph.ts): checked as composites too.
  {
    name: 'RMSNorm (composed)',
    op: 'ReduceMean',
    make: (rng) => {
      const d = dim(rng) + 2;
      return {
        inputs: [inp(rng, 'x', [dim(rng), dim(rng), d]), inp(rng, 's', [d])],
        build: (g, [x, s]) => g.rmsNorm(x!, s!, 1e-6),
      };
    },
  },
  { ...unary('SiLU (composed)', (g, a) => g.silu(a)), op: 'Sigmoid' },
  {
    name: 'rotary position embedding (composed)',
    op: 'MatMul',
    make: (rng) => {
      const [b, h, t, d] = [2, dim(rng), dim(rng), 2 * dim(rng)];
      return {
        inputs: [inp(rng, 'x', [b, h, t, d]), inp(rng, 'cos', [b, 1, t, d]), inp(rng, 'sin', [b, 1, t, d])],
        build: (g, [x, c, s]) => g.rope(x!, c!, s!),
      };
    },
  },
  {
    name: 'repeat of k/v heads for grouped-query attention (composed)',
    op: 'Expand',
    make: (rng) => ({ inputs: [inp(rng, 'x', [2, dim(rng), dim(rng), 3])], build: (g, [x]) => g.repeatHeads(x!, 3) }),
  },
];

describe('gradient rules (float64 central differences)', () => {
  it('every op in the registry has a gradient rule and a test case', () => {
    // The compiler checks the table against the ops (gradRules is a GradRules = Record<OpName, GradRule>):
    const { Tanh: _tanh, ...withoutTanh } = gradRules;
    // @ts-expect-error a table without Tanh's rule does not compile
    const missing: typeof gradRules = withoutTanh;
    // @ts-expect-error nor does a rule for an op outside the table
    // biome-ignore lint/correctness/noComponentHookFactories: ScatterND is an op name, not a React component
    const extra: typeof gradRules = { ...gradRules, ScatterND: () => [null] };
    expect(Object.keys(missing)).not.toContain('Tanh');
    expect(Object.keys(extra)).toContain('ScatterND');
    const ops = Object.keys(opDefs).sort();
    expect(Object.keys(gradRules).sort()).toEqual(ops);
    const tested = new Set(cases.map((c) => c.op));
    expect(ops.filter((op) => !tested.has(op) && op !== 'Less' && op !== 'Greater')).toEqual([]);
  });

  for (const c of cases) {
    it(c.name, () => {
      for (let trial = 0; trial < 3; trial++) {
        const rng = new Rng(1000 + trial * 31 + c.name.length);
        const { inputs, build } = c.make(rng);
        const res = gradCheck(inputs, build, trial + 7);
        expect(res.maxRelError, res.worst).toBeLessThan(TOL);
      }
    });
  }

  it('a hand-written gradient (withGradient) replaces the chain rule, and a wrong one is caught', () => {
    const rng = new Rng(5);
    const x = [inp(rng, 'x', [3, 4])];
    // y = x·tanh(x), written with a detour the chain rule would differentiate too
    const build =
      (rule: (g: Graph, x: Tensor, t: Tensor, dy: Tensor) => Tensor) =>
      (g: Graph, [a]: Tensor[]) => {
        const t = g.tanh(a!);
        return g.withGradient(g.mul(a!, t), a!, (dy) => rule(g, a!, t, dy));
      };
    const right = gradCheck(
      x,
      build((g, a, t, dy) => g.mul(dy, g.add(t, g.mul(a, g.sub(1, g.mul(t, t)))))),
    );
    expect(right.maxRelError, right.worst).toBeLessThan(TOL);
    const wrong = gradCheck(
      x,
      build((g, _a, t, dy) => g.mul(dy, t)),
    );
    expect(wrong.maxRelError).toBeGreaterThan(1e-2);
  });

  it('stopGradient passes the value forward and no gradient back (torch .detach())', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [3]);
    // y = sum(x · sg(exp(x))): dy/dx = exp(x), not exp(x)·(1 + x)
    const y = g.sumAll(g.mul(x, g.stopGradient(g.exp(x))));
    const [dx] = gradients(g, y, [x]);
    g.output(y, 'y');
    g.output(dx!, 'dx');
    const xs = [-0.5, 0.25, 1.5];
    const [val, grad] = evaluate(g, { x: nd([3], xs) });
    expect(val!.data[0]).toBeCloseTo(
      xs.reduce((a, v) => a + v * Math.exp(v), 0),
      12,
    );
    xs.forEach((v, i) => expect(grad!.data[i]).toBeCloseTo(Math.exp(v), 12));
  });

  it('catches a wrong rule (the check can fail)', () => {
    const saved = gradRules.Tanh!;
    gradRules.Tanh = (g, n, dy) => [g.mul(dy, n.outputs[0]!)];
    try {
      const rng = new Rng(3);
      const res = gradCheck([inp(rng, 'x', [3, 3])], (g, [x]) => g.tanh(x!));
      expect(res.maxRelError).toBeGreaterThan(1e-2);
    } finally {
      gradRules.Tanh = saved;
    }
  });
});

describe('the Llama/Qwen2 composites against their formulas, in float64', () => {
  const run = (shapes: number[][], build: (g: Graph, xs: Tensor[]) => Tensor, values: number[][]) => {
    const g = new Graph();
    const xs = shapes.map((s, i) => g.input(`x${i}`, 'float32', s));
    g.output(build(g, xs));
    return evaluate(g, Object.fromEntries(values.map((v, i) => [`x${i}`, nd(shapes[i]!, v)])))[0]!.data;
  };
  const rng = new Rng(11);

  it('rmsNorm is x / sqrt(mean(x²) + eps) · scale (transformers LlamaRMSNorm)', () => {
    const x = vals(rng, 2 * 5);
    const s = vals(rng, 5);
    // eps exact in float32, as constants are stored
    const got = run([[2, 5], [5]], (g, [a, b]) => g.rmsNorm(a!, b!, 2 ** -16), [x, s]);
    for (let r = 0; r < 2; r++) {
      const row = x.slice(r * 5, r * 5 + 5);
      const rms = Math.sqrt(row.reduce((m, v) => m + v * v, 0) / 5 + 2 ** -16);
      row.forEach((v, j) => expect(got[r * 5 + j]).toBeCloseTo((v / rms) * s[j]!, 14));
    }
  });

  it('silu is x·sigmoid(x)', () => {
    const x = vals(rng, 7, -6, 6);
    const got = run([[7]], (g, [a]) => g.silu(a!), [x]);
    x.forEach((v, i) => expect(got[i]).toBeCloseTo(v / (1 + Math.exp(-v)), 14));
  });

  it('rope is x·cos + rotate_half(x)·sin with rotate_half(x) = [-x2, x1] (transformers apply_rotary_pos_emb)', () => {
    const d = 6;
    const x = vals(rng, 3 * d);
    const c = vals(rng, 3 * d);
    const s = vals(rng, 3 * d);
    const got = run(
      [
        [3, d],
        [3, d],
        [3, d],
      ],
      (g, [a, b, e]) => g.rope(a!, b!, e!),
      [x, c, s],
    );
    for (let r = 0; r < 3; r++)
      for (let j = 0; j < d; j++) {
        const k = r * d + j;
        const rot = j < d / 2 ? -x[k + d / 2]! : x[k - d / 2]!;
        expect(got[k]).toBeCloseTo(x[k]! * c[k]! + rot * s[k]!, 14);
      }
  });

  it('repeatHeads gives head h the values of head floor(h / n) (transformers repeat_kv)', () => {
    const x = vals(rng, 1 * 2 * 3 * 4);
    const got = run([[1, 2, 3, 4]], (g, [a]) => g.repeatHeads(a!, 3), [x]);
    expect(got.length).toBe(6 * 3 * 4);
    for (let h = 0; h < 6; h++)
      for (let k = 0; k < 12; k++) expect(got[h * 12 + k]).toBe(x[Math.floor(h / 3) * 12 + k]);
  });
});
