/**
 * A small arithmetic-expression parser for answers (Countdown): + - * / and parentheses over
 * non-negative integer literals, evaluated exactly as BigInt fractions. Hand-written recursive
 * descent with limits on length, literal size and nesting depth, so any input returns a result
 * or an error message quickly and nothing is ever `eval`ed.
 */

export interface Rational {
  n: bigint;
  /** Always > 0, and gcd(|n|, d) = 1. */
  d: bigint;
}

export const EXPR_LIMITS = { maxChars: 200, maxDepth: 32, maxDigits: 12 } as const;

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint, d = 1n): Rational {
  if (d === 0n) throw new Error('zero denominator');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

export function ratToString(r: Rational): string {
  const s = r.d === 1n ? r.n.toString() : `${r.n}/${r.d}`;
  return s.length > 40 ? s.slice(0, 40) + '…' : s;
}

export function ratEquals(a: Rational, b: Rational): boolean {
  return a.n === b.n && a.d === b.d;
}

export type Expr =
  | { kind: 'num'; value: bigint; text: string }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr };

export type ParseResult = { ok: true; expr: Expr; numbers: bigint[] } | { ok: false; error: string };
export type EvalResult = { ok: true; value: Rational } | { ok: false; error: string };

type Token = { t: 'num'; v: bigint; text: string; pos: number } | { t: 'op'; v: string; pos: number };

function describeChar(s: string, i: number): string {
  const c = s.charCodeAt(i);
  return c >= 33 && c <= 126 ? `'${s[i]}'` : `character code ${c}`;
}

function tokenize(s: string): Token[] | string {
  if (s.length > EXPR_LIMITS.maxChars) return `expression too long (${s.length} chars > ${EXPR_LIMITS.maxChars})`;
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9) {
      i++;
    } else if (c >= 48 && c <= 57) {
      const start = i;
      while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
      const text = s.slice(start, i);
      if (text.length > EXPR_LIMITS.maxDigits) return `number too long (${text.length} digits)`;
      if (i < s.length && s[i] === '.') return `decimals are not allowed (at ${start + 1})`;
      out.push({ t: 'num', v: BigInt(text), text, pos: start });
    } else if ('+-*/()'.includes(s[i]!)) {
      out.push({ t: 'op', v: s[i]!, pos: i });
      i++;
    } else {
      return `unexpected ${describeChar(s, i)} at ${i + 1}`;
    }
  }
  return out;
}

/** Parses an expression; literal numbers are collected in order of appearance. */
export function parseExpr(s: string): ParseResult {
  const toks = tokenize(s);
  if (typeof toks === 'string') return { ok: false, error: toks };
  if (toks.length === 0) return { ok: false, error: 'empty expression' };
  let p = 0;
  const numbers: bigint[] = [];
  const fail = (msg: string): never => {
    throw new ExprSyntaxError(msg);
  };
  const peek = (): Token | undefined => toks[p];

  const factor = (depth: number): Expr => {
    const tok = peek();
    if (!tok) return fail('expression ends too early');
    if (tok.t === 'num') {
      p++;
      numbers.push(tok.v);
      return { kind: 'num', value: tok.v, text: tok.text };
    }
    if (tok.v === '(') {
      if (depth >= EXPR_LIMITS.maxDepth) return fail(`parentheses nested deeper than ${EXPR_LIMITS.maxDepth}`);
      p++;
      const e = sum(depth + 1);
      const close = peek();
      if (close?.t !== 'op' || close.v !== ')') return fail(`missing ')' for '(' at ${tok.pos + 1}`);
      p++;
      return e;
    }
    if (tok.v === '-' || tok.v === '+') return fail(`unary ${tok.v} is not allowed (at ${tok.pos + 1})`);
    return fail(`unexpected '${tok.v}' at ${tok.pos + 1}`);
  };
  const product = (depth: number): Expr => {
    let left = factor(depth);
    for (let tok = peek(); tok && tok.t === 'op' && (tok.v === '*' || tok.v === '/'); tok = peek()) {
      p++;
      left = { kind: 'bin', op: tok.v as '*' | '/', left, right: factor(depth) };
    }
    return left;
  };
  const sum = (depth: number): Expr => {
    let left = product(depth);
    for (let tok = peek(); tok && tok.t === 'op' && (tok.v === '+' || tok.v === '-'); tok = peek()) {
      p++;
      left = { kind: 'bin', op: tok.v as '+' | '-', left, right: product(depth) };
    }
    return left;
  };

  try {
    const expr = sum(0);
    const rest = peek();
    if (rest)
      return { ok: false, error: `unexpected ${rest.t === 'num' ? rest.text : `'${rest.v}'`} at ${rest.pos + 1}` };
    return { ok: true, expr, numbers };
  } catch (err) {
    if (err instanceof ExprSyntaxError) return { ok: false, error: err.message };
    throw err;
  }
}

class ExprSyntaxError extends Error {}

/** Exact evaluation; division by zero is an error result. Depth is bounded by the parser. */
export function evalExpr(e: Expr): EvalResult {
  if (e.kind === 'num') return { ok: true, value: rat(e.value) };
  const l = evalExpr(e.left);
  if (!l.ok) return l;
  const r = evalExpr(e.right);
  if (!r.ok) return r;
  const a = l.value;
  const b = r.value;
  switch (e.op) {
    case '+':
      return { ok: true, value: rat(a.n * b.d + b.n * a.d, a.d * b.d) };
    case '-':
      return { ok: true, value: rat(a.n * b.d - b.n * a.d, a.d * b.d) };
    case '*':
      return { ok: true, value: rat(a.n * b.n, a.d * b.d) };
    case '/':
      if (b.n === 0n) return { ok: false, error: 'division by zero' };
      return { ok: true, value: rat(a.n * b.d, a.d * b.n) };
  }
}

const PREC = { '+': 1, '-': 1, '*': 2, '/': 2 } as const;

/** Prints with only the parentheses the precedence rules need. */
export function exprToString(e: Expr): string {
  if (e.kind === 'num') return e.text;
  const p = PREC[e.op];
  const side = (c: Expr, right: boolean): string => {
    const s = exprToString(c);
    if (c.kind === 'num') return s;
    const cp = PREC[c.op];
    const needs = cp < p || (right && cp === p && (e.op === '-' || e.op === '/'));
    return needs ? `(${s})` : s;
  };
  return `${side(e.left, false)}${e.op}${side(e.right, true)}`;
}
