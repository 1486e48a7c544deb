// `rlvr import --format hf` refuses a Llama or Qwen2 folder (made by the real transformers and
// tokenizers, scripts/hf_llama_fixture.py, then edited) that the engine cannot run, naming the field or
// file and writing nothing; and it reads the half-precision safetensors released models ship.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importHuggingFace } from '../model/hf-import.ts';
import { readSafetensors } from '../model/safetensors.ts';
import { CASES, fixture, needPython, rlvr, root, run, setupPython, tmp } from './llama-fixture.ts';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(setupPython, 660_000);

describe('safetensors in the dtypes released models use', () => {
  it('BF16 and F16 tensors written by torch read as the float32 values torch widens them to', async (ctx) => {
    const py = needPython(ctx);
    const file = join(tmp, 'halves.safetensors');
    const script = [
      'import json, sys, torch',
      'from safetensors.torch import save_file',
      'torch.manual_seed(0)',
      'x = torch.cat([torch.randn(200) * 3, torch.tensor([0.0, -0.0, 1e-6, 6e-8, -65504.0, 70000.0, 1e-40])])',
      't = {"b": x.to(torch.bfloat16).reshape(3, 69), "h": x.to(torch.float16).reshape(3, 69)}',
      'save_file(t, sys.argv[1])',
      'print(json.dumps({k: [repr(float(v)) for v in t[k].float().flatten()] for k in t}))',
    ].join('\n');
    const r = await run(py, ['-c', script, file], { cwd: root });
    const want = JSON.parse(r.stdout) as Record<string, string[]>;
    const { tensors } = readSafetensors(new Uint8Array(readFileSync(file)));
    for (const k of ['b', 'h']) {
      const t = tensors.get(k)!;
      expect(t.shape).toEqual([3, 69]);
      const expected = want[k]!.map((v) => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v)));
      expect(Array.from(t.data)).toEqual(expected);
    }
  }, 120_000);
});

type Edit = (dir: string) => void;
const editJson = (path: string, f: (o: Record<string, unknown>) => void) => {
  const o = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  f(o);
  writeFileSync(path, JSON.stringify(o));
};
const config =
  (f: (o: Record<string, unknown>) => void): Edit =>
  (d) =>
    editJson(join(d, 'config.json'), f);

const REFUSALS: { what: string; base: 'llama' | 'qwen2'; edit: Edit; message: RegExp }[] = [
  {
    what: 'an unsupported architecture',
    base: 'llama',
    edit: config((o) => Object.assign(o, { model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'] })),
    message: /model_type is "gpt_neox".*unsupported architecture/,
  },
  {
    what: 'a tokenizer model the import does not run (Unigram, trained by tokenizers)',
    base: 'llama',
    edit: (d) => cpSync(join(d, 'unigram-tokenizer.json'), join(d, 'tokenizer.json')),
    message: /tokenizer\.json: model\.type is "Unigram"; supported: BPE/,
  },
  {
    what: 'shapes that do not match config.json',
    base: 'llama',
    edit: config((o) => (o.intermediate_size = 96)),
    message: /tensor "model\.layers\.0\.mlp\.gate_proj\.weight" has shape \[80,48\].*needs \[96,48\]/,
  },
  {
    what: 'a truncated safetensors shard',
    base: 'llama',
    edit: (d) =>
      truncateSync(
        join(d, 'model-00005-of-00017.safetensors'),
        statSync(join(d, 'model-00005-of-00017.safetensors')).size - 100,
      ),
    message: /model-00005-of-00017\.safetensors: the file is truncated/,
  },
  {
    what: 'a shard the index names that is not there',
    base: 'llama',
    edit: (d) => rmSync(join(d, 'model-00003-of-00017.safetensors')),
    message: /shard "model-00003-of-00017\.safetensors" is not in the folder/,
  },
  {
    what: 'rope scaling',
    base: 'llama',
    edit: config((o) => (o.rope_parameters = { rope_type: 'linear', factor: 2, rope_theta: 500 })),
    message: /rope_parameters\.rope_type is "linear"/,
  },
  {
    what: 'rope_scaling (transformers 4 field)',
    base: 'llama',
    edit: config((o) => (o.rope_scaling = { rope_type: 'dynamic', factor: 2 })),
    message: /rope_scaling is .*dynamic/,
  },
  {
    what: 'another activation',
    base: 'llama',
    edit: config((o) => (o.hidden_act = 'gelu')),
    message: /hidden_act is "gelu"/,
  },
  {
    what: 'attention biases in a Llama',
    base: 'llama',
    edit: config((o) => (o.attention_bias = true)),
    message: /attention_bias is true; LlamaForCausalLM in the engine has no attention biases/,
  },
  {
    what: 'mixture of experts',
    base: 'qwen2',
    edit: config((o) => (o.num_experts = 4)),
    message: /num_experts is 4; mixture-of-experts/,
  },
  {
    what: 'a sliding window in use',
    base: 'qwen2',
    edit: config((o) => Object.assign(o, { use_sliding_window: true, sliding_window: 16 })),
    message: /use_sliding_window is true/,
  },
];

describe('rlvr import --format hf refuses a Llama/Qwen2 folder the engine cannot run, writing nothing', () => {
  it('and an imported Llama leaves `rlvr export --format hf` as a Llama folder, never through the ' +
    'character-level GPT-2 export that would misread its tokens', async (ctx) => {
    const dir = await fixture(needPython(ctx), 'llama', CASES[0]!.args);
    const ckpt = join(tmp, 'llama-ckpt-guard');
    expect((await rlvr('import', '--format', 'hf', dir, '--out', ckpt)).code).toBe(0);
    const out = join(tmp, 'llama-out');
    const r = await rlvr('export', '--format', 'hf', '--model', join(ckpt, 'manifest.json'), '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { architectures: string[] };
    expect(config.architectures).toEqual(['LlamaForCausalLM']);
    expect(existsSync(join(out, 'tokenizer.json'))).toBe(true);
  }, 600_000);

  it('and the GPT-2 reader alone refuses a Llama folder, naming the import that reads it', async (ctx) => {
    const dir = await fixture(needPython(ctx), 'llama', CASES[0]!.args);
    const folder = new Map([['config.json', new Uint8Array(readFileSync(join(dir, 'config.json')))]]);
    expect(() => importHuggingFace(folder)).toThrow(
      /a Llama\/Qwen2 folder, which importAnyHuggingFace .*reads; this is the GPT-2 reader/,
    );
  }, 600_000);

  it.for(REFUSALS)('$what', { timeout: 600_000 }, async ({ base, edit, message }, ctx) => {
    const py = needPython(ctx);
    const src = await fixture(py, base, CASES.find((c) => c.name === base)!.args);
    const dir = mkdtempSync(join(tmp, 'bad-'));
    cpSync(src, dir, { recursive: true });
    edit(dir);
    const out = join(dir, 'out');
    const r = await rlvr('import', '--format', 'hf', dir, '--out', out);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });
});
