// `rlvr import --format hf`, run as a user runs it (the real CLI on real files): the way back from
// `rlvr export --format hf`. An unchanged export must come back as the very checkpoint it was made
// from, byte for byte; changed weights must come back exactly, under a manifest that says they were
// trained elsewhere; a folder with another vocabulary, tokenizer or shape must be refused with a
// message that names what differs, and nothing written.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../model/checkpoint.ts';
import { readSafetensors, writeSafetensors } from '../model/safetensors.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-import-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const FAMILIES = ['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain'];

async function rlvr(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run('node', ['scripts/rlvr.mjs', ...args], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

async function exportHf(family: string): Promise<string> {
  const dir = join(tmp, `${family}-hf`);
  if (!existsSync(dir)) {
    const r = await rlvr(
      'export',
      '--format',
      'hf',
      '--model',
      join(root, `public/checkpoints/${family}-tiny/manifest.json`),
      '--out',
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
  }
  return dir;
}

/** A copy of the sat export with one file changed by `edit`. */
async function edited(tag: string, edit: (dir: string) => void): Promise<string> {
  const dir = join(tmp, `edited-${tag}`);
  cpSync(await exportHf('sat'), dir, { recursive: true });
  edit(dir);
  return dir;
}

const editJson = (path: string, f: (o: Record<string, unknown>) => void) => {
  const o = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  f(o);
  writeFileSync(path, JSON.stringify(o));
};

const editTensors = (path: string, f: (t: Map<string, { shape: number[]; data: Float32Array }>) => void) => {
  const { tensors, metadata } = readSafetensors(new Uint8Array(readFileSync(path)));
  f(tensors);
  writeFileSync(path, writeSafetensors(tensors, metadata));
};

describe('rlvr import --format hf', () => {
  it.each(FAMILIES.map((f) => [f]))(
    'gives back the exported %s-tiny checkpoint byte for byte (manifest.json and model.safetensors)',
    async (family) => {
      const out = join(tmp, `${family}-back`);
      const r = await rlvr('import', '--format', 'hf', await exportHf(family), '--out', out);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        out,
        manifest: join(out, 'manifest.json'),
        model: `${family}-tiny`,
        unchanged: true,
      });
      const shipped = join(root, `public/checkpoints/${family}-tiny`);
      expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(
        readFileSync(join(shipped, 'manifest.json'), 'utf8'),
      );
      expect(
        Buffer.compare(readFileSync(join(out, 'model.safetensors')), readFileSync(join(shipped, 'model.safetensors'))),
      ).toBe(0);
    },
  );

  it(
    "imports changed weights exactly, under a manifest that names the import and drops the base's measured " +
      'figures',
    async () => {
      const dir = await edited('trained', (d) =>
        editTensors(join(d, 'model.safetensors'), (t) => {
          const q = t.get('transformer.h.1.attn.c_attn.weight')!.data;
          q[5] = q[5]! + 0.25; // a q weight of layer 1
          t.get('transformer.h.0.attn.c_attn.bias')!.data[64 * 2 + 3] = -1.5; // a v bias of layer 0
        }),
      );
      const out = join(tmp, 'trained-back');
      const r = await rlvr('import', '--format', 'hf', dir, '--out', out, '--name', 'sat-trl');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ model: 'sat-trl', unchanged: false, tasks: ['sat'] });
      const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;
      const base = JSON.parse(
        readFileSync(join(root, 'public/checkpoints/sat-tiny/manifest.json'), 'utf8'),
      ) as Manifest;
      expect(m).toMatchObject({
        name: 'sat-trl',
        weights: 'model.safetensors',
        model: base.model,
        layout: base.layout,
        tokenizer: base.tokenizer,
        recipe: base.recipe,
        parameters: base.parameters,
      });
      expect(m.tasks).toEqual([{ ...base.tasks[0], pass_at_k: {} }]);
      expect(m.training.command).toMatch(/rlvr import --format hf.*from sat-tiny/);
      expect(m.rl_gain).toBeUndefined();
      const ours = readSafetensors(new Uint8Array(readFileSync(join(out, 'model.safetensors')))).tensors;
      const before = readSafetensors(
        new Uint8Array(readFileSync(join(root, 'public/checkpoints/sat-tiny/model.safetensors'))),
      ).tensors;
      // Only the two edited numbers differ: c_attn's row 0, column 5 is wq[0][5] of layer 1; bias 131 is bv[3] of layer
      // 0.
      for (const [name, t] of ours) {
        const b = before.get(name)!.data;
        const diff = [...t.data.keys()].filter((i) => !Object.is(t.data[i], b[i]));
        if (name === 'h1.attn.wq') expect(diff).toEqual([5]);
        else if (name === 'h0.attn.bv') {
          expect(diff).toEqual([3]);
          expect(t.data[3]).toBe(-1.5);
        } else expect(diff, name).toEqual([]);
      }
      expect(ours.get('h1.attn.wq')!.data[5]).toBe(Math.fround(before.get('h1.attn.wq')!.data[5]! + 0.25));
    },
  );

  const refusals: [string, (d: string) => void, RegExp][] = [
    [
      'another vocabulary size',
      (d) => editJson(join(d, 'config.json'), (c) => (c.vocab_size = 50257)),
      /config\.json: vocab_size is 50257, but the playground's tokenizer has 102 tokens/,
    ],
    [
      'another tokenizer (two ids swapped)',
      (d) =>
        editJson(join(d, 'tokenizer.json'), (t) => {
          const v = (t.model as { vocab: Record<string, number> }).vocab;
          [v['a'], v['b']] = [v['b']!, v['a']!];
        }),
      /tokenizer\.json: token "a" has id 73, the playground's tokenizer gives it 72; this is another tokenizer/,
    ],
    [
      'no tokenizer.json',
      (d) => rmSync(join(d, 'tokenizer.json')),
      /tokenizer\.json is missing: the import needs it to check that the vocabulary is the playground's/,
    ],
    [
      'another width in config.json',
      (d) => editJson(join(d, 'config.json'), (c) => ((c.n_embd = 128), (c.n_inner = 512))),
      new RegExp(
        String.raw`model\.safetensors: tensor "transformer\.wte\.weight" has shape \[102,64\], ` +
          String.raw`but config\.json's model \(n_embd 128, n_inner 512.*needs \[102,128\]`,
      ),
    ],
    [
      'another MLP width in the weights',
      (d) =>
        editTensors(join(d, 'model.safetensors'), (t) =>
          t.set('transformer.h.2.mlp.c_fc.bias', { shape: [128], data: new Float32Array(128) }),
        ),
      /tensor "transformer\.h\.2\.mlp\.c_fc\.bias" has shape \[128\].*needs \[256\]/,
    ],
    [
      'a layer more than config.json says',
      (d) =>
        editTensors(join(d, 'model.safetensors'), (t) =>
          t.set('transformer.h.4.ln_1.weight', { shape: [64], data: new Float32Array(64) }),
        ),
      /unexpected tensor "transformer\.h\.4\.ln_1\.weight" \(config\.json's n_layer is 4/,
    ],
    [
      'the tanh GELU',
      (d) => editJson(join(d, 'config.json'), (c) => (c.activation_function = 'gelu_new')),
      /activation_function is "gelu_new"; the playground's transformer uses the exact \(erf\) GELU/,
    ],
    [
      'an untied head',
      (d) =>
        editTensors(join(d, 'model.safetensors'), (t) =>
          t.set('lm_head.weight', { shape: [102, 64], data: new Float32Array(102 * 64) }),
        ),
      /lm_head\.weight differs from transformer\.wte\.weight; the playground ties its output head/,
    ],
    [
      'another architecture',
      (d) => editJson(join(d, 'config.json'), (c) => (c.model_type = 'gpt_neox')),
      new RegExp(
        String.raw`model_type is "gpt_neox" \(architectures \["GPT2LMHeadModel"\]\), ` +
          'an unsupported architecture; the import reads "gpt2"',
      ),
    ],
    [
      'a GPT-2 folder labelled Llama',
      (d) => editJson(join(d, 'config.json'), (c) => (c.model_type = 'llama')),
      /config\.json: architectures is \["GPT2LMHeadModel"\]; a llama folder is read as LlamaForCausalLM only/,
    ],
  ];
  it.each(refusals)('refuses %s, saying why, and writes nothing', async (tag, edit, message) => {
    const dir = await edited(tag.replace(/\W+/g, '-'), edit);
    const out = join(tmp, `refused-${tag.replace(/\W+/g, '-')}`);
    const r = await rlvr('import', '--format', 'hf', dir, '--out', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rlvr import: cannot import .*: /);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it("writes the weights only inside --out, whatever name config.json's manifest gives them", async () => {
    const dir = await edited('weights-path', (d) =>
      editJson(
        join(d, 'config.json'),
        (c) => ((c.rlvr_playground as { manifest: Manifest }).manifest.weights = '../outside.safetensors'),
      ),
    );
    const out = join(tmp, 'weights-path-back');
    const r = await rlvr('import', '--format', 'hf', dir, '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).weights).toBe('model.safetensors');
    expect(existsSync(join(out, 'model.safetensors'))).toBe(true);
    expect(existsSync(join(tmp, 'outside.safetensors'))).toBe(false);
  });

  it('refuses bad flags and keeps an existing checkpoint in --out', async () => {
    const dir = await exportHf('sort');
    expect((await rlvr('import', '--format', 'gguf', dir, '--out', join(tmp, 'x'))).stderr).toMatch(
      /--format must be hf or peft, got "gguf"/,
    );
    expect((await rlvr('import', '--format', 'hf', '--out', join(tmp, 'x'))).stderr).toMatch(
      /give one folder to import \(DIR\), got none/,
    );
    const file = join(dir, 'config.json');
    expect((await rlvr('import', '--format', 'hf', file, '--out', join(tmp, 'x'))).stderr).toMatch(/is not a folder/);
    const out = join(tmp, 'sort-back-twice');
    expect((await rlvr('import', '--format', 'hf', dir, '--out', out)).code).toBe(0);
    const before = readFileSync(join(out, 'manifest.json'), 'utf8');
    const again = await rlvr('import', '--format', 'hf', dir, '--out', out);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /already holds a checkpoint \(manifest\.json\); choose another folder, nothing was written/,
    );
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(before);
  });
});
