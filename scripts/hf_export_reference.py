"""What src/cli/export-hf-llama.test.ts compares `rlvr export --format hf` with, by the real transformers and PEFT.

  hf_export_reference.py logprobs DIR LINES IDS [OTHER]
      AutoModelForCausalLM and AutoTokenizer from DIR (offline, float32). IDS is a JSON list of id rows, one
      per line of LINES (empty lines too, as `rlvr score --text-file` reads them): each row's per-token
      log-probs (the first null), and the line as AutoTokenizer tokenizes it (and OTHER's AutoTokenizer, when
      given). JSON on stdout: {"model": {"class", "tied"}, "rows": [{"ids", "logprobs", "tokenized",
      "other_tokenized"}]}.
  hf_export_reference.py adapter BASE OUT
      a PEFT LoraConfig(r=4, lora_alpha=8, the seven modules)
      adapter on the model in BASE, its lora_B random (a fresh one is zero), saved with save_pretrained in
      OUT/adapter; and PEFT's merge_and_unload() of it saved in OUT/merged.
Nothing is downloaded.
"""
import json
import os
import sys

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def read_lines(lines_file):
    lines = open(lines_file, encoding="utf-8").read().split("\n")
    if lines[-1] == "":
        lines.pop()  # the final newline ends the last line, as `rlvr score --text-file` reads it
    return lines


def logprobs(folder, lines_file, ids_file, other):
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    lines = read_lines(lines_file)
    rows = json.load(open(ids_file))
    other_tok = AutoTokenizer.from_pretrained(other) if other else None
    out = []
    for line, ids in zip(lines, rows, strict=True):
        lps = []
        if ids:  # an empty line without a BOS token has no token to score
            with torch.no_grad():
                lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), -1)
            lps = [None] + [lp[t - 1, ids[t]].item() for t in range(1, len(ids))]
        row = {"ids": ids, "logprobs": lps, "tokenized": tok(line)["input_ids"]}
        if other_tok is not None:
            row["other_tokenized"] = other_tok(line)["input_ids"]
        out.append(row)
    tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    print(json.dumps({"model": {"class": type(model).__name__, "tied": tied}, "rows": out}))


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
        logprobs(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    elif sys.argv[1] == "adapter":
        adapter(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown mode {sys.argv[1]!r}: logprobs or adapter")
