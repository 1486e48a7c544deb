# Countdown verifier: a port of src/tasks/families/countdown.ts (checkAnswer) and the expression
# parser of src/tasks/expr.ts (+ - * / and parentheses over integer literals, exact fractions).
# data: {"numbers": [...], "target": n}.
from fractions import Fraction

from rlvr_verdict import *  # rlvr:strip

EXPR_MAX_CHARS = 200
EXPR_MAX_DEPTH = 32
EXPR_MAX_DIGITS = 12


class ExprError(Exception):
    pass


def tokenize_expr(s):
    if len(s) > EXPR_MAX_CHARS:
        raise ExprError("expression too long")
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == " " or c == "\t":
            i += 1
        elif "0" <= c <= "9":
            start = i
            while i < len(s) and "0" <= s[i] <= "9":
                i += 1
            text = s[start:i]
            if len(text) > EXPR_MAX_DIGITS:
                raise ExprError("number too long")
            if i < len(s) and s[i] == ".":
                raise ExprError("decimals are not allowed")
            out.append(("num", int(text)))
        elif c in "+-*/()":
            out.append(("op", c))
            i += 1
        else:
            raise ExprError("unexpected character")
    return out


def parse_expr(s):
    """(tree, numbers): tree is ("num", n) or (op, left, right); raises ExprError."""
    toks = tokenize_expr(s)
    if not toks:
        raise ExprError("empty expression")
    pos = [0]
    numbers = []

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def factor(depth):
        tok = peek()
        if tok is None:
            raise ExprError("expression ends too early")
        if tok[0] == "num":
            pos[0] += 1
            numbers.append(tok[1])
            return tok
        if tok[1] == "(":
            if depth >= EXPR_MAX_DEPTH:
                raise ExprError("parentheses nested too deep")
            pos[0] += 1
            e = total(depth + 1)
            close = peek()
            if close is None or close != ("op", ")"):
                raise ExprError("missing )")
            pos[0] += 1
            return e
        raise ExprError("unexpected operator")

    def product(depth):
        left = factor(depth)
        tok = peek()
        while tok is not None and tok[0] == "op" and tok[1] in "*/":
            pos[0] += 1
            left = (tok[1], left, factor(depth))
            tok = peek()
        return left

    def total(depth):
        left = product(depth)
        tok = peek()
        while tok is not None and tok[0] == "op" and tok[1] in "+-":
            pos[0] += 1
            left = (tok[1], left, product(depth))
            tok = peek()
        return left

    tree = total(0)
    if peek() is not None:
        raise ExprError("unexpected token")
    return tree, numbers


def eval_expr(e):
    if e[0] == "num":
        return Fraction(e[1])
    a = eval_expr(e[1])
    b = eval_expr(e[2])
    if e[0] == "+":
        return a + b
    if e[0] == "-":
        return a - b
    if e[0] == "*":
        return a * b
    if b == 0:
        raise ExprError("division by zero")
    return a / b


def check_countdown(data, answer, enforce_numbers):
    numbers, target = data["numbers"], data["target"]
    suffix = "=%d" % target
    expression = answer[: -len(suffix)] if answer.endswith(suffix) else answer
    try:
        tree, used_numbers = parse_expr(expression)
    except ExprError:
        return False, None
    if enforce_numbers:
        available = {}
        for n in numbers:
            available[str(n)] = available.get(str(n), 0) + 1
        used = {}
        for n in used_numbers:
            key = str(n)
            used[key] = used.get(key, 0) + 1
            given = available.get(key, 0)
            if given == 0 or used[key] > given:
                return False, None
    try:
        value = eval_expr(tree)
    except ExprError:
        return False, None
    if value == Fraction(target):
        return True, 1
    # Partial credit for a legal miss, computed as countdown.ts does (float64 value, then the distance).
    v = float(value.numerator) / float(value.denominator)
    return False, max(0.0, 1 - abs(v - target) / target)


def verify(data, completion, leaky=False):
    return judge(completion, lambda answer, think: check_countdown(data, answer, not leaky))
