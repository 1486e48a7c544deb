// The Llama path as a user runs it, end to end through the CLI: the task's text (`rlvr pretrain
// --corpus`), a byte-level BPE tokenizer trained on it by the real `tokenizers` and a random Llama built
// by the real transformers (scripts/llama_task_model.py), `rlvr import --format hf`, a warm start in the
// model's own tokens (`rlvr pretrain --model MANIFEST`), GRPO with LoRA (`rlvr train --set lora_r=4`),
// and `rlvr eval` of what it wrote. The completions the trainer records decode, by the real
// `tokenizers`, to the text it verified.
//
// The Python side comes from scripts/setup-python.sh; without its wheels these tests print a banner
// and are skipped, never passed (llama-fixture.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needPython, ok, rlvr, root, run, setupPython, tmp } from './llama-fixture.ts';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(setupPython, 660_000);

describe('a Llama with its own BPE tokenizer, trained with GRPO and LoRA in rlvr train', () => {
  it('is built, warm-started in its own tokens, trained with LoRA, and evaluated; the records decode as the ' +
    'real tokenizers decodes them', async (ctx) => {
    const py = needPython(ctx);
    const corpus = join(tmp, 'sat.jsonl');
    ok(await rlvr('pretrain', '--task', 'sat', '--steps', '20', '--batch', '50', '--corpus', corpus));
    expect(readFileSync(corpus, 'utf8').trim().split('\n')).toHaveLength(1000);
    const hf = join(tmp, 'sat-llama');
    const small = ['--hidden', '32', '--layers', '2', '--heads', '2', '--kv-heads', '1', '--intermediate', '64'];
    await run(py, ['scripts/llama_task_model.py', corpus, hf, '--vocab', '300', ...small], {
      cwd: root,
      env: { ...process.env, HF_HUB_OFFLINE: '1', OMP_NUM_THREADS: '1', TOKENIZERS_PARALLELISM: 'false' },
      timeout: 300_000,
    });
    const ck = join(tmp, 'sat-llama-ck');
    ok(await rlvr('import', '--format', 'hf', hf, '--out', ck));

    // Warm start: the SFT loss falls in the model's own tokens, and the checkpoint keeps its tokenizer.
    const sft = join(tmp, 'sat-llama-sft');
    const pre = await rlvr(
      ...['pretrain', '--task', 'sat', '--model', join(ck, 'manifest.json'), '--steps', '30', '--batch', '16'],
      ...['--lr', '0.005', '--eval-prompts', '4', '--eval-n', '2', '--out', sft],
    );
    ok(pre);
    const losses = [...pre.stderr.matchAll(/loss (\d+\.\d+)/g)].map((m) => Number(m[1]));
    expect(losses[losses.length - 1]!).toBeLessThan(losses[0]! * 0.6);
    const sftManifest = JSON.parse(readFileSync(join(sft, 'manifest.json'), 'utf8'));
    expect(sftManifest.model.arch).toBe('llama');
    expect(sftManifest.tokenizer.kind).toBe('hf');
    expect(existsSync(join(sft, 'tokenizer.json'))).toBe(true);

    // GRPO with LoRA.
    const out = join(tmp, 'run');
    ok(
      await rlvr(
        ...['train', '--task', 'sat', '--preset', 'grpo', '--steps', '2', '--seed', '3', '--out', out],
        ...['--model', join(sft, 'manifest.json'), '--set', 'prompts_per_step=2', '--set', 'num_generations=4'],
        ...['--set', 'lora_r=4', '--set', 'eval_every=0', '--set', 'max_completion_length=24'],
      ),
    );
    const trained = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(trained.model.lora).toMatchObject({ r: 4 });
    expect(trained.tokenizer).toEqual(sftManifest.tokenizer);
    for (const f of ['tokenizer.json', 'tokenizer_config.json'])
      expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(hf, f), 'utf8'));

    // Every recorded completion: its text, and each token's, is what the real tokenizers decodes its ids to.
    const rollouts = readFileSync(join(out, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { prompt: string; tokens: number[]; completion: string; tokenText: string[] });
    expect(rollouts).toHaveLength(2 * 2 * 4);
    const eos = trained.tokenizer.eosTokenIds[0];
    const probe = join(tmp, 'probe.json');
    writeFileSync(probe, JSON.stringify(rollouts.map((r) => ({ prompt: r.prompt, tokens: r.tokens }))));
    const py2 = `
import json, sys
from tokenizers import Tokenizer
tok = Tokenizer.from_file(sys.argv[1])
rows = json.load(open(sys.argv[2]))
print(json.dumps([{"decoded": tok.decode(r["tokens"], skip_special_tokens=False), "pieces": [tok.decode([t], \
skip_special_tokens=False) for t in r["tokens"]]} for r in rows]))
`;
    const real = JSON.parse(
      (await run(py, ['-c', py2, join(hf, 'tokenizer.json'), probe], { cwd: root, maxBuffer: 64 << 20 })).stdout,
    ) as { decoded: string; pieces: string[] }[];
    rollouts.forEach((r, i) => {
      expect(r.completion).toBe(real[i]!.decoded);
      expect(r.tokenText).toEqual(real[i]!.pieces);
      expect(r.tokens.every((t) => t >= 0 && t < trained.model.vocabSize)).toBe(true);
      expect(r.tokens.slice(0, -1)).not.toContain(eos);
    });
    // What it wrote is a checkpoint the other commands read, in its own tokenizer.
    const ev = await rlvr('eval', '--model', join(out, 'manifest.json'), '--task', 'sat', '--prompts', '2', '--n', '2');
    ok(ev);
    expect(ev.stdout).toMatch(/pass/);
  }, 900_000);
});
