# TRL reward functions over the verifier above, one per reward component, so TRL logs each one and
# GRPOConfig(reward_weights=TRL_REWARD_WEIGHTS) adds them up exactly as the playground's trainer
# does (src/tasks/reward.ts). Each takes TRL's arguments: the completions, the completion token ids
# and the dataset's columns as keyword lists (prompts.jsonl's "data" column holds the instance).
import functools
import json
import sys

from rlvr_verdict import *  # rlvr:strip
from rlvr_settings import *  # rlvr:strip

# TRL decodes completions with skip_special_tokens=True, which would drop the <think>/<answer> tags
# if the tokenizer marks them special; the exported model uses the playground's token ids, so the
# ids are decoded here with its vocabulary instead. train_grpo.py sets it False for a model with another
# tokenizer (one whose config.json has no rlvr_playground).
USE_COMPLETION_IDS = True
FIRST_CHAR = len(SPECIALS)


def decode_ids(ids):
    """The playground's decode (src/model/tokenizer.ts): tags as text, <pad>/<eos> dropped."""
    out = []
    for t in ids:
        t = int(t)
        if 2 <= t < FIRST_CHAR:
            out.append(SPECIALS[t])
        elif t >= FIRST_CHAR:
            out.append(CHARS[t - FIRST_CHAR] if t - FIRST_CHAR < len(CHARS) else "?")
    return "".join(out)


def completion_text(completion, ids=None):
    if USE_COMPLETION_IDS and ids is not None:
        return decode_ids(ids)
    if isinstance(completion, list):  # conversational: [{"role": "assistant", "content": ...}]
        return "".join(m.get("content", "") for m in completion if isinstance(m, dict))
    return completion


@functools.lru_cache(maxsize=65536)
def verdict_for(text, data_json, leaky):
    return verify(json.loads(data_json), text, leaky)


def components_of(completions, data, completion_ids):
    ids = completion_ids if completion_ids is not None else [None] * len(completions)
    return [
        verdict_for(completion_text(c, i), d if isinstance(d, str) else json.dumps(d), LEAKY)["components"]
        for c, d, i in zip(completions, data, ids)
    ]


def correctness_reward(completions, data, completion_ids=None, **kwargs):
    """1 when the answer is right, else 0."""
    return [float(c["correctness"]) for c in components_of(completions, data, completion_ids)]


def format_reward(completions, data, completion_ids=None, **kwargs):
    """1 when the completion is exactly <think>...</think><answer>...</answer>, else 0."""
    return [float(c["format"]) for c in components_of(completions, data, completion_ids)]


def partial_reward(completions, data, completion_ids=None, **kwargs):
    """The family's partial credit in [0, 1] (0 where it has none)."""
    return [float(c.get("partial", 0)) for c in components_of(completions, data, completion_ids)]


def overlong_reward(completions, completion_ids=None, **kwargs):
    """DAPO's soft overlong punishment on the completion's token count (EOS included)."""
    lengths = (
        [len(i) for i in completion_ids]
        if completion_ids is not None
        else [count_tokens(completion_text(c)) for c in completions]
    )
    return [
        float(overlong_penalty(n, OVERLONG["max_length"], OVERLONG["enabled"], OVERLONG["cache_length"]))
        for n in lengths
    ]


REWARD_FUNCS = [correctness_reward, format_reward, partial_reward] + ([overlong_reward] if OVERLONG["enabled"] else [])
TRL_REWARD_WEIGHTS = [REWARD_WEIGHTS["correctness"], REWARD_WEIGHTS["format"], REWARD_WEIGHTS["partial"]] + (
    [1.0] if OVERLONG["enabled"] else []
)


def score(completion, data, leaky=None, completion_length=None):
    """The playground trainer's reward for one completion: total, weighted components, raw verdict."""
    v = verify(data, completion, LEAKY if leaky is None else leaky)
    length = count_tokens(completion) if completion_length is None else completion_length
    over = overlong_penalty(length, OVERLONG["max_length"], OVERLONG["enabled"], OVERLONG["cache_length"])
    total, weighted = shape_reward(v["components"], REWARD_WEIGHTS, over)
    return {"reward": total, "components": weighted, "raw": v["components"], "correct": v["correct"]}


def main():
    """Scores JSONL from stdin: {"completion", "data", optional "leaky", "completion_length"} per line."""
    out = sys.stdout
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        row = json.loads(raw.decode("utf-8"))
        data = row["data"] if isinstance(row["data"], dict) else json.loads(row["data"])
        out.write(json.dumps(score(row["completion"], data, row.get("leaky"), row.get("completion_length"))) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
