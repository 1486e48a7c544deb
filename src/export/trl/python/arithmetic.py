# Arithmetic verifier: a port of src/tasks/families/arithmetic.ts (checkAnswer, digitAccuracy,
# appearsAnywhere). data: {"a", "b", "op", "result"} with the numbers as decimal strings.
import re

from rlvr_verdict import *  # rlvr:strip

INTEGER = re.compile(r"-?[0-9]+")
LEADING_ZEROS = re.compile(r"^0+(?=[0-9])")


def digit_accuracy(got, want):
    """Right-aligned digit agreement: a near miss in the low digits still earns something."""
    n = max(len(got), len(want))
    same = 0
    for i in range(1, n + 1):
        gi, wi = len(got) - i, len(want) - i
        if gi >= 0 and wi >= 0 and got[gi] == want[wi]:
            same += 1
    return same / n


def check_arithmetic(data, answer):
    want = data["result"]
    compact = re.sub(r"[ ,_]", "", answer)
    if not INTEGER.fullmatch(compact):
        return False, 0
    if compact.startswith("-"):
        norm = "-" + LEADING_ZEROS.sub("", compact[1:])
    else:
        norm = LEADING_ZEROS.sub("", compact)
    if norm == want:
        return True, 1
    return False, digit_accuracy(norm, want)


def appears_anywhere(data, completion):
    """The leak: the right number appears anywhere in the completion (tags or not)."""
    want = data["result"]
    s = js_string(completion)[:4096]
    i = 0
    while i < len(s):
        if s[i] == "-" or "0" <= s[i] <= "9":
            j = i + 1
            while j < len(s) and "0" <= s[j] <= "9":
                j += 1
            if s[i:j] == want:
                return True
            i = j
        else:
            i += 1
    return False


def verify(data, completion, leaky=False):
    strict = judge(completion, lambda answer, think: check_arithmetic(data, answer))
    if not leaky or strict["correct"] or not isinstance(completion, str) or not appears_anywhere(data, completion):
        return strict
    return {"correct": True, "components": dict(strict["components"], correctness=1)}
