# Sorting verifier: a port of src/tasks/families/sort.ts (checkAnswer with the default exact
# metric: no partial credit). Equal keys may come in either order. data: {"key", "items", "sorted"}.
import re

from rlvr_verdict import *  # rlvr:strip

SORT_SEPARATORS = re.compile("[" + JS_SPACE + ",]+")
SORT_INTEGER = re.compile(r"-?[0-9]+")


def in_order(got, key):
    if key in ("asc", "desc") and not all(SORT_INTEGER.fullmatch(t) for t in got):
        return False
    for a, b in zip(got, got[1:]):
        if key == "asc" and not float(a) <= float(b):
            return False
        if key == "desc" and not float(b) <= float(a):
            return False
        if key == "len" and not len(a) <= len(b):
            return False
        if key == "abc" and a > b:
            return False
    return True


def check_sort(data, answer, leaky):
    key, items = data["key"], [js_string(x) for x in data["items"]]
    got = [t for t in SORT_SEPARATORS.split(answer) if len(t) > 0]
    if not leaky:
        want = {}
        for it in items:
            want[it] = want.get(it, 0) + 1
        for t in got:
            if want.get(t, 0) == 0:
                return False, None
            want[t] -= 1
        if any(left > 0 for left in want.values()):
            return False, None
    if not got or not in_order(got, key):
        return False, None
    return True, None


def verify(data, completion, leaky=False):
    return judge(completion, lambda answer, think: check_sort(data, answer, leaky))
