import { describe, expect, it } from 'vitest';
import { gradients } from '../engine/autodiff.ts';
import { gradCheck, type CheckInput } from '../engine/gradcheck.ts';
import { Graph } from '../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { Rng } from '../util/rng.ts';
import type { ModelConfig } from './config.ts';
import { decodeStep, forward, initParams, MASKED, paramSpecs, type Params } from './transformer.ts';

const cfg: ModelConfig = { vocabSize: 7, contextLength: 5, dModel: 8, nLayers: 2, nHeads: 2, dFF: 8 };
const B = 2;
const T = 4;
const tokens = [1, 4, 2, 6, 3, 3, 5, 0];
const targets = [4, 2, 6, 1, 3, 5, 0, 0];
const keyBias = [0, 0, 0, 0, 0, 0, 0, MASKED]; // last token of row 2 is padding

function paramInputs(seed: number): CheckInput[] {
  const rng = new Rng(seed);
  // Random (not initial) values everywhere so LayerNorm gains and biases are exercised.
  return paramSpecs(cfg).map((s) => ({ name: s.name, shape: s.shape, values: Array.from({ length: s.shape.reduce((a, b) => a * b, 1) }, () => 0.4 * rng.normal() + (s.init === 'ones' ? 1 : 0)) }));
}

describe('whole-model gradient check (float64 central differences)', () => {
  it('embedding, causal attention, layer norm, GELU MLP, log-softmax, token gather', () => {
    const fixed: CheckInput[] = [
      { name: 'tokens', shape: [B, T], dtype: 'int64', values: tokens, fixed: true },
      { name: 'positions', shape: [B, T], dtype: 'int64', values: [0, 1, 2, 3, 0, 1, 2, 3], fixed: true },
      { name: 'key_bias', shape: [B, T], values: keyBias, fixed: true },
      { name: 'targets', shape: [B, T, 1], dtype: 'int64', values: targets, fixed: true },
    ];
    const params = paramInputs(11);
    const res = gradCheck([...params, ...fixed], (g, xs) => {
      const p: Params = {};
      params.forEach((s, i) => (p[s.name] = xs[i]!));
      const [tok, pos, kb, tgt] = xs.slice(params.length);
      const logits = forward(g, cfg, p, tok!, pos!, kb!);
      return g.reshape(g.meanAll(g.gatherElements(g.logSoftmax(logits, -1), tgt!, 2)), [1]);
    });
    expect(res.maxRelError, res.worst).toBeLessThan(1e-6);
  });
});

describe('incremental decoding equals the whole-sequence forward pass (float64)', () => {
  it('KV-cache logits match forward logits at every position, with left padding', () => {
    const init = initParams(cfg, 3);
    const tmax = cfg.contextLength;
    // Row 0: 4 real tokens; row 1: one left pad then 3 real tokens (positions shifted).
    const rows = [
      [1, 4, 2, 6],
      [0, 3, 5, 2],
    ];
    const pads = [0, 1];
    const feedsParams: Record<string, NDArray> = {};
    for (const s of paramSpecs(cfg)) feedsParams[s.name] = nd(s.shape, init.get(s.name)!);

    const gf = new Graph();
    const pf: Params = {};
    for (const s of paramSpecs(cfg)) pf[s.name] = gf.input(s.name, 'float32', s.shape);
    const tok = gf.input('tokens', 'int64', [B, T]);
    const pos = gf.input('positions', 'int64', [B, T]);
    const kb = gf.input('key_bias', 'float32', [B, T]);
    gf.output(forward(gf, cfg, pf, tok, pos, kb), 'logits');
    const posIds = rows.flatMap((r, b) => r.map((_, j) => Math.max(0, j - pads[b]!)));
    const bias = rows.flatMap((r, b) => r.map((_, j) => (j < pads[b]! ? MASKED : 0)));
    const full = evaluate(gf, { ...feedsParams, tokens: nd([B, T], rows.flat()), positions: nd([B, T], posIds), key_bias: nd([B, T], bias) })[0]!;

    // Forward-only, as the app builds it: its GELU is laid out for ONNX Runtime's fusion, and must
    // agree with the differentiable layout of the whole-sequence graph.
    const gd = new Graph({ forwardOnly: true });
    const pd: Params = {};
    for (const s of paramSpecs(cfg)) pd[s.name] = gd.input(s.name, 'float32', s.shape);
    const dh = cfg.dModel / cfg.nHeads;
    const io = {
      tokens: gd.input('tok', 'int64', [B]),
      positions: gd.input('pos', 'int64', [B]),
      step: gd.input('step', 'int64', []),
      keyBias: gd.input('kb', 'float32', [B, tmax]),
      kCache: Array.from({ length: cfg.nLayers }, (_, l) => gd.input(`k${l}`, 'float32', [B, cfg.nHeads, tmax, dh])),
      vCache: Array.from({ length: cfg.nLayers }, (_, l) => gd.input(`v${l}`, 'float32', [B, cfg.nHeads, tmax, dh])),
    };
    const out = decodeStep(gd, cfg, pd, io);
    const cache: Record<string, NDArray> = {};
    for (let l = 0; l < cfg.nLayers; l++) {
      cache[`k${l}`] = nd([B, cfg.nHeads, tmax, dh]);
      cache[`v${l}`] = nd([B, cfg.nHeads, tmax, dh]);
    }
    for (let j = 0; j < T; j++) {
      const kbStep = rows.flatMap((_, b) => Array.from({ length: tmax }, (_, c) => (c < j && c >= pads[b]! ? 0 : MASKED)));
      const res = evaluate(gd, { ...feedsParams, ...cache, tok: nd([B], rows.map((r) => r[j]!)), pos: nd([B], rows.map((_, b) => Math.max(0, j - pads[b]!))), step: nd([], [j]), kb: nd([B, tmax], kbStep) }, [out.logits, ...out.kCache, ...out.vCache]);
      for (let l = 0; l < cfg.nLayers; l++) {
        cache[`k${l}`] = res[1 + l]!;
        cache[`v${l}`] = res[1 + cfg.nLayers + l]!;
      }
      for (let b = 0; b < B; b++) {
        if (j < pads[b]!) continue;
        for (let v = 0; v < cfg.vocabSize; v++) {
          const a = res[0]!.data[b * cfg.vocabSize + v]!;
          const e = full.data[(b * T + j) * cfg.vocabSize + v]!;
          expect(Math.abs(a - e)).toBeLessThan(1e-9);
        }
      }
    }
  });
});

describe('forward-only graphs', () => {
  it('refuse to be differentiated', () => {
    const g = new Graph({ forwardOnly: true });
    const x = g.input('x', 'float32', [2]);
    expect(() => gradients(g, g.reduceSum(g.mul(x, x), [0], false), [x])).toThrow(/forward-only/);
  });
});
