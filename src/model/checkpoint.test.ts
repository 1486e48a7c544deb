import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { createNodeBackend } from '../engine/backend-node.ts';
import { Rng } from '../util/rng.ts';
import { loadWeights, saveWeights, validateManifest, type Manifest } from './checkpoint.ts';
import { modelPresets } from './config.ts';
import { exportInferenceModel } from './export-onnx.ts';
import { pack } from './layout.ts';
import { Policy } from './policy.ts';
import { readSafetensors } from './safetensors.ts';
import { encode, tokenizerSpec } from './tokenizer.ts';
import { initParams, paramSpecs } from './transformer.ts';

const cfg = modelPresets.nano;
const layout = { promptLen: 8, completionLen: 16 };
const manifest: Manifest = validateManifest({
  format: 'rlvr-playground-checkpoint',
  version: 1,
  name: 'test',
  weights: 'model.safetensors',
  model: cfg,
  layout,
  tokenizer: tokenizerSpec,
  tasks: [],
  training: { kind: 'pretrain', command: 'test', seed: 1, steps: 0, trained_on: [] },
  created: '2026-11-20',
  parameters: 0,
});

describe('checkpoints', () => {
  it('round-trips weights through safetensors exactly', () => {
    const w = initParams(cfg, 3);
    const bytes = saveWeights(cfg, w, { name: 'x' });
    const back = loadWeights(manifest, bytes);
    for (const [k, v] of w) expect(Array.from(back.get(k)!)).toEqual(Array.from(v));
    expect(readSafetensors(bytes).metadata.name).toBe('x');
  });

  const good = saveWeights(cfg, initParams(cfg, 3));
  const header = (bytes: Uint8Array) => Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const withHeader = (
    edit: (h: Record<string, { dtype: string; shape: number[]; data_offsets: number[] }>) => void,
  ) => {
    const n = header(good);
    const h = JSON.parse(new TextDecoder().decode(good.subarray(8, 8 + n)));
    edit(h);
    const t = new Map<string, { shape: number[]; data: Float32Array }>();
    // rebuild with the edited header but the original data section
    const json = new TextEncoder().encode(JSON.stringify(h));
    const out = new Uint8Array(8 + json.length + good.length - 8 - n);
    new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
    out.set(json, 8);
    out.set(good.subarray(8 + n), 8 + json.length);
    void t;
    return out;
  };

  it.each([
    ['a 0-byte file', new Uint8Array(0), /empty \(0 bytes\)/],
    ['a truncated file', good.subarray(0, good.length - 100), /truncated: tensor ".*" ends at byte/],
    [
      'a file of random bytes',
      Uint8Array.from({ length: 4096 }, (_, i) => new Rng(i).nextU32() & 255),
      /not a safetensors file/,
    ],
    [
      'a wrong header',
      Uint8Array.from([...new Uint8Array(8).fill(0), ...new TextEncoder().encode('hello')]),
      /not a safetensors file/,
    ],
    // F16 and BF16 are read (widened to F32); an integer dtype is not a weight format.
    [
      'a wrong dtype',
      withHeader((h) => (h['wte']!.dtype = 'I32')),
      /tensor "wte": dtype "I32" is not supported \(expected F32, BF16 or F16\)/,
    ],
    [
      'a wrong shape',
      withHeader((h) => (h['wte']!.shape = [h['wte']!.shape[1]!, h['wte']!.shape[0]!])),
      /tensor "wte" has shape \[32,102\], the model needs \[102,32\]/,
    ],
  ])('rejects %s with a clear message', (_what, bytes, message) => {
    expect(() => loadWeights(manifest, bytes)).toThrow(message);
  });

  it('rejects weights from another model (manifest mismatch) and keeps the loaded model', async () => {
    const other = saveWeights(modelPresets.tiny, initParams(modelPresets.tiny, 1));
    expect(() => loadWeights(manifest, other)).toThrow(
      /does not match its manifest: tensor "wte" has shape \[102,64\], the model needs \[102,32\]/,
    );
    const policy = await Policy.create(createNodeBackend(1), cfg, layout, initParams(cfg, 3));
    const before = await policy.getWeights();
    const bad = initParams(cfg, 3);
    bad.delete('wte');
    expect(() => policy.setWeights(bad)).toThrow(/missing tensor "wte"/);
    const after = await policy.getWeights();
    for (const [k, v] of before) expect(Array.from(after.get(k)!)).toEqual(Array.from(v));
    await policy.dispose();
  });

  it('rejects a manifest that is not ours, naming the field', () => {
    expect(() => validateManifest({ format: 'x' })).toThrow(/"format" must be "rlvr-playground-checkpoint"/);
    expect(() => validateManifest({ ...manifest, model: { ...cfg, dModel: -1 } })).toThrow(
      /model\.dModel must be a positive integer/,
    );
  });

  it(
    'exports a standalone ONNX inference model that onnxruntime loads on its own and that matches the ' + 'policy',
    async () => {
      const w = initParams(cfg, 9);
      const T = layout.promptLen + layout.completionLen;
      const bytes = exportInferenceModel(cfg, w, 2, T);
      const session = await ort.InferenceSession.create(bytes);
      expect([...session.inputNames].sort()).toEqual(['key_bias', 'positions', 'tokens']);
      const prompts = [encode('12+3='), encode('7-2=')];
      const comps = [encode('<think>5</think>'), encode('<answer>5</answer>')];
      const b = pack(layout, prompts, comps);
      const out = await session.run({
        tokens: new ort.Tensor('int64', b.tokens, [2, T]),
        positions: new ort.Tensor('int64', b.positions, [2, T]),
        key_bias: new ort.Tensor('float32', b.keyBias, [2, T]),
      });
      const logits = out['logits']!.data as Float32Array;
      const policy = await Policy.create(createNodeBackend(1), cfg, layout, w);
      const scores = await policy.score(prompts, comps, 1);
      // log-softmax of the exported logits at the predicting column equals the policy's score.
      const V = cfg.vocabSize;
      comps.forEach((c, r) =>
        c.forEach((tok, i) => {
          const col = layout.promptLen - 1 + i;
          const row = logits.subarray((r * T + col) * V, (r * T + col + 1) * V);
          const mx = Math.max(...row);
          const lse = mx + Math.log(row.reduce((s, v) => s + Math.exp(v - mx), 0));
          expect(Math.abs(row[tok]! - lse - scores.logp[r]![i]!)).toBeLessThan(1e-4);
        }),
      );
      expect(paramSpecs(cfg).length).toBeGreaterThan(0);
      await policy.dispose();
    },
  );
});
