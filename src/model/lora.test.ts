import { describe, expect, it } from 'vitest';
import { gradCheck, type CheckInput } from '../engine/gradcheck.ts';
import { Graph } from '../engine/graph.ts';
import { defaultAdamW } from '../engine/optimizer.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { Rng } from '../util/rng.ts';
import type { ModelConfig } from './config.ts';
import { trainState } from './graphs.ts';
import { mergedWeights, PEFT_TARGETS, validateLora, zeroAdaptersWarning } from './lora.ts';
import { forward, initParams, MASKED, paramSpecs, trainableSpecs, type Params } from './transformer.ts';

const lora = { r: 2, alpha: 5, targets: [...PEFT_TARGETS] };
const gpt2: ModelConfig = { vocabSize: 7, contextLength: 5, dModel: 8, nLayers: 2, nHeads: 2, dFF: 8, lora };
const llama: ModelConfig = {
  ...gpt2,
  arch: 'llama',
  nKvHeads: 1,
  ropeTheta: 100,
  normEps: 1e-5,
  qkvBias: true,
  tiedEmbeddings: false,
  lora,
};
const CONFIGS: [string, ModelConfig][] = [
  ['GPT-2', gpt2],
  ['Llama/Qwen2', llama],
];
const B = 2;
const T = 4;
const fixedInputs: CheckInput[] = [
  { name: 'tokens', shape: [B, T], dtype: 'int64', values: [1, 4, 2, 6, 3, 3, 5, 0], fixed: true },
  { name: 'positions', shape: [B, T], dtype: 'int64', values: [0, 1, 2, 3, 0, 1, 2, 3], fixed: true },
  { name: 'key_bias', shape: [B, T], values: [0, 0, 0, 0, 0, 0, 0, MASKED], fixed: true },
  { name: 'targets', shape: [B, T, 1], dtype: 'int64', values: [4, 2, 6, 1, 3, 5, 0, 0], fixed: true },
];

const meanLogp = (g: Graph, c: ModelConfig, p: Params, [tok, pos, kb, tgt]: ReturnType<Graph['input']>[]) =>
  g.reshape(g.meanAll(g.gatherElements(g.logSoftmax(forward(g, c, p, tok!, pos!, kb!), -1), tgt!, 2)), [1]);

describe('LoRA weights', () => {
  it(
    "wrap PEFT's seven modules on Llama and the six GPT-2 has (no gate_proj), A [in, r] and B [r, out], the " +
      'base frozen',
    () => {
      const names = (c: ModelConfig) =>
        trainableSpecs(c)
          .filter((s) => s.name.startsWith('h0.'))
          .map((s) => `${s.name} [${s.shape}]`);
      expect(names(llama)).toEqual([
        'h0.attn.wq.lora_A [8,2]',
        'h0.attn.wq.lora_B [2,8]',
        'h0.attn.wk.lora_A [8,2]',
        'h0.attn.wk.lora_B [2,4]',
        'h0.attn.wv.lora_A [8,2]',
        'h0.attn.wv.lora_B [2,4]',
        'h0.attn.wo.lora_A [8,2]',
        'h0.attn.wo.lora_B [2,8]',
        'h0.mlp.wg.lora_A [8,2]',
        'h0.mlp.wg.lora_B [2,8]',
        'h0.mlp.wu.lora_A [8,2]',
        'h0.mlp.wu.lora_B [2,8]',
        'h0.mlp.wd.lora_A [8,2]',
        'h0.mlp.wd.lora_B [2,8]',
      ]);
      expect(
        names(gpt2)
          .map((n) => n.split(' ')[0]!.replace(/\.lora_[AB]$/, ''))
          .filter((_, i) => i % 2 === 0),
      ).toEqual(['h0.attn.wq', 'h0.attn.wk', 'h0.attn.wv', 'h0.attn.wo', 'h0.mlp.w1', 'h0.mlp.w2']);
      expect(
        paramSpecs(llama)
          .filter((s) => !s.name.includes('lora_'))
          .every((s) => s.frozen),
      ).toBe(true);
      expect(() => validateLora(gpt2, { ...lora, targets: ['gate_proj'] })).toThrow(
        /name no module of this architecture/,
      );
      expect(() => validateLora(gpt2, { ...lora, targets: ['c_attn'] })).toThrow(
        /"c_attn" is not one of PEFT's module names/,
      );
      expect(() => validateLora(gpt2, { ...lora, r: 0 })).toThrow(/lora.r must be a positive integer/);
    },
  );

  it('initialise as PEFT does: A uniform in ±1/√in, B zero, so a fresh adapter leaves the logits unchanged', () => {
    const w = initParams(llama, 5);
    const a = w.get('h1.mlp.wd.lora_A')!; // in = dFF = 8
    expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(8));
    expect(Math.max(...a.map(Math.abs))).toBeGreaterThan(0.2);
    expect(w.get('h1.mlp.wd.lora_B')!.every((x) => x === 0)).toBe(true);
    const { lora: _none, ...plain } = llama;
    expect(Array.from(logits(llama, w))).toEqual(Array.from(logits(plain, w)));
  });

  it.each(CONFIGS)(
    "merge as PEFT's merge_and_unload (%s): the plain model with merged weights gives the LoRA model's logits",
    (_name, cfg) => {
      const w = initParams(cfg, 7);
      const rng = new Rng(11);
      for (const [k, b] of w) if (k.endsWith('.lora_B')) b.forEach((_, i) => (b[i] = 0.3 * rng.normal()));
      const { lora: _merged, ...plain } = cfg;
      const merged = mergedWeights(cfg, w);
      expect([...merged.keys()].sort()).toEqual(
        paramSpecs(plain)
          .map((s) => s.name)
          .sort(),
      );
      const want = logits(cfg, w);
      const got = logits(plain, merged);
      const worst = Math.max(...Array.from(got, (x, i) => Math.abs(x - want[i]!)));
      expect(worst).toBeLessThan(1e-5);
      expect(Math.max(...Array.from(logits(plain, w), (x, i) => Math.abs(x - want[i]!)))).toBeGreaterThan(1e-2);
      expect(zeroAdaptersWarning(cfg, w)).toBeNull();
    },
  );

  it('say so when every B is exactly zero (the adapters change nothing), and not when one entry moved', () => {
    const w = initParams(llama, 5);
    expect(zeroAdaptersWarning(llama, w)).toMatch(
      /^every LoRA B matrix is zero: the adapters change nothing — did the run get any reward\? \(14 adapters, r = 2;/,
    );
    w.get('h1.mlp.wd.lora_B')![3] = 1e-30;
    expect(zeroAdaptersWarning(llama, w)).toBeNull();
    const { lora: _none, ...plain } = llama;
    expect(zeroAdaptersWarning(plain, w)).toBeNull();
  });
});

/** The model's logits on fixedInputs, float64 reference interpreter. */
function logits(c: ModelConfig, w: Map<string, Float32Array>): Float64Array | Float32Array {
  const g = new Graph({ forwardOnly: true });
  const p: Params = {};
  const feeds: Record<string, NDArray> = {};
  for (const s of paramSpecs(c)) {
    p[s.name] = g.input(s.name, 'float32', s.shape);
    feeds[s.name] = nd(s.shape, w.get(s.name)!);
  }
  const xs = fixedInputs.map((i) => g.input(i.name, i.dtype ?? 'float32', i.shape));
  fixedInputs.forEach((i) => (feeds[i.name] = nd(i.shape, i.values)));
  g.output(forward(g, c, p, xs[0]!, xs[1]!, xs[2]!));
  return evaluate(g, feeds)[0]!.data as Float64Array | Float32Array;
}

describe.each(CONFIGS)(
  'LoRA gradient check (float64 central differences, adapters only, base fixed): %s',
  (_name, cfg) => {
    it('d mean log-prob / d A and d B through the existing MatMul, Mul and Add rules', () => {
      const rng = new Rng(3);
      // B random, not zero, so A gets a gradient too; the base weights are inputs without one.
      const inputs: CheckInput[] = paramSpecs(cfg).map((s) => ({
        name: s.name,
        shape: s.shape,
        values: Array.from(
          { length: s.shape.reduce((a, b) => a * b, 1) },
          () => 0.4 * rng.normal() + (s.init === 'ones' ? 1 : 0),
        ),
        fixed: s.frozen === true,
      }));
      const res = gradCheck([...inputs, ...fixedInputs], (g, xs) => {
        const p: Params = {};
        inputs.forEach((s, i) => (p[s.name] = xs[i]!));
        return meanLogp(g, cfg, p, xs.slice(inputs.length));
      });
      expect(res.maxRelError, res.worst).toBeLessThan(1e-6);
    });
  },
);

describe('LoRA training graph', () => {
  it('updates only the adapters: AdamW moments as long as the adapters, no new. output for a base weight', () => {
    const g = new Graph();
    const st = trainState(g, llama);
    const p = st.p;
    const xs = fixedInputs.map((i) => g.input(i.name, i.dtype ?? 'float32', i.shape));
    st.finish(g.neg(g.reshape(meanLogp(g, llama, p, xs), [])), defaultAdamW);
    const adapters = trainableSpecs(llama);
    expect(adapters.every((s) => s.name.includes('.lora_'))).toBe(true);
    expect(st.names).toEqual(adapters.map((s) => s.name));
    const outs = g.outputs.map((o) => o.name);
    expect(outs.filter((n) => n.startsWith('new.') && !n.startsWith('new.adam.'))).toEqual(
      adapters.map((s) => 'new.' + s.name),
    );
    const moments = g.inputs.find((i) => i.name === 'adam.m')!;
    expect(moments.shape).toEqual([adapters.reduce((n, s) => n + s.shape[0]! * s.shape[1]!, 0)]);
  });
});
