"""What transformers, the tokenizer and TRL's own logs say of a recorded run, for
src/export/trl/recorder-run.test.ts to hold the record against. Reads JSON on stdin:
  {"model": DIR, "out": OUTPUT_DIR, "rollouts": [{"prompt", "tokens", "at": [weights step, ...]}]}
and prints JSON: per rollout the tokenizer's text of each token and of the completion, and for each
weights step in "at" (0: the model before training, N: OUTPUT_DIR/checkpoint-N) the log-probs of the
completion tokens after the prompt, from one unpadded forward pass (temperature 1, TRL's default);
then TRL's completions parquet rows and log_history.
"""
import glob
import json
import os
import sys

import pandas as pd
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

job = json.load(sys.stdin)
tok = AutoTokenizer.from_pretrained(job["model"])
models = {}


def model_at(step):
    if step not in models:
        path = job["model"] if step == 0 else os.path.join(job["out"], f"checkpoint-{step}")
        models[step] = AutoModelForCausalLM.from_pretrained(path).eval()
    return models[step]


out = []
for r in job["rollouts"]:
    prompt_ids = tok(r["prompt"], add_special_tokens=False)["input_ids"]
    ids = torch.tensor([prompt_ids + r["tokens"]])
    logps = {}
    for step in r["at"]:
        with torch.no_grad():
            logits = model_at(step)(input_ids=ids).logits[0, len(prompt_ids) - 1 : -1].float()
        picked = torch.log_softmax(logits, dim=-1).gather(-1, torch.tensor(r["tokens"])[:, None])
        logps[str(step)] = picked.squeeze(-1).tolist()
    out.append(
        {
            "token_text": [tok.decode([t]) for t in r["tokens"]],
            "completion": tok.decode(r["tokens"], skip_special_tokens=True),
            "logps": logps,
        }
    )
rows = []
for f in sorted(glob.glob(os.path.join(job["out"], "completions", "completions_*.parquet"))):
    rows += pd.read_parquet(f).to_dict("records")
states = glob.glob(os.path.join(job["out"], "checkpoint-*", "trainer_state.json"))
last = max(states, key=lambda p: int(p.split("checkpoint-")[1].split(os.sep)[0]))
history = json.load(open(last))["log_history"]
print(json.dumps({"rollouts": out, "parquet": rows, "log_history": history, "vocab": len(tok)}))
