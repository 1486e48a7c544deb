"""PEFT LoRA parity fixture (src/model/peft-adapter.test.ts), with the real transformers and PEFT 0.21.

  peft_lora_fixture.py make OUT     a random tiny LlamaForCausalLM in OUT/base (save_pretrained), a PEFT
                                    LoraConfig(r=4, lora_alpha=8, seven modules) adapter with random lora_B
                                    in OUT/peft-adapter (save_pretrained), and OUT/peft-ref.json: PEFT's
                                    per-token log-probs of fixed id rows.
  peft_lora_fixture.py score BASE ADAPTER IDS_JSON   PeftModel.from_pretrained(BASE, ADAPTER)'s log-probs of
                                                     the rows, as JSON.
Nothing is downloaded.
"""
import json
import os
import sys

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def logprobs(model, rows):
    out = []
    with torch.no_grad():
        for ids in rows:
            x = torch.tensor([ids])
            lp = torch.log_softmax(model(input_ids=x).logits.float(), -1)[0]
            out.append([None] + [lp[i - 1, ids[i]].item() for i in range(1, len(ids))])
    return out


def make(out):
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=61, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=64, rms_norm_eps=1e-5, rope_theta=10000.0,
                      tie_word_embeddings=False)
    base = LlamaForCausalLM(cfg).eval()
    base.save_pretrained(os.path.join(out, "base"))
    model = get_peft_model(
        base, LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=TARGETS, task_type="CAUSAL_LM")
    )
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
    model.eval()
    model.save_pretrained(os.path.join(out, "peft-adapter"))
    rows = [[(7 * i + 3 * j) % 61 for j in range(12)] for i in range(1, 4)]
    with open(os.path.join(out, "peft-ref.json"), "w") as f:
        json.dump({"rows": rows, "logprobs": logprobs(model, rows)}, f)


def score(base_dir, adapter_dir, ids_json):
    base = LlamaForCausalLM.from_pretrained(base_dir).eval()
    model = PeftModel.from_pretrained(base, adapter_dir).eval()
    rows = json.loads(ids_json)
    print(json.dumps(logprobs(model, rows)))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        score(sys.argv[2], sys.argv[3], sys.argv[4])
