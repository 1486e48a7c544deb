import { describe, expect, it } from 'vitest';
import { gradients } from '../engine/autodiff.ts';
import { gradCheck, type CheckInput } from '../engine/gradcheck.ts';
import { Graph } from '../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { Rng } from '../util/rng.ts';
import type { ModelConfig } from './config.ts';
import { buildDecodeGraph, buildPrefillGraph } from './graphs.ts';
import { forward, initParams, MASKED, paramSpecs, type Params } from './transformer.ts';

const gpt2: ModelConfig = { vocabSize: 7, contextLength: 5, dModel: 8, nLayers: 2, nHeads: 2, dFF: 8 };
// Llama with grouped-query attention (2 heads share 1 KV head), Qwen2's q/k/v biases and an untied head.
const llama: ModelConfig = {
  ...gpt2,
  arch: 'llama',
  nKvHeads: 1,
  ropeTheta: 100,
  normEps: 1e-5,
  qkvBias: true,
  tiedEmbeddings: false,
};
const CONFIGS: [string, ModelConfig][] = [
  ['GPT-2', gpt2],
  ['Llama/Qwen2', llama],
];
const B = 2;
const T = 4;
const tokens = [1, 4, 2, 6, 3, 3, 5, 0];
const targets = [4, 2, 6, 1, 3, 5, 0, 0];
const keyBias = [0, 0, 0, 0, 0, 0, 0, MASKED]; // last token of row 2 is padding

function paramInputs(cfg: ModelConfig, seed: number): CheckInput[] {
  const rng = new Rng(seed);
  // Random (not initial) values everywhere so LayerNorm gains and biases are exercised.
  return paramSpecs(cfg).map((s) => ({
    name: s.name,
    shape: s.shape,
    values: Array.from(
      { length: s.shape.reduce((a, b) => a * b, 1) },
      () => 0.4 * rng.normal() + (s.init === 'ones' ? 1 : 0),
    ),
  }));
}

describe('the Llama/Qwen2 weights', () => {
  it(
    "are transformers' LlamaForCausalLM ones under our names: no position table or LayerNorm biases, a " +
      'gated MLP, narrower k/v, q/k/v biases, lm_head',
    () => {
      const shapes = Object.fromEntries(paramSpecs(llama).map((s) => [s.name, s.shape]));
      expect(Object.keys(shapes).filter((n) => n.startsWith('h0.'))).toEqual([
        'h0.ln1.g',
        'h0.attn.wq',
        'h0.attn.bq',
        'h0.attn.wk',
        'h0.attn.bk',
        'h0.attn.wv',
        'h0.attn.bv',
        'h0.attn.wo',
        'h0.ln2.g',
        'h0.mlp.wg',
        'h0.mlp.wu',
        'h0.mlp.wd',
      ]);
      expect(shapes['h0.attn.wk']).toEqual([8, 4]); // 1 KV head of 4
      expect(shapes['lm_head']).toEqual([7, 8]);
      expect(shapes['wpe']).toBeUndefined();
    },
  );
});

describe.each(CONFIGS)('whole-model gradient check (float64 central differences): %s', (_name, cfg) => {
  it('embedding, positions, causal attention, norms, MLP, log-softmax, token gather', () => {
    const fixed: CheckInput[] = [
      { name: 'tokens', shape: [B, T], dtype: 'int64', values: tokens, fixed: true },
      { name: 'positions', shape: [B, T], dtype: 'int64', values: [0, 1, 2, 3, 0, 1, 2, 3], fixed: true },
      { name: 'key_bias', shape: [B, T], values: keyBias, fixed: true },
      { name: 'targets', shape: [B, T, 1], dtype: 'int64', values: targets, fixed: true },
    ];
    const params = paramInputs(cfg, 11);
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

/**
 * Prefill over the first P columns, then decode the remaining C, against the whole-sequence forward
 * pass (float64). `promptOf[b]` is row b's prompt among the prefill's rows; rows continue their
 * prompts in equal groups, as Policy.sample lays them out.
 */
function checkDecode(cfg: ModelConfig, rows: number[][], pads: number[], promptRows: number[]): void {
  const P = 2;
  const C = T - P;
  const u = promptRows.length;
  const group = B / u;
  const init = initParams(cfg, 3);
  const feedsParams: Record<string, NDArray> = {};
  for (const s of paramSpecs(cfg)) feedsParams[s.name] = nd(s.shape, init.get(s.name)!);
  const params = (g: Graph) => {
    const p: Params = {};
    for (const s of paramSpecs(cfg)) p[s.name] = g.input(s.name, 'float32', s.shape);
    return p;
  };
  const posOf = (b: number, col: number) => Math.max(0, col - pads[b]!);
  const biasOf = (b: number, col: number) => (col < pads[b]! ? MASKED : 0);

  const gf = new Graph();
  const pf = params(gf);
  gf.output(
    forward(
      gf,
      cfg,
      pf,
      gf.input('tokens', 'int64', [B, T]),
      gf.input('positions', 'int64', [B, T]),
      gf.input('key_bias', 'float32', [B, T]),
    ),
    'logits',
  );
  const cols = (f: (b: number, col: number) => number, n = B, from = 0, len = T) =>
    Array.from({ length: n }, (_, b) => Array.from({ length: len }, (_, j) => f(b, from + j))).flat();
  const full = evaluate(gf, {
    ...feedsParams,
    tokens: nd([B, T], rows.flat()),
    positions: nd([B, T], cols(posOf)),
    key_bias: nd([B, T], cols(biasOf)),
  })[0]!;
  const expectLogits = (got: ArrayLike<number>, gotRow: number, b: number, col: number) => {
    for (let v = 0; v < cfg.vocabSize; v++)
      expect(Math.abs(got[gotRow * cfg.vocabSize + v]! - full.data[(b * T + col) * cfg.vocabSize + v]!)).toBeLessThan(
        1e-9,
      );
  };

  // The app's own graphs (forward-only: their GELU is laid out for ONNX Runtime's fusion, and must
  // agree with the differentiable layout of the whole-sequence graph).
  const pb = (i: number, col: number) => biasOf(promptRows[i]!, col);
  const promptBias = nd([u, P], cols(pb, u, 0, P));
  const pre = evaluate(buildPrefillGraph(cfg, u, P), {
    ...feedsParams,
    tokens: nd(
      [u, P],
      promptRows.flatMap((b) => rows[b]!.slice(0, P)),
    ),
    positions: nd(
      [u, P],
      cols((i, col) => posOf(promptRows[i]!, col), u, 0, P),
    ),
    key_bias: promptBias,
  });
  for (let b = 0; b < B; b++) expectLogits(pre[0]!.data, Math.floor(b / group), b, P - 1);

  const gd = buildDecodeGraph(cfg, u, B, P, C, true);
  const dh = cfg.dModel / cfg.nHeads;
  const cache: Record<string, NDArray> = {};
  for (let l = 0; l < cfg.nLayers; l++) {
    cache[`pk${l}`] = pre[1 + 2 * l]!;
    cache[`pv${l}`] = pre[2 + 2 * l]!;
    cache[`k${l}`] = nd([B, cfg.nHeads, C, dh]);
    cache[`v${l}`] = nd([B, cfg.nHeads, C, dh]);
  }
  for (let j = 0; j < C; j++) {
    const kb = cols((_, c) => (c < j ? 0 : MASKED), B, 0, C);
    const res = evaluate(gd, {
      ...feedsParams,
      ...cache,
      tok: nd(
        [B],
        rows.map((r) => r[P + j]!),
      ),
      pos: nd(
        [B],
        rows.map((_, b) => posOf(b, P + j)),
      ),
      step: nd([], [j]),
      prompt_bias: promptBias,
      key_bias: nd([B, C], kb),
    });
    for (let l = 0; l < cfg.nLayers; l++) {
      cache[`k${l}`] = res[1 + 2 * l]!;
      cache[`v${l}`] = res[2 + 2 * l]!;
    }
    for (let b = 0; b < B; b++) expectLogits(res[0]!.data, b, b, P + j);
  }
}

describe.each(CONFIGS)('incremental decoding equals the whole-sequence forward pass (float64): %s', (_name, cfg) => {
  it('prefill then KV-cache decoding give the forward logits at every completion position, with left padding', () => {
    // Row 0: 4 real tokens; row 1: one left pad then 3 real tokens (positions shifted).
    checkDecode(
      cfg,
      [
        [1, 4, 2, 6],
        [0, 3, 5, 2],
      ],
      [0, 1],
      [0, 1],
    );
  });

  it('rows that continue one prompt read its keys and values once (a group of 2)', () => {
    checkDecode(
      cfg,
      [
        [1, 4, 2, 6],
        [1, 4, 5, 3],
      ],
      [0, 0],
      [0],
    );
  });
});

describe('forward-only graphs', () => {
  it('refuse to be differentiated', () => {
    const g = new Graph({ forwardOnly: true });
    const x = g.input('x', 'float32', [2]);
    expect(() => gradients(g, g.reduceSum(g.mul(x, x), [0], false), [x])).toThrow(/forward-only/);
  });
});
