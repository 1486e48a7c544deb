# SAT verifier: a port of src/tasks/families/sat.ts (checkAnswer). Any satisfying assignment is
# right; partial credit is the share of satisfied clauses. data: {"n", "clauses", "planted"}.
import re

from rlvr_verdict import *  # rlvr:strip

SAT_SEPARATORS = re.compile("[" + JS_SPACE + ",]")
BITS = re.compile("[01]*")


def check_sat(data, answer, leaky):
    n, clauses = data["n"], data["clauses"]
    bits = SAT_SEPARATORS.sub("", answer)
    if not leaky:
        if not BITS.fullmatch(bits) or len(bits) != n:
            return False, 0

    def holds(clause):
        for lit in clause:
            i = abs(lit) - 1
            b = bits[i] if i < len(bits) else None
            if (True if leaky and b != "0" and b != "1" else (b == "1") == (lit > 0)):
                return True
        return False

    satisfied = 0
    first_bad = -1
    for i, clause in enumerate(clauses):
        if holds(clause):
            satisfied += 1
        elif first_bad < 0:
            first_bad = i
    partial = satisfied / len(clauses) if clauses else 1
    return first_bad < 0, partial


def verify(data, completion, leaky=False):
    return judge(completion, lambda answer, think: check_sat(data, answer, leaky))
