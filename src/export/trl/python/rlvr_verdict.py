# Completion format, verdict plumbing and reward shaping: a line-by-line port of
# src/tasks/format.ts, src/tasks/verdict.ts and src/tasks/reward.ts.
#
# Strings are handled as JavaScript sees them (UTF-16 code units), so lengths, slices and
# comparisons agree with the TypeScript verifier on any text, emoji included; regular
# expressions spell out JavaScript's character classes instead of Python's Unicode-aware ones.
import math
import re

MAX_COMPLETION_CHARS = 4096
MAX_ANSWER_CHARS = 200

# JavaScript's \s (Python's \s also matches \x1c-\x1f and \x85, and misses \ufeff).
JS_SPACE = "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_string(s):
    """The text as a JavaScript string: one character per UTF-16 code unit."""
    if all(ord(c) < 0x10000 for c in s):
        return s
    b = s.encode("utf-16-le", "surrogatepass")
    return "".join(chr(b[i] | (b[i + 1] << 8)) for i in range(0, len(b), 2))


def trim_ascii(s):
    a, b = 0, len(s)
    while a < b and s[a] in " \t\n\r":
        a += 1
    while b > a and s[b - 1] in " \t\n\r":
        b -= 1
    return s[a:b]


def parse_completion(text, think_tag="think", answer_tag="answer", require_think=True):
    """(well_formed, think, answer): think/answer are None when absent, answer is trimmed."""
    if len(text) > MAX_COMPLETION_CHARS:
        return False, None, None
    think_open, think_close = "<%s>" % think_tag, "</%s>" % think_tag
    answer_open, answer_close = "<%s>" % answer_tag, "</%s>" % answer_tag
    s = trim_ascii(text)

    answer = None
    ao = s.find(answer_open)
    ac = s.find(answer_close, ao + len(answer_open)) if ao >= 0 else -1
    if ao >= 0 and ac >= 0:
        answer = trim_ascii(s[ao + len(answer_open):ac])

    think = None
    to = s.find(think_open)
    tc = s.find(think_close, to + len(think_open)) if to >= 0 else -1
    if to >= 0 and tc >= 0:
        think = s[to + len(think_open):tc]

    if ao < 0 or ac < 0:
        return False, think, answer
    has_think = to >= 0 or s.find(think_close) >= 0
    if not has_think and require_think:
        return False, think, answer
    for tag in (think_open, think_close, answer_open, answer_close):
        expected = 1 if tag in (answer_open, answer_close) else (1 if has_think else 0)
        if s.count(tag) != expected:
            return False, think, answer
    if has_think:
        if to != 0:
            return False, think, answer
        if tc < 0 or tc > ao:
            return False, think, answer
        if trim_ascii(s[tc + len(think_close):ao]) != "":
            return False, think, answer
    elif ao != 0:
        return False, think, answer
    if ac + len(answer_close) != len(s):
        return False, think, answer
    return True, think, answer


def clamp01(x):
    return min(1, max(0, x)) if isinstance(x, (int, float)) and math.isfinite(x) else 0


def judge(completion, check):
    """A verdict {"correct", "components"}; check(answer, think) returns (correct, partial or None)."""
    try:
        well_formed, think, answer = parse_completion(js_string(completion))
        fmt = 1 if well_formed else 0
        if answer is None:
            return {"correct": False, "components": {"correctness": 0, "format": fmt}}
        if len(answer) > MAX_ANSWER_CHARS:
            return {"correct": False, "components": {"correctness": 0, "format": fmt, "partial": 0}}
        correct, partial = check(answer, think)
        components = {"correctness": 1 if correct else 0, "format": fmt}
        if partial is not None:
            components["partial"] = clamp01(partial)
        return {"correct": correct, "components": components}
    except Exception:
        # A verifier bug must cost the rollout its reward, not crash the training run.
        return {"correct": False, "components": {"correctness": 0, "format": 0}}


def overlong_penalty(length, max_length, enabled, cache_length, penalty=1):
    """DAPO's soft overlong punishment for a completion of `length` tokens."""
    if not enabled or not max_length > 0:
        return 0
    start = max_length - max(0, cache_length)
    if length <= start:
        return 0
    if length >= max_length or cache_length <= 0:
        return -penalty
    return (-penalty * (length - start)) / cache_length


def shape_reward(components, weights, overlong=0):
    """Weighted components and their total, added in the same order as src/tasks/reward.ts."""

    def fin(x):
        return x if x is not None and math.isfinite(x) else 0

    out = {
        "correctness": weights["correctness"] * fin(components.get("correctness")),
        "format": weights["format"] * fin(components.get("format")),
        "partial": weights["partial"] * fin(components.get("partial")),
        "overlong": overlong,
        "length": 0,
    }
    total = out["correctness"] + out["format"] + out["partial"] + out["overlong"] + out["length"]
    return total, out


def count_tokens(text, tags=("<think>", "</think>", "<answer>", "</answer>")):
    """Tokens under the playground's character tokenizer: one per character, one per tag."""
    text = js_string(text)
    n = len(text)
    for tag in tags:
        n -= text.count(tag) * (len(tag) - 1)
    return n
