# The run-record writer: a port of RunRecorder's layout in src/record/run-record.ts (the one reader,
# decodeRunRecord, lives there). Python standard library only. The one copy of this file: the
# rlvr_playground package imports it, and `rlvr export --format trl` writes it into the exported
# project with the settings inlined (src/export/trl/record-file.ts). The file is gzip of
#   MAGIC | header length (u32, little-endian) | header (UTF-8 JSON) | zero padding to 4 | binary section,
# the binary section holding each per-token channel (CHANNELS, in that order) concatenated over all
# rollouts in record order, each padded to 4 bytes: float32 and u16 values split into byte planes
# (all first bytes, then all second bytes...), u8 values as they are. Token ids are u16, or u32 when one
# does not fit; the version is the lowest that holds the file (recordVersion in src/record/run-record.ts).
import array
import gzip
import json
import math
import os
import sys

from .record_settings import *  # rlvr:strip

_WIDTH = {"f32": 4, "u32": 4, "u16": 2, "u8": 1}
_TYPECODE = {"f32": "f", "u32": "I", "u16": "H", "u8": "B"}
assert array.array("I").itemsize == 4, "token ids need a 4-byte unsigned array type"

_CLIP_CODE = {None: 0, "low": 1, "high": 2}


def finite_or_name(x):
    """A number as JSON holds it: non-finite ones as "NaN", "Infinity", "-Infinity" (as the reader expects)."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def _le_bytes(typecode, values):
    a = array.array(typecode, values)  # a copy, in the file's width (token ids: u32 or u16)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _planes(raw, width):
    """Splits little-endian words into byte planes (RunRecorder's toPlanes)."""
    if width == 1:
        return raw
    return b"".join(raw[p::width] for p in range(width))


def advantage_histogram(xs, lo=-3.0, hi=3.0, bins=12):
    """src/rl/metrics.ts histogram: fixed edges, values outside clamped into the end bins."""
    edges = [lo + ((hi - lo) * i) / bins for i in range(bins + 1)]
    counts = [0] * bins
    for x in xs:
        counts[min(bins - 1, max(0, math.floor(((x - lo) / (hi - lo)) * bins)))] += 1
    return {"edges": edges, "counts": counts}


class RunRecordWriter:
    """Collects steps (metrics and rollouts) and writes the record file.

    A rollout is a dict with src/rl/rollout.ts RolloutRecord's fields: group, index, prompt, hint,
    completion, tokens, tokenText, oldLogp, refLogp (a list or None), the scored channels (newLogp,
    ratio, clipped, entropy, kl, objective, tokenLoss, weight, lossContribution, trained; one value
    per scored token, all the same length, possibly 0), advantage, reward, components, correct,
    reason, truncated, hinted, flipped.
    """

    def __init__(self, config, provenance):
        self.config = config
        self.provenance = provenance
        self.steps = []
        self.rollouts = []  # (step, [meta]) in record order
        # Compact arrays, not lists of Python numbers: a long run's channels stay 1-4 bytes a value.
        self.channels = {name: array.array(_TYPECODE["u32" if name == "tokens" else kind]) for name, kind in CHANNELS}

    def add_step(self, step, metrics, rollouts, advantage_histogram=None, difficulty=None):
        """A step's metrics (keys of src/rl/metrics.ts) and its rollouts (record order)."""
        if any(s["step"] == step for s in self.steps):
            raise ValueError(f"run record: step {step} is already recorded")
        entry = {"step": step, "metrics": dict({k: finite_or_name(v) for k, v in metrics.items()}, step=step)}
        if difficulty is not None:
            entry["difficulty"] = difficulty
        if advantage_histogram is not None:
            entry["advantage_histogram"] = advantage_histogram
        self.steps.append(entry)
        if rollouts:
            self.rollouts.append({"step": step, "records": [self._pack(step, i, r) for i, r in enumerate(rollouts)]})

    def _pack(self, step, i, r):
        where = f"step {step}, rollout {i}"
        tokens = [int(t) for t in r["tokens"]]
        if len(r["tokenText"]) != len(tokens):
            raise ValueError(f"run record: {where} has {len(tokens)} tokens but {len(r['tokenText'])} token texts")
        m = len(r["ratio"])
        for k in SCORED_CHANNELS:
            if len(r[k]) != m:
                raise ValueError(f"run record: {where}: {k} has {len(r[k])} values, ratio {m}")
        ref = r.get("refLogp") is not None
        if ref and len(r["refLogp"]) != m:
            raise ValueError(f"run record: {where}: refLogp has {len(r['refLogp'])} values, ratio {m}")
        for t in tokens:
            if not 0 <= t <= 0xFFFFFFFF:
                raise ValueError(f"run record: {where}: token id {t} does not fit 32 bits")
        ch = self.channels
        ch["tokens"].extend(tokens)
        ch["oldLogp"].extend(float(x) for x in r["oldLogp"])
        if ref:
            ch["refLogp"].extend(float(x) for x in r["refLogp"])
        for k in SCORED_CHANNELS:
            if k == "clipped":
                ch[k].extend(_CLIP_CODE[c] for c in r[k])
            elif k == "trained":
                ch[k].extend(1 if t else 0 for t in r[k])
            else:
                ch[k].extend(float(x) for x in r[k])
        return {
            "group": int(r["group"]),
            "index": int(r["index"]),
            "prompt": r["prompt"],
            "hint": r["hint"],
            "completion": r["completion"],
            "tokenText": list(r["tokenText"]),
            "advantage": finite_or_name(r["advantage"]),
            "reward": finite_or_name(r["reward"]),
            "components": {k: finite_or_name(v) for k, v in r["components"].items()},
            "correct": bool(r["correct"]),
            "reason": r["reason"],
            "truncated": bool(r["truncated"]),
            "hinted": bool(r["hinted"]),
            "flipped": r["flipped"],
            "n": len(tokens),
            "o": len(r["oldLogp"]),
            "m": m,
            "ref": ref,
        }

    def version(self, max_token):
        """The lowest version that holds the file (recordVersion in src/record/run-record.ts)."""
        base = self.provenance["base"]
        plain = max_token <= 0xFFFF and "manifest" in base and self.provenance["writer"] in VERSION_1_WRITERS
        return 1 if plain else RUN_RECORD_VERSION

    def payload(self):
        """The uncompressed bytes (RunRecorder.payload)."""
        parts = []
        offset = 0
        channels = {}
        max_token = max(self.channels["tokens"], default=0)
        for name, kind in CHANNELS:
            values = self.channels[name]
            if name == "tokens" and max_token > 0xFFFF:
                kind = "u32"
            width = _WIDTH[kind]
            raw = _le_bytes(_TYPECODE[kind], values)
            channels[name] = {"type": kind, "count": len(values), "offset": offset, "length": len(raw)}
            parts.append(_planes(raw, width))
            offset += len(raw)
            pad = (4 - offset % 4) % 4
            if pad:
                parts.append(bytes(pad))
                offset += pad
        header = {
            "format": RUN_RECORD_FORMAT,
            "version": self.version(max_token),
            "config": self.config,
            "provenance": self.provenance,
            "metric_keys": METRIC_KEYS,
            "steps": self.steps,
            "evals": [],
            "rollouts": self.rollouts,
            "channels": channels,
            "checkpoints": [],
        }
        head = json.dumps(header, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
        magic = RUN_RECORD_MAGIC.encode("utf-8")
        head_pad = (4 - (len(magic) + 4 + len(head)) % 4) % 4
        return b"".join([magic, len(head).to_bytes(4, "little"), head, bytes(head_pad)] + parts)

    def write(self, path):
        """Writes the gzip file whole (a temporary file renamed over `path`, so a reader never sees half of one)."""
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        tmp = path + ".part"
        with open(tmp, "wb") as f:
            f.write(gzip.compress(self.payload(), mtime=0))
        os.replace(tmp, path)
        return path
