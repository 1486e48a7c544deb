// The round trip with TRL and PEFT for a Llama-architecture model: a task Llama (scripts/llama_task_model.py:
// a BPE tokenizer trained by the real `tokenizers`, a warm start in PyTorch by the real transformers), the TRL export
// of a LoRA config (`rlvr export --format trl --set lora_r=4`: train_grpo.py passes peft_config) run under
// the real TRL 1.13 + PEFT 0.21 for two steps, and the adapter it saved brought back with `rlvr import
// --format peft` onto the imported base: its log-probs equal PEFT's (PeftModel.from_pretrained) within
// 1e-4, and the engine's greedy continuations are PEFT's generate(do_sample=False). An adapter onto
// another base is refused, naming the tensor, and nothing is written.
//
// The Python side comes from scripts/setup-python.sh; without its wheels these tests print a banner
// and are skipped, never passed (llama-fixture.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { loadPolicy } from '../node/checkpoint-files.ts';
import { decodeRunRecord } from '../record/run-record.ts';
import { Rng } from '../util/rng.ts';
import { fixture, needPython, ok, rlvr, root, run, scoreAgainst, setupPython, tmp } from './llama-fixture.ts';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(setupPython, 660_000);

/** Nothing reaches the network; caches live in the test's folder. */
const pyEnv = {
  ...process.env,
  HF_HOME: join(tmp, 'hf-home'),
  HF_HUB_OFFLINE: '1',
  HF_DATASETS_OFFLINE: '1',
  TRANSFORMERS_OFFLINE: '1',
  WANDB_DISABLED: 'true',
  WANDB_MODE: 'disabled',
  TOKENIZERS_PARALLELISM: 'false',
  OMP_NUM_THREADS: '1',
  PYTHONUNBUFFERED: '1',
};

/** PEFT's per-token log-probs of `lines` and its greedy continuations of `prompts` (8 new tokens). */
const PEFT_REFERENCE = `
import json, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from peft import PeftModel
base_dir, adapter_dir, lines_file, prompts_file = sys.argv[1:5]
torch.set_num_threads(1)
tok = AutoTokenizer.from_pretrained(base_dir)
base = AutoModelForCausalLM.from_pretrained(base_dir, torch_dtype=torch.float32).eval()
model = PeftModel.from_pretrained(base, adapter_dir).eval()
def logprobs(m, ids):
    with torch.no_grad():
        lp = torch.log_softmax(m(torch.tensor([ids])).logits[0].float(), -1)
    return [None] + [lp[t - 1, ids[t]].item() for t in range(1, len(ids))]
lines = [l for l in open(lines_file).read().split("\\n") if l]
scored = []
for line in lines:
    ids = tok(line)["input_ids"]
    with model.disable_adapter():
        plain = logprobs(model, ids)
    scored.append({"ids": ids, "logprobs": logprobs(model, ids), "base_logprobs": plain})
greedy = []
for p in json.load(open(prompts_file)):
    ids = tok(p)["input_ids"]
    with torch.no_grad():
        out = model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long), \
max_new_tokens=8, do_sample=False, pad_token_id=tok.pad_token_id)
    greedy.append({"prompt": ids, "tokens": out[0, len(ids):].tolist()})
print(json.dumps({"lines": scored, "greedy": greedy}))
`;

describe('a LoRA adapter TRL + PEFT trained on a Llama comes back into the playground', () => {
  it('the TRL export with peft_config trains a task Llama under the real TRL; rlvr import --format peft ' +
    "gives PEFT's log-probs (1e-4) and greedy tokens", async (ctx) => {
    const py = needPython(ctx);
    const corpus = join(tmp, 'sat.jsonl');
    const easy = ['--difficulty', '{"n":3,"m":3}'];
    ok(await rlvr('pretrain', '--task', 'sat', ...easy, '--steps', '40', '--batch', '50', '--corpus', corpus));
    const hf = join(tmp, 'sat-llama');
    const small = ['--hidden', '48', '--layers', '2', '--heads', '2', '--kv-heads', '1', '--intermediate', '96'];
    // Warm-started in PyTorch so that TRL's groups get rewards that differ (a random model earns none).
    await run(py, ['scripts/llama_task_model.py', corpus, hf, '--vocab', '300', ...small, '--torch-sft-steps', '400'], {
      cwd: root,
      env: pyEnv,
      timeout: 300_000,
    });

    // The TRL project with LoRA, run by the real TRL on the Llama folder: PEFT's adapter in output_dir.
    const project = join(tmp, 'trl');
    ok(
      await rlvr(
        ...['export', '--format', 'trl', '--task', 'sat', '--out', project, '--set', 'prompts_per_step=2'],
        ...['--set', 'num_generations=4', '--set', 'max_completion_length=40', '--set', 'lora_r=4'],
        ...['--set', 'lora_alpha=8', '--set', 'learning_rate=0.01', '--set', 'warmup_steps=0'],
        ...['--set', 'difficulty.n=3', '--set', 'difficulty.m=3'],
      ),
    );
    expect(readFileSync(join(project, 'train_grpo.py'), 'utf8')).toContain(
      'peft_config = LoraConfig(r=4, lora_alpha=8',
    );
    const out = join(tmp, 'grpo-out');
    await run(py, ['train_grpo.py', '--model', hf, '--steps', '2', '--output_dir', out], {
      cwd: project,
      env: pyEnv,
      timeout: 600_000,
      maxBuffer: 64 << 20,
    });
    const adapterConfig = JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8'));
    expect(adapterConfig).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8 });
    // Its run record opens in the playground, in the Llama's own tokens and text.
    const decoded = await decodeRunRecord(new Uint8Array(readFileSync(join(out, 'run.rlvr.gz'))));
    if (!decoded.ok) throw new Error(decoded.error);
    expect(decoded.record.provenance.base.model).toMatchObject({ architecture: 'LlamaForCausalLM' });
    const rollouts = decoded.record.rollouts.flatMap((s) => s.records);
    expect(rollouts).toHaveLength(2 * 2 * 4);
    expect(rollouts.some((r) => r.reward !== rollouts[0]!.reward)).toBe(true); // the groups earned different rewards
    for (const r of rollouts) expect(r.tokenText.join('')).toContain(r.completion.slice(0, 8));

    // Back: the base imported as it is, then the adapter onto it.
    const base = join(tmp, 'base');
    ok(await rlvr('import', '--format', 'hf', hf, '--out', base));
    const adapted = join(tmp, 'adapted');
    const imported = await rlvr(
      'import',
      '--format',
      'peft',
      out,
      '--model',
      join(base, 'manifest.json'),
      '--out',
      adapted,
    );
    ok(imported);
    expect(JSON.parse(imported.stdout)).toMatchObject({ format: 'peft', lora: { r: 4, alpha: 8 } });

    // PEFT's numbers for the same lines and prompts.
    const lines = [
      'sat 3: 1 -2 -3|-1 2 3|1 2 3<think>-3 -1 2</think><answer>010</answer>',
      'sat 4: 1 3 -4|-1 3 4',
      'x',
    ];
    const prompts = ['sat 3: 1 -2 -3|-1 2 3|1 2 3', 'sat 5: 1 3 4|-2 3 -5|-1 2 -3|-1 -2 5|-2 -3 -5'];
    writeFileSync(join(tmp, 'lines.txt'), lines.join('\n') + '\n');
    writeFileSync(join(tmp, 'prompts.json'), JSON.stringify(prompts));
    const peft = JSON.parse(
      (
        await run(py, ['-c', PEFT_REFERENCE, hf, out, join(tmp, 'lines.txt'), join(tmp, 'prompts.json')], {
          cwd: root,
          env: pyEnv,
          maxBuffer: 64 << 20,
        })
      ).stdout,
    ) as {
      lines: { ids: number[]; logprobs: (number | null)[]; base_logprobs: (number | null)[] }[];
      greedy: { prompt: number[]; tokens: number[] }[];
    };
    // TRL moved the adapter: PEFT's log-probs are not the base's.
    const moved = Math.max(
      ...peft.lines.flatMap((l) => l.logprobs.map((x, t) => (x === null ? 0 : Math.abs(x - l.base_logprobs[t]!)))),
    );
    expect(moved).toBeGreaterThan(1e-3);

    const worst = await scoreAgainst(join(adapted, 'manifest.json'), join(tmp, 'lines.txt'), peft.lines);
    process.stdout.write(
      `TRL + PEFT adapter: max |log-prob - PEFT's| ${worst.toExponential(2)} (the adapter moved them up ` +
        `to ${moved.toExponential(2)})\n`,
    );
    expect(worst).toBeLessThan(1e-4);

    const { policy } = await loadPolicy(join(adapted, 'manifest.json'), createNodeBackend(1));
    try {
      policy.setLayout({ promptLen: 40, completionLen: 8 });
      const got = await policy.sample(
        peft.greedy.map((g) => g.prompt),
        { temperature: 1, topK: 1, topP: 1 },
        8,
        new Rng(0),
      );
      peft.greedy.forEach((g, i) => {
        // Up to and including a stop token, where the engine stops and generate() may not.
        const stop = g.tokens.findIndex((t) => policy.stopTokens.has(t));
        expect(got[i]!.tokens, `prompt ${i}`).toEqual(stop < 0 ? g.tokens : g.tokens.slice(0, stop + 1));
      });
    } finally {
      await policy.dispose();
    }

    // An adapter onto another base (the tiny Llama of the import tests: other widths) is refused; nothing is written.
    const other = await fixture(py, 'llama', ['--arch', 'llama']);
    const otherBase = join(tmp, 'other-base');
    ok(await rlvr('import', '--format', 'hf', other, '--out', otherBase));
    const refused = await rlvr(
      ...['import', '--format', 'peft', out, '--model', join(otherBase, 'manifest.json'), '--out', join(tmp, 'x')],
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      new RegExp(
        String.raw`cannot import .* onto llama-hf-import: adapter_model\.safetensors: ` +
          String.raw`tensor "base_model\.model\.model\.layers\.0\..*lora_[AB]\.weight" has shape \[\d+,\d+\], ` +
          String.raw`this base model needs \[\d+, \d+\] \(an adapter for another base\?\)`,
      ),
    );
    expect(existsSync(join(tmp, 'x', 'manifest.json'))).toBe(false);
  }, 1_200_000);
});
