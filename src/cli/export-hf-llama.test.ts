// `rlvr export --format hf` of a Llama or Qwen2 checkpoint, as a user leaves with what they trained here:
// folders made by the real transformers (scripts/hf_llama_fixture.py), imported with `rlvr import --format
// hf`, with and without LoRA, exported, and loaded back by the real transformers' AutoTokenizer and
// AutoModelForCausalLM (scripts/hf_export_reference.py): its tokens and per-token log-probs equal `rlvr
// score` of the checkpoint within 1e-4. The LoRA is an adapter the real PEFT 0.21 saved (its lora_B random:
// a fresh one is zero), brought in with `rlvr import --format peft`; the exported weights equal PEFT's own
// merge_and_unload(). A run whose rewards were all zero (`rlvr train` on the random model) leaves every
// lora_B zero, and both exports say so.
//
// The Python side comes from scripts/setup-python.sh; without its wheels these tests print a banner
// and are skipped, never passed (llama-fixture.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSafetensors } from '../model/safetensors.ts';
import { CASES, fixture, needPython, ok, rlvr, root, run, setupPython, tmp, type ScoredLine } from './llama-fixture.ts';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(setupPython, 660_000);

const TOL = 1e-4;
const pyEnv = {
  ...process.env,
  HF_HOME: join(tmp, 'hf-home'),
  HF_HUB_OFFLINE: '1',
  TRANSFORMERS_OFFLINE: '1',
  OMP_NUM_THREADS: '1',
  TOKENIZERS_PARALLELISM: 'false',
};

interface TheirRow extends ScoredLine {
  tokenized: number[];
  other_tokenized?: number[];
}

/** `rlvr score` of the lines under `manifest`: each line's ids and log-probs. */
async function score(manifest: string, lines: string): Promise<ScoredLine[]> {
  const r = await rlvr('score', '--model', manifest, '--text-file', lines);
  ok(r);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ScoredLine);
}

/**
 * transformers on an exported folder: the class it built, each of `ours`' id rows' log-probs, and each line
 * as its AutoTokenizer (and `other`'s) tokenizes it; with the largest |log-prob difference| to `ours`.
 */
async function transformersOn(
  py: string,
  folder: string,
  lines: string,
  ours: ScoredLine[],
  other?: string,
): Promise<{ model: { class: string; tied: boolean }; rows: TheirRow[]; worst: number }> {
  const idsFile = join(folder, '..', `${folder.split('/').pop()}.ids.json`);
  writeFileSync(idsFile, JSON.stringify(ours.map((o) => o.ids)));
  const r = await run(
    py,
    ['scripts/hf_export_reference.py', 'logprobs', folder, lines, idsFile, ...(other ? [other] : [])],
    {
      cwd: root,
      env: pyEnv,
      maxBuffer: 64 << 20,
      timeout: 300_000,
    },
  );
  const theirs = JSON.parse(r.stdout) as { model: { class: string; tied: boolean }; rows: TheirRow[] };
  expect(theirs.rows).toHaveLength(ours.length);
  let worst = 0;
  ours.forEach((o, i) =>
    o.logprobs.forEach((x, t) => {
      const want = theirs.rows[i]!.logprobs[t];
      if (want === null) return expect(x).toBeNull();
      worst = Math.max(worst, Math.abs(x! - want!));
    }),
  );
  return { ...theirs, worst };
}

const EXPORTED = [
  'config.json',
  'model.safetensors',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'chat_template.jinja',
  'README.md',
];

describe.each(CASES.slice(0, 2))('rlvr export --format hf of a $name checkpoint', ({ name, what, args }) => {
  const architecture = name === 'qwen2' ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM';

  const plainTest = `without LoRA: transformers loads the folder as ${architecture} and gives rlvr score's log-probs`;
  it(`${plainTest} (${what})`, async (ctx) => {
    const py = needPython(ctx);
    const dir = await fixture(py, name, args);
    const base = join(tmp, `${name}-base`);
    ok(await rlvr('import', '--format', 'hf', dir, '--out', base));
    const out = join(tmp, `${name}-export`);
    const exp = await rlvr('export', '--format', 'hf', '--model', join(base, 'manifest.json'), '--out', out);
    ok(exp);
    expect(exp.stderr).not.toMatch(/LoRA/);
    for (const f of EXPORTED) expect(existsSync(join(out, f)), f).toBe(true);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    const original = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    for (const k of ['architectures', 'model_type', 'hidden_size', 'num_key_value_heads', 'tie_word_embeddings'])
      expect(config[k], k).toEqual(original[k]);
    expect(readFileSync(join(out, 'tokenizer.json'), 'utf8')).toBe(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));

    const lines = join(dir, 'lines.txt');
    const ours = await score(join(base, 'manifest.json'), lines);
    const theirs = await transformersOn(py, out, lines, ours, dir);
    expect(theirs.model).toEqual({ class: architecture, tied: original.tie_word_embeddings });
    process.stdout.write(
      `${name}, no LoRA: max |rlvr score - transformers on the export| ${theirs.worst.toExponential(2)} over ` +
        `${ours.length} lines\n`,
    );
    expect(theirs.worst).toBeLessThan(TOL);
    // AutoTokenizer reads the export as it reads the folder the model came from. (transformers 5 reads a
    // qwen2 folder with its Qwen2Tokenizer class, which builds its own pipeline rather than tokenizer.json's,
    // on the original folder too; rlvr score tokenizes by tokenizer.json, as the tokenizers library does.)
    theirs.rows.forEach((row, i) => expect(row.tokenized, `line ${i + 1}`).toEqual(row.other_tokenized));
    if (name === 'llama') theirs.rows.forEach((row, i) => expect(row.tokenized, `line ${i + 1}`).toEqual(ours[i]!.ids));

    // The export imports back as the same model.
    const again = join(tmp, `${name}-again`);
    ok(await rlvr('import', '--format', 'hf', out, '--out', again));
    const model = (p: string) => JSON.parse(readFileSync(join(p, 'manifest.json'), 'utf8')).model;
    expect(model(again)).toEqual(model(base));
  }, 600_000);

  it("with PEFT's LoRA adapter: merged as merge_and_unload, and transformers gives rlvr score's " +
    'log-probs', async (ctx) => {
    const py = needPython(ctx);
    const dir = await fixture(py, name, args);
    const base = join(tmp, `${name}-lora-base`);
    ok(await rlvr('import', '--format', 'hf', dir, '--out', base));
    const peft = join(tmp, `${name}-peft`);
    await run(py, ['scripts/hf_export_reference.py', 'adapter', dir, peft], {
      cwd: root,
      env: pyEnv,
      timeout: 300_000,
    });
    const adapted = join(tmp, `${name}-adapted`);
    ok(
      await rlvr(
        ...['import', '--format', 'peft', join(peft, 'adapter'), '--model', join(base, 'manifest.json')],
        ...['--out', adapted],
      ),
    );
    const out = join(tmp, `${name}-lora-export`);
    const exp = await rlvr('export', '--format', 'hf', '--model', join(adapted, 'manifest.json'), '--out', out);
    ok(exp);
    expect(exp.stderr).not.toMatch(/LoRA B matrix is zero/);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/r = 4, lora_alpha = 8, .* are merged/);

    // The weights are PEFT's merge_and_unload() of the same adapter, tensor for tensor.
    const exported = readSafetensors(new Uint8Array(readFileSync(join(out, 'model.safetensors')))).tensors;
    const merged = readSafetensors(new Uint8Array(readFileSync(join(peft, 'merged', 'model.safetensors')))).tensors;
    expect([...exported.keys()].sort()).toEqual([...merged.keys()].sort());
    let weightDiff = 0;
    for (const [k, t] of merged) {
      expect(exported.get(k)!.shape, k).toEqual(t.shape);
      t.data.forEach((x, i) => (weightDiff = Math.max(weightDiff, Math.abs(x - exported.get(k)!.data[i]!))));
    }
    expect(weightDiff).toBeLessThan(1e-6);

    const lines = join(dir, 'lines.txt');
    const ours = await score(join(adapted, 'manifest.json'), lines);
    const theirs = await transformersOn(py, out, lines, ours);
    expect(theirs.model.class).toBe(architecture);
    const worst = theirs.worst;
    // The adapter matters: the base's log-probs are far from the merged model's.
    const plain = await score(join(base, 'manifest.json'), lines);
    const moved = Math.max(
      ...plain.flatMap((p, i) =>
        p.logprobs.map((x, t) => (x === null ? 0 : Math.abs(x - theirs.rows[i]!.logprobs[t]!))),
      ),
    );
    process.stdout.write(
      `${name}, LoRA merged: max |weight - PEFT merge_and_unload| ${weightDiff.toExponential(2)}, max |rlvr score - ` +
        `transformers on the export| ${worst.toExponential(2)} (the base is ${moved.toExponential(2)} away)\n`,
    );
    expect(worst).toBeLessThan(TOL);
    expect(moved).toBeGreaterThan(1e-2);
  }, 600_000);
});

describe('a LoRA run whose rewards were all zero', () => {
  it('rlvr train on the random Llama leaves every lora_B zero, and both exports warn on stderr and in ' +
    'README.md', async (ctx) => {
    const py = needPython(ctx);
    const { name, args } = CASES[0]!;
    const dir = await fixture(py, name, args);
    const base = join(tmp, 'zero-base');
    ok(await rlvr('import', '--format', 'hf', dir, '--out', base));
    const runDir = join(tmp, 'zero-run');
    ok(
      await rlvr(
        ...['train', '--task', 'sat', '--preset', 'grpo', '--steps', '2', '--seed', '3', '--out', runDir],
        ...['--model', join(base, 'manifest.json'), '--set', 'prompts_per_step=2', '--set', 'num_generations=4'],
        ...['--set', 'lora_r=4', '--set', 'eval_every=0', '--set', 'max_completion_length=16'],
      ),
    );
    const rewards = readFileSync(join(runDir, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { reward: number }).reward);
    expect(new Set(rewards)).toEqual(new Set([0]));
    const warning =
      /every LoRA B matrix is zero: the adapters change nothing — did the run get any reward\? \(21 adapters/;
    for (const format of ['hf', 'peft']) {
      const out = join(tmp, `zero-${format}`);
      const r = await rlvr('export', '--format', format, '--model', join(runDir, 'manifest.json'), '--out', out);
      ok(r);
      expect(r.stderr, format).toMatch(warning);
      expect(readFileSync(join(out, 'README.md'), 'utf8'), format).toMatch(warning);
    }
  }, 600_000);
});
