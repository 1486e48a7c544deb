// LoRA on the playground's GPT-2 against the real PEFT 0.21: a LoRA checkpoint of the shipped
// arithmetic model (adapters on o_proj, up_proj and down_proj, PEFT's transformers GPT-2 modules
// attn.c_proj, mlp.c_fc and mlp.c_proj), its base exported with `rlvr export --format hf` and its adapters
// with `rlvr export --format peft`, loaded by transformers' GPT2LMHeadModel and PeftModel.from_pretrained:
// PEFT's per-token log-probs equal `rlvr score`'s within 1e-4; and PEFT's adapter comes back with `rlvr
// import --format peft` onto the imported base, bit for bit.
//
// The Python side comes from scripts/setup-python.sh; without its wheels these tests print a banner
// and are skipped, never passed (llama-fixture.ts).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint, writeCheckpoint } from '../node/checkpoint-files.ts';
import { validateConfig } from '../rl/config.ts';
import { loadBase, withLora } from '../rl/run.ts';
import { needPython, ok, rlvr, root, run, type ScoredLine, scoreAgainst, setupPython, tmp } from './llama-fixture.ts';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(setupPython, 660_000);

const PEFT_SCORE = `
import json, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from peft import PeftModel
hf, adapter, lines_file = sys.argv[1:4]
torch.set_num_threads(1)
tok = AutoTokenizer.from_pretrained(hf)
model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(hf, torch_dtype=torch.float32), adapter).eval()
out = []
for line in [l for l in open(lines_file).read().split("\\n") if l]:
    ids = tok(line, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
    out.append({"ids": ids, "logprobs": [None] + [lp[t - 1, ids[t]].item() for t in range(1, len(ids))]})
print(json.dumps(out))
`;

describe("LoRA on the playground's GPT-2 against the real PEFT", () => {
  it("PEFT loads the exported adapters on the exported GPT-2 and gives rlvr score's log-probs (1e-4); they " +
    'import back bit for bit', async (ctx) => {
    const py = needPython(ctx);
    const shipped = join(root, 'public/checkpoints/arithmetic-tiny');
    const base = loadBase(
      JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')),
      new Uint8Array(readFileSync(join(shipped, 'model.safetensors'))),
    );
    const lora = withLora(
      base,
      validateConfig({ task: 'arithmetic', lora_r: 4, lora_alpha: 8, target_modules: 'o_proj,up_proj,down_proj' }),
    );
    // Trained adapters are not zero: B gets values, so every adapter weight reaches the log-probs.
    for (const [k, w] of lora.weights)
      if (k.endsWith('.lora_B')) w.forEach((_, i) => (w[i] = 0.05 * Math.sin(i + k.length)));
    const ckpt = join(tmp, 'lora-ckpt');
    writeCheckpoint(ckpt, lora.manifest, lora.weights);
    const hf = join(tmp, 'hf');
    ok(await rlvr('export', '--format', 'hf', '--model', join(shipped, 'manifest.json'), '--out', hf));
    const adapter = join(tmp, 'adapter');
    ok(await rlvr('export', '--format', 'peft', '--model', join(ckpt, 'manifest.json'), '--out', adapter));
    const config = JSON.parse(readFileSync(join(adapter, 'adapter_config.json'), 'utf8'));
    expect(config).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, fan_in_fan_out: true }); // Conv1D weights
    expect(config.target_modules).toEqual(['attn.c_proj', 'mlp.c_fc', 'mlp.c_proj']);

    const lines = ['12+34=<think>12+34=46</think><answer>46</answer>', '7*8=<answer>56</answer>', '1-1=0'];
    const file = join(tmp, 'lines.txt');
    writeFileSync(file, lines.join('\n') + '\n');
    const theirs = JSON.parse(
      (await run(py, ['-c', PEFT_SCORE, hf, adapter, file], { cwd: root, maxBuffer: 16 << 20 })).stdout,
    ) as ScoredLine[];
    const worst = await scoreAgainst(join(ckpt, 'manifest.json'), file, theirs);
    process.stdout.write(`GPT-2 LoRA: max |log-prob - PEFT's| ${worst.toExponential(2)}\n`);
    expect(worst).toBeLessThan(1e-4);

    // Back: the adapter onto the imported base is the checkpoint it came from.
    const importedBase = join(tmp, 'base');
    ok(await rlvr('import', '--format', 'hf', hf, '--out', importedBase));
    const back = join(tmp, 'back');
    ok(
      await rlvr('import', '--format', 'peft', adapter, '--model', join(importedBase, 'manifest.json'), '--out', back),
    );
    const again = readCheckpoint(join(back, 'manifest.json'));
    expect(again.manifest.model.lora).toEqual(lora.manifest.model.lora);
    for (const [k, w] of lora.weights) expect(Array.from(again.weights.get(k)!), k).toEqual(Array.from(w));
  }, 600_000);
});
