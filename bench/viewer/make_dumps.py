"""Writes synthetic RL rollout dumps of a given total size for `npm run bench:viewer`, in the two
formats practitioners have on disk, exactly as their writers write them:

- TRL 1.13 (trl/trainer/grpo_trainer.py, GRPOTrainer.log): one `completions/completions_{step:05d}.parquet`
  per logging step, `pd.DataFrame(table).to_parquet(path)` (pyarrow, snappy) with the columns `step`,
  `prompt`, `completion`, one per reward function, `advantage`; plus `trainer_state.json` whose
  `log_history` holds one entry per step.
- veRL (verl/trainer/ppo/ray_trainer.py, _dump_generations): one `{global_step}.jsonl` per step, each
  line `json.dumps({"input", "output", "gts", "score", "step", <reward extra fields>}, ensure_ascii=False)`,
  lines joined by "\n" with a final "\n".

Usage: python make_dumps.py OUT_DIR SIZE_MB [--prompts 16 --generations 8]
Writes OUT_DIR/trl-SIZE/ and OUT_DIR/verl-SIZE/ (skipped when already complete) and prints one JSON line
{"trl": {"dir", "bytes", "steps", "rows"}, "verl": {...}}.
"""
import argparse
import json
import math
import os
import random

WORDS = (
    "the of and to in is we so let first then check number sum clause variable true false assign "
    "answer try again because therefore since each value step result gives equals not both either "
    "satisfied x1 x2 x3 x4 x5 or and = + - * ( ) 12 7 3 45 19 28 64 101 <think> </think> <answer> </answer>"
).split()


def text(rng, n_words):
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def group_rows(rng, step, n_prompts, n_gen):
    rows = []
    for p in range(n_prompts):
        prompt = f"Problem {step}-{p}: " + text(rng, 40)
        rewards = [float(rng.random() < 0.4) for _ in range(n_gen)]
        tags = [float(rng.random() < 0.8) for _ in range(n_gen)]
        totals = [a + b for a, b in zip(rewards, tags)]
        mean = sum(totals) / n_gen
        std = math.sqrt(sum((t - mean) ** 2 for t in totals) / max(1, n_gen - 1))
        for g in range(n_gen):
            rows.append({
                "prompt": prompt,
                "completion": text(rng, rng.randint(60, 400)),
                "correctness": rewards[g],
                "has_tag": tags[g],
                "advantage": (totals[g] - mean) / (std + 1e-4),
                "gts": str(rng.randint(0, 999)),
            })
    return rows


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


def write_trl(out, target, n_prompts, n_gen, seed):
    import pandas as pd
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "completions"), exist_ok=True)
    step, total, rows_n, history = 0, 0, 0, []
    while total < target:
        step += 1
        rows = group_rows(rng, step, n_prompts, n_gen)
        table = {
            "step": [step] * len(rows),
            "prompt": [r["prompt"] for r in rows],
            "completion": [r["completion"] for r in rows],
            "correctness": [r["correctness"] for r in rows],
            "has_tag": [r["has_tag"] for r in rows],
            "advantage": [r["advantage"] for r in rows],
        }
        path = os.path.join(out, "completions", f"completions_{step:05d}.parquet")
        pd.DataFrame(table).to_parquet(path)
        total += os.path.getsize(path)
        rows_n += len(rows)
        history.append({"step": step, "reward": sum(r["correctness"] + r["has_tag"] for r in rows) / len(rows),
                        "loss": rng.random() * 0.1, "learning_rate": 1e-6, "epoch": step / 1000})
    with open(os.path.join(out, "trainer_state.json"), "w") as f:
        json.dump({"global_step": step, "log_history": history}, f, indent=2)
    return {"dir": out, "bytes": dir_bytes(out), "steps": step, "rows": rows_n}


def write_verl(out, target, n_prompts, n_gen, seed):
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    step, total, rows_n = 0, 0, 0
    while total < target:
        step += 1
        rows = group_rows(rng, step, n_prompts, n_gen)
        lines = [json.dumps({"input": r["prompt"], "output": r["completion"], "gts": r["gts"],
                             "score": r["correctness"] + r["has_tag"], "step": step, "acc": r["correctness"]},
                            ensure_ascii=False) for r in rows]
        path = os.path.join(out, f"{step}.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        total += os.path.getsize(path)
        rows_n += len(rows)
    return {"dir": out, "bytes": dir_bytes(out), "steps": step, "rows": rows_n}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("size_mb", type=int)
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--generations", type=int, default=8)
    a = ap.parse_args()
    target = a.size_mb * 1024 * 1024
    res = {}
    for fmt, write in (("trl", write_trl), ("verl", write_verl)):
        d = os.path.join(a.out, f"{fmt}-{a.size_mb}")
        done = os.path.join(d, ".complete.json")
        if os.path.exists(done):
            res[fmt] = json.load(open(done))
            continue
        res[fmt] = write(d, target, a.prompts, a.generations, seed=a.size_mb)
        json.dump(res[fmt], open(done, "w"))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
