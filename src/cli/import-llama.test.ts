// Llama and Qwen2 folders made by the real transformers and tokenizers (scripts/hf_llama_fixture.py:
// random initialisation, a byte-level BPE tokenizer trained there), imported with `rlvr import --format
// hf` and scored with `rlvr score` as a user runs them: the engine's logits and log-probs equal
// transformers' (float32, within 1e-4), the tokens equal the real `tokenizers`' on a thousand strings,
// and a folder the engine cannot run is refused naming the field, with nothing written.
//
// The Python side comes from scripts/setup-python.sh (.venv-py, from this machine's local wheels).
// Where the wheels are missing it exits 3: these tests then print a banner and are reported as
// skipped, never passed.
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { compile } from '../engine/compile.ts';
import { Graph } from '../engine/graph.ts';
import { BpeTokenizer } from '../model/bpe-tokenizer.ts';
import { importHuggingFace } from '../model/hf-import.ts';
import { readSafetensors } from '../model/safetensors.ts';
import { MASKED, declareParams, forward } from '../model/transformer.ts';
import { readCheckpoint } from '../node/checkpoint-files.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-import-llama-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const TOL = 1e-4;

interface Reference {
  vocab_size: number;
  lines: { ids: number[]; logprobs: (number | null)[] }[];
  logits: { ids: number[]; offset: number }[]; // transformers' logits [T, V] at `offset` in logits.f32
  strings: { text: string; ids: number[]; decoded: string }[];
  chat: { messages: { role: string; content: string }[]; text: string };
}

let python: string | null = null;
let missing = '';

function banner(lines: string[]): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n\n`);
}

function needPython(ctx: TestContext): string {
  if (!python) {
    banner([`SKIPPED: ${ctx.task.name}`, `the Llama/Qwen2 parity tests did not run: ${missing}`]);
    ctx.skip();
  }
  return python!;
}

async function rlvr(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run('node', ['scripts/rlvr.mjs', ...args], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

const fixtures = new Map<string, Promise<string>>();

/** The folder scripts/hf_llama_fixture.py writes for these arguments (made once per run). */
function fixture(py: string, name: string, args: string[]): Promise<string> {
  if (!fixtures.has(name)) {
    const dir = join(tmp, name);
    const env = {
      ...process.env,
      HF_HOME: join(tmp, 'hf-home'),
      HF_HUB_OFFLINE: '1',
      TRANSFORMERS_OFFLINE: '1',
      OMP_NUM_THREADS: '1',
      TOKENIZERS_PARALLELISM: 'false',
    };
    fixtures.set(
      name,
      run(py, ['scripts/hf_llama_fixture.py', dir, ...args], {
        cwd: root,
        env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 600_000,
      }).then(() => dir),
    );
  }
  return fixtures.get(name)!;
}

const reference = (dir: string) => JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference;

/** The engine's logits [T, V] for one sequence, on onnxruntime-node, from the imported checkpoint. */
async function engineLogits(manifestPath: string, ids: number[]): Promise<Float32Array> {
  const { manifest, weights } = readCheckpoint(manifestPath);
  const c = manifest.model;
  const t = ids.length;
  const g = new Graph({ forwardOnly: true });
  const p = declareParams(g, c);
  g.output(
    forward(
      g,
      c,
      p,
      g.input('tokens', 'int64', [1, t]),
      g.input('positions', 'int64', [1, t]),
      g.input('key_bias', 'float32', [1, t]),
    ),
    'logits',
  );
  const be = createNodeBackend(1);
  const session = await be.createSession(compile(g));
  const feeds = Object.fromEntries(
    [...weights].map(([n, w]) => [n, be.tensor('float32', w, g.inputs.find((x) => x.name === n)!.shape)]),
  );
  const res = await session.run({
    ...feeds,
    tokens: be.tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, t]),
    positions: be.tensor('int64', BigInt64Array.from(ids.map((_, i) => BigInt(i))), [1, t]),
    key_bias: be.tensor('float32', new Float32Array(t), [1, t]),
  });
  const out = (await be.read(res['logits']!)) as Float32Array;
  await session.release();
  expect(MASKED).toBeLessThan(0);
  return out;
}

beforeAll(() => {
  const r = spawnSync('bash', ['scripts/setup-python.sh'], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.status === 3) {
    missing = r.stderr.trim().split('\n').pop() ?? 'scripts/setup-python.sh exited 3';
    banner([
      'THE LLAMA/QWEN2 PARITY TESTS ARE SKIPPED: the Python wheels (torch, transformers, tokenizers) are missing.',
      missing,
      'src/cli/import-llama.test.ts did NOT compare the engine with transformers.',
    ]);
    return;
  }
  if (r.status !== 0) throw new Error(`scripts/setup-python.sh failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
  python = resolve(root, r.stdout.trim().split('\n').pop()!);
}, 660_000);

const CASES = [
  {
    name: 'llama',
    what: 'Llama: GQA 6/2 heads, untied head, BOS added by the post-processor, 17 safetensors shards',
    args: ['--arch', 'llama', '--shard-size', '20KB'],
  },
  {
    name: 'qwen2',
    what: 'Qwen2: q/k/v biases, tied embeddings, Qwen2 pre-tokenizer with NFC, one model.safetensors',
    args: ['--arch', 'qwen2', '--tied'],
  },
  {
    name: 'smollm2-135m',
    what: 'the SmolLM2-135M shape: hidden 576, 30 layers, 9/3 heads, intermediate 1536, vocab 49152, rope_theta 100000, tied',
    args: ['--arch', 'llama', '--shape', 'smollm2-135m', '--tied'],
  },
];

describe.each(CASES)('a $name folder made by transformers', ({ name, what, args }) => {
  it(`imports with rlvr import --format hf and rlvr score gives transformers' tokens and log-probs (${what})`, async (ctx) => {
    const dir = await fixture(needPython(ctx), name, args);
    const out = join(tmp, `${name}-ckpt`);
    const imp = await rlvr('import', '--format', 'hf', dir, '--out', out);
    expect(imp.code, imp.stderr).toBe(0);
    for (const f of [
      'manifest.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
      'chat_template.jinja',
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
    const scored = await rlvr('score', '--model', join(out, 'manifest.json'), '--text-file', join(dir, 'lines.txt'));
    expect(scored.code, scored.stderr).toBe(0);
    const got = scored.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ids: number[]; logprobs: (number | null)[] });
    const ref = reference(dir);
    expect(got).toHaveLength(ref.lines.length);
    let maxDiff = 0;
    got.forEach((row, i) => {
      expect(row.ids, `line ${i + 1}`).toEqual(ref.lines[i]!.ids);
      expect(row.logprobs.length).toBe(row.ids.length);
      row.logprobs.forEach((lp, k) => {
        const want = ref.lines[i]!.logprobs[k]!;
        if (k === 0) expect(lp).toBeNull();
        else maxDiff = Math.max(maxDiff, Math.abs(lp! - want));
      });
    });
    process.stdout.write(
      `${name}: rlvr score log-probs, max |diff| to transformers = ${maxDiff.toExponential(2)} over ${got.length} lines\n`,
    );
    expect(maxDiff).toBeLessThan(TOL);
  }, 600_000);

  it("the engine's logits equal transformers' (float32)", async (ctx) => {
    const dir = await fixture(needPython(ctx), name, args);
    const out = join(tmp, `${name}-ckpt-logits`);
    expect((await rlvr('import', '--format', 'hf', dir, '--out', out)).code).toBe(0);
    let maxDiff = 0;
    const ref = reference(dir);
    const bytes = readFileSync(join(dir, 'logits.f32'));
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    expect(ref.logits.length).toBeGreaterThan(0);
    for (const { ids, offset } of ref.logits) {
      const got = await engineLogits(join(out, 'manifest.json'), ids);
      expect(got.length).toBe(ids.length * ref.vocab_size);
      got.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - all[offset + i]!))));
    }
    process.stdout.write(`${name}: logits, max |diff| to transformers = ${maxDiff.toExponential(2)}\n`);
    expect(maxDiff).toBeLessThan(TOL);
  }, 600_000);

  const tokenizerTest =
    'tokenizes a thousand strings (Unicode, special tokens) as the real tokenizers does, ' +
    "and renders transformers' chat template";
  it(tokenizerTest, async (ctx) => {
    const dir = await fixture(needPython(ctx), name, args);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const tok = new BpeTokenizer(
      JSON.parse(read('tokenizer.json')),
      JSON.parse(read('tokenizer_config.json')),
      read('chat_template.jinja'),
    );
    const ref = reference(dir);
    expect(ref.strings).toHaveLength(1000);
    expect(ref.strings.some((s) => s.text.includes('<|im_end|>'))).toBe(true);
    expect(ref.strings.some((s) => /\p{Extended_Pictographic}/u.test(s.text))).toBe(true);
    let agree = 0;
    const firstDiff: string[] = [];
    for (const s of ref.strings) {
      const ids = tok.encode(s.text);
      const same = ids.length === s.ids.length && ids.every((x, i) => x === s.ids[i]) && tok.decode(ids) === s.decoded;
      if (same) agree++;
      else if (firstDiff.length < 3)
        firstDiff.push(`${JSON.stringify(s.text)}: ours ${JSON.stringify(ids)}, tokenizers ${JSON.stringify(s.ids)}`);
    }
    process.stdout.write(`${name}: tokenizer agreement ${agree}/${ref.strings.length}\n`);
    expect(firstDiff, firstDiff.join('\n')).toEqual([]);
    expect(tok.applyChatTemplate(ref.chat.messages, true)).toBe(ref.chat.text);
  }, 600_000);
});

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
  it('and an imported Llama is refused where the character-level path would misread it (the GPT-2 export)', async (ctx) => {
    const dir = await fixture(needPython(ctx), 'llama', CASES[0]!.args);
    const ckpt = join(tmp, 'llama-ckpt-guard');
    expect((await rlvr('import', '--format', 'hf', dir, '--out', ckpt)).code).toBe(0);
    const r = await rlvr(
      'export',
      '--format',
      'hf',
      '--model',
      join(ckpt, 'manifest.json'),
      '--out',
      join(tmp, 'never'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /is a Llama checkpoint with its own tokenizer \(tokenizer\.json\); rlvr export --format hf/,
    );
    expect(existsSync(join(tmp, 'never'))).toBe(false);
  }, 600_000);

  it("and the page's import (GPT-2 only) refuses a Llama folder, pointing to rlvr import", async (ctx) => {
    const dir = await fixture(needPython(ctx), 'llama', CASES[0]!.args);
    const folder = new Map([['config.json', new Uint8Array(readFileSync(join(dir, 'config.json')))]]);
    expect(() => importHuggingFace(folder)).toThrow(/a Llama\/Qwen2 folder, which `rlvr import --format hf` reads/);
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
