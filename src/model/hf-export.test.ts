// The Hugging Face export, loaded the way a user would: the CLI writes the folder, transformers.js
// (@huggingface/transformers, real onnxruntime-node sessions) loads its tokenizer and model, and a
// float64 GPT-2 forward written here from Hugging Face's definition reads the safetensors tensors.
// Both must agree with our own tokenizer and scorer on the shipped sat-tiny checkpoint.
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  env,
  Tensor,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../node/checkpoint-files.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { erf } from '../engine/reference.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import { Rng } from '../util/rng.ts';
import type { Manifest } from './checkpoint.ts';
import { Policy } from './policy.ts';
import { readSafetensors } from './safetensors.ts';
import { decode, encode, EOS } from './tokenizer.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const manifestPath = join(root, 'public/checkpoints/sat-tiny/manifest.json');
const out = join(mkdtempSync(join(tmpdir(), 'rlvr-hf-')), 'sat-tiny-hf');
const FAMILIES = ['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain'];

type Tensors = Map<string, { shape: number[]; data: Float32Array }>;

/**
 * GPT-2 as transformers' GPT2LMHeadModel computes it, in float64, for one unpadded sequence:
 * Conv1D weights [in, out] (y = x·W + b), c_attn's output split into q | k | v, heads as contiguous
 * d_head slices, scores / sqrt(d_head), causal mask, exact-erf GELU, LayerNorm with
 * layer_norm_epsilon, and the head tied to wte. Returns the log-softmax of every position.
 */
interface Gpt2Config {
  n_embd: number;
  n_head: number;
  n_layer: number;
  vocab_size: number;
  layer_norm_epsilon: number;
}

function gpt2LogProbs(t: Tensors, cfg: Gpt2Config, ids: number[]): Float64Array[] {
  const { n_embd: d, n_head: nh, n_layer: nl, vocab_size: V, layer_norm_epsilon: eps } = cfg;
  const dh = d / nh;
  const T = ids.length;
  const get = (n: string) => {
    const x = t.get(n);
    if (!x) throw new Error(`safetensors: no tensor "${n}"`);
    return x.data;
  };
  const linear = (x: Float64Array[], pre: string) => {
    const w = get(pre + '.weight');
    const b = get(pre + '.bias');
    const nOut = b.length;
    const nIn = w.length / nOut;
    return x.map((row) => {
      const y = Float64Array.from(b);
      for (let i = 0; i < nIn; i++) for (let o = 0; o < nOut; o++) y[o]! += row[i]! * w[i * nOut + o]!;
      return y;
    });
  };
  const layerNorm = (x: Float64Array[], pre: string) => {
    const g = get(pre + '.weight');
    const b = get(pre + '.bias');
    return x.map((row) => {
      const mean = row.reduce((a, v) => a + v, 0) / d;
      const v = row.reduce((a, x) => a + (x - mean) ** 2, 0) / d;
      return row.map((x, i) => ((x - mean) / Math.sqrt(v + eps)) * g[i]! + b[i]!);
    });
  };
  const wte = get('transformer.wte.weight');
  const wpe = get('transformer.wpe.weight');
  let x = ids.map((id, p) => Float64Array.from({ length: d }, (_, i) => wte[id * d + i]! + wpe[p * d + i]!));
  for (let l = 0; l < nl; l++) {
    const pre = `transformer.h.${l}.`;
    const qkv = linear(layerNorm(x, pre + 'ln_1'), pre + 'attn.c_attn');
    const ctx = x.map(() => new Float64Array(d));
    for (let h = 0; h < nh; h++) {
      const q = (p: number, i: number) => qkv[p]![h * dh + i]!;
      const k = (p: number, i: number) => qkv[p]![d + h * dh + i]!;
      const v = (p: number, i: number) => qkv[p]![2 * d + h * dh + i]!;
      for (let p = 0; p < T; p++) {
        const s = Array.from({ length: p + 1 }, (_, j) => {
          let dot = 0;
          for (let i = 0; i < dh; i++) dot += q(p, i) * k(j, i);
          return dot / Math.sqrt(dh);
        });
        const m = Math.max(...s);
        const e = s.map((z) => Math.exp(z - m));
        const z = e.reduce((a, b) => a + b, 0);
        for (let j = 0; j <= p; j++) for (let i = 0; i < dh; i++) ctx[p]![h * dh + i]! += (e[j]! / z) * v(j, i);
      }
    }
    const attn = linear(ctx, pre + 'attn.c_proj');
    x = x.map((row, p) => row.map((val, i) => val + attn[p]![i]!));
    const hidden = linear(layerNorm(x, pre + 'ln_2'), pre + 'mlp.c_fc').map((row) =>
      row.map((a) => 0.5 * a * (1 + erf(a / Math.SQRT2))),
    );
    const mlp = linear(hidden, pre + 'mlp.c_proj');
    x = x.map((row, p) => row.map((val, i) => val + mlp[p]![i]!));
  }
  return layerNorm(x, 'transformer.ln_f').map((row) => {
    const logits = Float64Array.from({ length: V }, (_, tok) => {
      let s = 0;
      for (let i = 0; i < d; i++) s += row[i]! * wte[tok * d + i]!;
      return s;
    });
    const m = Math.max(...logits);
    const lse = m + Math.log(logits.reduce((a, z) => a + Math.exp(z - m), 0));
    return logits.map((z) => z - lse);
  });
}

let manifest: Manifest;
let policy: Policy;
let tokenizer: PreTrainedTokenizer;
let model: PreTrainedModel;
let prompts: string[];
let completions: number[][];
let ours: number[][];

beforeAll(async () => {
  const { stdout } = await run(
    'node',
    ['scripts/rlvr.mjs', 'export', '--format', 'hf', '--model', manifestPath, '--out', out],
    { cwd: root },
  );
  expect(JSON.parse(stdout).out).toBe(out);
  env.allowRemoteModels = false;
  env.useFSCache = false;
  tokenizer = await AutoTokenizer.from_pretrained(out);
  model = await AutoModelForCausalLM.from_pretrained(out);

  const ckpt = readCheckpoint(manifestPath);
  manifest = ckpt.manifest;
  policy = await Policy.create(createNodeBackend(), manifest.model, manifest.layout, ckpt.weights);
  // Prompts of different lengths (so the batch is padded), completions both references and samples.
  const sat = getTaskFamily('sat');
  const insts = [sat.generate(11, { n: 5, m: 6 }), sat.generate(12, { n: 4, m: 3 }), sat.generate(13, { n: 5, m: 4 })];
  const sampled = await policy.sample(
    insts.map((i) => encode(i.prompt)),
    { temperature: 1, topK: 0, topP: 1 },
    manifest.layout.completionLen,
    new Rng(7),
  );
  prompts = [...insts.map((i) => i.prompt), ...insts.map((i) => i.prompt)];
  completions = [...insts.map((i) => [...encode(i.reference), EOS]), ...sampled.map((c) => c.tokens)];
  ours = (await policy.score(prompts.map(encode), completions)).logp;
});

afterAll(async () => {
  await policy?.dispose();
  await model?.dispose();
});

describe('rlvr export --format hf', () => {
  it('writes a GPT-2 config and the Hugging Face tensor names and layouts', () => {
    const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    const c = manifest.model;
    expect(cfg).toMatchObject({
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu',
      n_positions: c.contextLength,
      n_ctx: c.contextLength,
      n_embd: c.dModel,
      n_layer: c.nLayers,
      n_head: c.nHeads,
      n_inner: c.dFF,
      vocab_size: c.vocabSize,
      layer_norm_epsilon: 1e-5,
      bos_token_id: 1,
      eos_token_id: 1,
      pad_token_id: 0,
      tie_word_embeddings: true,
      embd_pdrop: 0,
      attn_pdrop: 0,
      resid_pdrop: 0,
    });
    const gen = JSON.parse(readFileSync(join(out, 'generation_config.json'), 'utf8'));
    expect(gen).toMatchObject({ eos_token_id: 1, pad_token_id: 0, max_new_tokens: manifest.layout.completionLen });

    const st = readSafetensors(new Uint8Array(readFileSync(join(out, 'model.safetensors'))));
    expect(st.metadata).toEqual({ format: 'pt' });
    const d = c.dModel;
    const want: [string, number[]][] = [
      ['transformer.wte.weight', [c.vocabSize, d]],
      ['transformer.wpe.weight', [c.contextLength, d]],
      ['transformer.ln_f.weight', [d]],
      ['transformer.ln_f.bias', [d]],
    ];
    for (let l = 0; l < c.nLayers; l++) {
      const p = `transformer.h.${l}.`;
      want.push(
        [p + 'ln_1.weight', [d]],
        [p + 'ln_1.bias', [d]],
        [p + 'ln_2.weight', [d]],
        [p + 'ln_2.bias', [d]],
        [p + 'attn.c_attn.weight', [d, 3 * d]],
        [p + 'attn.c_attn.bias', [3 * d]],
        [p + 'attn.c_proj.weight', [d, d]],
        [p + 'attn.c_proj.bias', [d]],
        [p + 'mlp.c_fc.weight', [d, c.dFF]],
        [p + 'mlp.c_fc.bias', [c.dFF]],
        [p + 'mlp.c_proj.weight', [c.dFF, d]],
        [p + 'mlp.c_proj.bias', [d]],
      );
    }
    expect([...st.tensors.keys()].sort()).toEqual(want.map(([n]) => n).sort());
    for (const [n, shape] of want) expect(st.tensors.get(n)!.shape, n).toEqual(shape);
  });

  it('tokenizes like our tokenizer (transformers.js AutoTokenizer on tokenizer.json), every family', () => {
    let checked = 0;
    for (const task of FAMILIES) {
      for (const seed of [1, 2, 3]) {
        const inst = getTaskFamily(task).generate(seed);
        for (const text of [inst.prompt, inst.reference, inst.prompt + inst.reference]) {
          const ids = (tokenizer(text).input_ids as Tensor).tolist()[0]!.map(Number);
          expect(ids, `${task} seed ${seed}: ${text}`).toEqual(encode(text));
          expect(tokenizer.decode(ids)).toBe(decode(ids));
          checked++;
        }
      }
    }
    expect(checked).toBe(FAMILIES.length * 3 * 3);
    // <eos> is an added special token: skip_special_tokens drops it, the tags stay text.
    expect(
      tokenizer.decode([...encode('<think>1</think><answer>0</answer>'), EOS], { skip_special_tokens: true }),
    ).toBe('<think>1</think><answer>0</answer>');
    expect(tokenizer.eos_token_id).toBe(EOS);
  });

  it("transformers.js gives our scorer's next-token log-probs (left-padded batch, ≤ 1e-4)", async () => {
    const texts = prompts.map((p, r) => p + decode(completions[r]!, true));
    const batch = tokenizer(texts, { padding: true });
    const ids = batch.input_ids as Tensor;
    const [rows, len] = ids.dims as [number, number];
    // Prompts of different lengths: some rows are left-padded (position_ids come from attention_mask).
    expect(
      Array.from((batch.attention_mask as Tensor).data as BigInt64Array).filter((m) => m === 0n).length,
    ).toBeGreaterThan(0);
    const { logits } = (await model(batch)) as { logits: Tensor };
    expect(logits.dims).toEqual([rows, len, manifest.model.vocabSize]);
    const V = manifest.model.vocabSize;
    const data = logits.data as Float32Array;
    let maxDiff = 0;
    let tokens = 0;
    for (let r = 0; r < rows; r++) {
      const comp = completions[r]!;
      // Left padding: the completion's last token sits in the last column.
      const firstCol = len - comp.length - 1;
      expect(Number((ids.data as BigInt64Array)[r * len + firstCol])).toBe(encode(prompts[r]!).at(-1));
      comp.forEach((tok, i) => {
        const row = data.subarray((r * len + firstCol + i) * V, (r * len + firstCol + i + 1) * V);
        const m = Math.max(...row);
        const lse = m + Math.log(row.reduce((a, z) => a + Math.exp(z - m), 0));
        maxDiff = Math.max(maxDiff, Math.abs(row[tok]! - lse - ours[r]![i]!));
        tokens++;
      });
    }
    expect(tokens).toBeGreaterThan(60);
    expect(maxDiff).toBeLessThan(1e-4);
  });

  it("the safetensors tensors, run through a float64 GPT-2 forward, give our scorer's log-probs (≤ 1e-4)", () => {
    const st = readSafetensors(new Uint8Array(readFileSync(join(out, 'model.safetensors')))).tensors;
    const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as Gpt2Config;
    let maxDiff = 0;
    prompts.forEach((p, r) => {
      const prompt = encode(p);
      const comp = completions[r]!;
      const lp = gpt2LogProbs(st, cfg, [...prompt, ...comp]);
      comp.forEach(
        (tok, i) => (maxDiff = Math.max(maxDiff, Math.abs(lp[prompt.length - 1 + i]![tok]! - ours[r]![i]!))),
      );
    });
    expect(maxDiff).toBeLessThan(1e-4);
  });

  it('transformers.js generates through its KV cache (past_key_values) what a full forward pass predicts', async () => {
    const input = tokenizer(prompts.slice(0, 3), { padding: true });
    const seqs = (await model.generate({ ...input, max_new_tokens: 24, do_sample: false })) as Tensor;
    const [rows, len] = seqs.dims as [number, number];
    const promptCols = (input.input_ids as Tensor).dims[1]!;
    expect(len).toBeGreaterThan(promptCols);
    const ids = (seqs.tolist() as bigint[][]).map((r) => r.map(Number));
    // Re-score each generated row as one unpadded sequence, up to its first <eos>.
    for (let r = 0; r < rows; r++) {
      const prompt = encode(prompts[r]!);
      const gen = ids[r]!.slice(promptCols);
      const end = gen.indexOf(EOS);
      const kept = end >= 0 ? gen.slice(0, end + 1) : gen;
      expect(kept.length).toBeGreaterThan(3);
      const seq = [...prompt, ...kept];
      const { logits } = (await model({
        input_ids: new Tensor('int64', BigInt64Array.from(seq, BigInt), [1, seq.length]),
        attention_mask: new Tensor('int64', new BigInt64Array(seq.length).fill(1n), [1, seq.length]),
      })) as { logits: Tensor };
      const V = manifest.model.vocabSize;
      const data = logits.data as Float32Array;
      kept.forEach((tok, i) => {
        const row = Array.from(data.subarray((prompt.length - 1 + i) * V, (prompt.length + i) * V));
        expect(row.indexOf(Math.max(...row)), `row ${r} token ${i}`).toBe(tok);
      });
    }
  });

  it('rejects an unknown --format and an --out that is a file, naming them', async () => {
    const fail = async (...args: string[]) => {
      try {
        await run('node', ['scripts/rlvr.mjs', 'export', ...args], { cwd: root });
        return { code: 0, stderr: '' };
      } catch (e) {
        return e as { code: number; stderr: string };
      }
    };
    const bad = await fail('--format', 'gguf', '--model', manifestPath, '--out', out);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be onnx, hf, peft or trl, got "gguf"/);
    const file = join(out, '..', 'not-a-dir');
    writeFileSync(file, 'x');
    const notDir = await fail('--format', 'hf', '--model', manifestPath, '--out', file);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toMatch(/is a file; the Hugging Face export writes a folder/);
  });
});
