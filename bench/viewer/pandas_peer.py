"""The peer a researcher would otherwise use: read a whole dump into memory with pandas/pyarrow.
TRL: every completions/*.parquet with pd.read_parquet, concatenated; veRL: every {step}.jsonl with
pd.read_json(lines=True), concatenated. Prints {"seconds", "rows", "peak_rss_mb"} as one JSON line."""
import glob
import json
import os
import resource
import sys
import time

import pandas as pd


def main():
    fmt, d = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    if fmt == "trl":
        paths = sorted(glob.glob(os.path.join(d, "completions", "completions_*.parquet")))
        frames = [pd.read_parquet(p) for p in paths]
    else:
        frames = [pd.read_json(p, lines=True) for p in sorted(glob.glob(os.path.join(d, "*.jsonl")))]
    df = pd.concat(frames, ignore_index=True)
    seconds = time.perf_counter() - t0
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rows": len(df), "peak_rss_mb": peak_rss_mb}))


if __name__ == "__main__":
    main()
