"""Prints, as JSON, what pandas/pyarrow read from a TRL output_dir: each completions parquet's columns and
rows, and the newest checkpoint's log_history merged by step (every numeric key), so a test can compare
the viewer's readers with the tools a researcher would use. NaN is written as Python's json writes it.

Usage: python scripts/trl_run_dump.py OUTDIR [NUM_GENERATIONS (default 4, as scripts/trl_run_fixture.py)]
"""
import glob
import json
import os
import re
import sys

import pandas as pd


def main() -> None:
    outdir = sys.argv[1]
    num_generations = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    files = {}
    for path in sorted(glob.glob(os.path.join(outdir, "completions", "completions_*.parquet"))):
        df = pd.read_parquet(path)
        rows = [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in df.to_dict("records")]
        reward_cols = [c for c in df.columns if c not in ("step", "prompt", "completion", "advantage")]
        totals = df[reward_cols].sum(axis=1, min_count=1)
        # TRL's groups: num_generations consecutive rows each (its advantage is computed over them).
        groups = []
        prompts = df["prompt"].tolist()
        for start in range(0, len(prompts), num_generations):
            chunk = totals.iloc[start : start + num_generations]
            std = chunk.std(ddof=1) if len(chunk) > 1 else 0.0
            mean = float(chunk.mean())
            groups.append({"prompt": prompts[start], "size": len(chunk), "mean": mean, "std": float(std)})
        files[os.path.relpath(path, outdir)] = {"columns": list(df.columns), "rows": rows, "groups": groups}
    states = glob.glob(os.path.join(outdir, "checkpoint-*", "trainer_state.json"))
    states.sort(key=lambda p: int(re.search(r"checkpoint-(\d+)", p).group(1)))
    curves = {}
    if states:
        with open(states[-1]) as f:
            for entry in json.load(f)["log_history"]:
                if "step" not in entry:
                    continue
                values = curves.setdefault(str(entry["step"]), {})
                for k, v in entry.items():
                    if k != "step" and isinstance(v, (int, float)) and not isinstance(v, bool):
                        values[k] = v
    state = os.path.relpath(states[-1], outdir) if states else None
    json.dump({"files": files, "curves": curves, "state": state}, sys.stdout)


if __name__ == "__main__":
    main()
