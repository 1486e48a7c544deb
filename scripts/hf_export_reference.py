"""What src/cli/export-hf-llama.test.ts compares `rlvr export --format hf` with, by the real transformers and PEFT.

  hf_export_reference.py logprobs DIR LINES     AutoTokenizer and AutoModelForCausalLM from DIR (offline,
                                                float32): each line of LINES (empty ones too, as `rlvr
                                                score` reads them) as {"ids", "logprobs"} (the
                                                first log-prob null), one JSON list on stdout; and the
                                                model's class name, and whether it ties the head, on stderr.
  hf_export_reference.py adapter BASE OUT       a PEFT LoraConfig(r=4, lora_alpha=8, the seven modules)
                                                adapter on the model in BASE, its lora_B random (a fresh one
                                                is zero), saved with save_pretrained in OUT/adapter; and
                                                PEFT's merge_and_unload() of it saved in OUT/merged.
Nothing is downloaded.
"""
import json
import os
import sys

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def logprobs(folder, lines_file):
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    out = []
    lines = open(lines_file, encoding="utf-8").read().split("\n")
    if lines[-1] == "":
        lines.pop()  # the final newline ends the last line, as `rlvr score --text-file` reads it
    for line in lines:
        ids = tok(line)["input_ids"]
        with torch.no_grad():
            lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
        out.append({"ids": ids, "logprobs": [None] + [lp[t - 1, ids[t]].item() for t in range(1, len(ids))]})
    tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    print(json.dumps({"class": type(model).__name__, "tied": tied}), file=sys.stderr)
    print(json.dumps(out))


def adapter(base_dir, out):
    torch.manual_seed(0)
    base = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
    model = get_peft_model(
        base, LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=TARGETS, task_type="CAUSAL_LM")
    )
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
    model.save_pretrained(os.path.join(out, "adapter"))
    model.merge_and_unload().save_pretrained(os.path.join(out, "merged"), safe_serialization=True)


if __name__ == "__main__":
    torch.set_num_threads(1)
    if sys.argv[1] == "logprobs":
        logprobs(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "adapter":
        adapter(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown mode {sys.argv[1]!r}: logprobs or adapter")
