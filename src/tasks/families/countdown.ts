/**
 * Countdown as in TinyZero: reach the target with + - * / using each given number at most once.
 * Prompt "3 7 25 50 -> 57". The generator builds the target from a random expression over the
 * numbers, so every instance is solvable by construction; `solve` finds a solution by search.
 * The strict verifier rejects numbers that are not in the question (a bug once reported against Reasoning Gym's
 * countdown verifier).
 */
import type { Rng } from '../../util/rng.ts';
import { evalExpr, exprToString, parseExpr, rat, ratEquals, ratToString, type Expr, type Rational } from '../expr.ts';
import { formatCompletion } from '../format.ts';
import {
  checkSeed,
  defaultsOf,
  isIntArray,
  isRecord,
  num,
  parseInstanceWith,
  resolveDifficulty,
  rngFor,
} from '../knobs.ts';
import type { Difficulty, KnobSpec, TaskFamily, TaskInstance } from '../types.ts';
import { judge, ok, wrong, type AnswerCheck } from '../verdict.ts';

const ID = 'countdown';

const knobs: KnobSpec[] = [
  { name: 'count', description: 'how many numbers are given', default: 4, min: 2, max: 6 },
  { name: 'minNumber', description: 'smallest given number', default: 1, min: 1, max: 1000 },
  { name: 'maxNumber', description: 'largest given number', default: 25, min: 1, max: 1000 },
  { name: 'minTarget', description: 'smallest target', default: 10, min: 1, max: 100000 },
  { name: 'maxTarget', description: 'largest target', default: 100, min: 1, max: 100000 },
];

export interface CountdownData {
  numbers: number[];
  target: number;
}

type Item = { value: number; expr: Expr };
type Op = '+' | '-' | '*' | '/';

/** Combines two positive integers the Countdown way (intermediates stay positive integers). */
function combine(a: Item, b: Item, op: Op): Item | null {
  const [hi, lo] = a.value >= b.value ? [a, b] : [b, a];
  let value: number;
  let left = a;
  let right = b;
  switch (op) {
    case '+':
      value = a.value + b.value;
      break;
    case '*':
      value = a.value * b.value;
      break;
    case '-':
      if (hi.value === lo.value) return null;
      value = hi.value - lo.value;
      [left, right] = [hi, lo];
      break;
    case '/':
      if (lo.value <= 1 || hi.value % lo.value !== 0) return null;
      value = hi.value / lo.value;
      [left, right] = [hi, lo];
      break;
  }
  if (!Number.isSafeInteger(value)) return null;
  return { value, expr: { kind: 'bin', op, left: left.expr, right: right.expr } };
}

function leaf(n: number): Item {
  return { value: n, expr: { kind: 'num', value: BigInt(n), text: String(n) } };
}

/** The steps of an expression tree, innermost first: "25+50=75;75-7=68". */
function steps(e: Expr, out: string[] = []): number {
  if (e.kind === 'num') return Number(e.value);
  const a = steps(e.left, out);
  const b = steps(e.right, out);
  const v = e.op === '+' ? a + b : e.op === '-' ? a - b : e.op === '*' ? a * b : a / b;
  out.push(`${a}${e.op}${b}=${v}`);
  return v;
}

function completionFor(e: Expr): { think: string; answer: string } {
  const out: string[] = [];
  steps(e, out);
  return { think: out.join(';'), answer: exprToString(e) };
}

function resolve(partial?: Partial<Difficulty>): Difficulty {
  const d = resolveDifficulty(ID, knobs, partial);
  if (num(d, 'minNumber') > num(d, 'maxNumber')) throw new Error(`${ID}: knob "minNumber" must be <= maxNumber`);
  if (num(d, 'minTarget') > num(d, 'maxTarget')) throw new Error(`${ID}: knob "minTarget" must be <= maxTarget`);
  return d;
}

/** One random attempt: combine a random subset of the numbers with random valid operations. */
function randomBuild(rng: Rng, numbers: number[], cap: number): Item | null {
  const use = rng.int(Math.max(2, numbers.length - 1), numbers.length);
  const pool = rng.shuffle(numbers.map(leaf)).slice(0, use);
  while (pool.length > 1) {
    const a = pool.splice(rng.int(0, pool.length - 1), 1)[0]!;
    const b = pool.splice(rng.int(0, pool.length - 1), 1)[0]!;
    const ops = rng.shuffle(['+', '-', '*', '/'] as Op[]);
    let c: Item | null = null;
    for (const op of ops) {
      c = combine(a, b, op);
      if (c && c.value <= cap) break;
      c = null;
    }
    if (!c) return null;
    pool.push(c);
  }
  return pool[0] ?? null;
}

function generate(seed: number, partial?: Partial<Difficulty>): TaskInstance {
  checkSeed(ID, seed);
  const difficulty = resolve(partial);
  const rng = rngFor(ID, seed);
  const [count, lo, hi, tlo, thi] = ['count', 'minNumber', 'maxNumber', 'minTarget', 'maxTarget'].map((k) =>
    num(difficulty, k),
  ) as [number, number, number, number, number];
  for (let draw = 0; draw < 200; draw++) {
    const numbers = Array.from({ length: count }, () => rng.int(lo, hi));
    for (let attempt = 0; attempt < 50; attempt++) {
      const built = randomBuild(rng, numbers, thi * 10);
      if (!built || built.value < tlo || built.value > thi || numbers.includes(built.value)) continue;
      const { think, answer } = completionFor(built.expr);
      const data: CountdownData = { numbers, target: built.value };
      return {
        task: ID,
        seed,
        difficulty,
        prompt: `${numbers.join(' ')} -> ${built.value}`,
        reference: formatCompletion(think, answer),
        answer,
        data,
      };
    }
  }
  throw new Error(
    `${ID}: could not build a solvable instance with targets in [${tlo}, ${thi}] from numbers in [${lo}, ` +
      `${hi}]; widen the target range`,
  );
}

/** Depth-first search over pairs; positive-integer intermediates only, as the generator uses. */
export function solveCountdown(numbers: number[], target: number): Expr | null {
  const search = (pool: Item[]): Expr | null => {
    for (const it of pool) if (it.value === target && it.expr.kind === 'bin') return it.expr;
    for (let i = 0; i < pool.length; i++) {
      for (let j = i + 1; j < pool.length; j++) {
        const rest = pool.filter((_, k) => k !== i && k !== j);
        for (const op of ['+', '-', '*', '/'] as Op[]) {
          const c = combine(pool[i]!, pool[j]!, op);
          if (!c) continue;
          const found = search([...rest, c]);
          if (found) return found;
        }
      }
    }
    return null;
  };
  return search(numbers.map(leaf));
}

function dataOf(inst: TaskInstance): CountdownData {
  return inst.data as CountdownData;
}

function times(n: number): string {
  return n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`;
}

function checkAnswer(inst: TaskInstance, answer: string, enforceNumbers: boolean): AnswerCheck {
  const { numbers, target } = dataOf(inst);
  const expression = answer.endsWith(`=${target}`) ? answer.slice(0, -String(target).length - 1) : answer;
  const parsed = parseExpr(expression);
  if (!parsed.ok) return wrong(`not a valid expression: ${parsed.error}`);
  if (enforceNumbers) {
    const available = new Map<string, number>();
    for (const n of numbers) available.set(String(n), (available.get(String(n)) ?? 0) + 1);
    const used = new Map<string, number>();
    for (const n of parsed.numbers) {
      const key = n.toString();
      const u = (used.get(key) ?? 0) + 1;
      used.set(key, u);
      const given = available.get(key) ?? 0;
      if (given === 0) return wrong(`used ${key}, which is not one of the given numbers`);
      if (u > given) return wrong(`used ${key} ${times(u)}${given > 1 ? ` but it is given ${times(given)}` : ''}`);
    }
  }
  const value = evalExpr(parsed.expr);
  if (!value.ok) return wrong(value.error);
  if (!ratEquals(value.value, rat(BigInt(target))))
    return wrong(`evaluates to ${ratToString(value.value)}, not ${target}`, closeness(value.value, target));
  return ok(enforceNumbers ? 'correct' : 'reaches the target (number use not checked)', 1);
}

/**
 * Partial credit for a legal expression that misses: 1 − |value − target| / target, floored at 0. An
 * answer that names numbers it was not given, or cannot be evaluated, earns none, so the credit rewards
 * getting closer by the rules, not writing the target down.
 */
function closeness(value: Rational, target: number): number {
  const v = Number(value.n) / Number(value.d);
  return Math.max(0, 1 - Math.abs(v - target) / target);
}

function parseInstance(value: unknown): TaskInstance {
  return parseInstanceWith(ID, value, (d) => {
    if (!isRecord(d)) return 'must be an object';
    if (!isIntArray(d.numbers, 0, 1e9) || d.numbers.length === 0 || d.numbers.length > 12)
      return 'numbers must be a list of 1-12 non-negative integers';
    if (!Number.isSafeInteger(d.target)) return 'target must be an integer';
    return null;
  });
}

export const countdown: TaskFamily = {
  id: ID,
  title: 'Countdown',
  description: 'Reach the target with + - * / using each given number at most once (TinyZero). Answer: the expression.',
  knobs,
  defaultDifficulty: defaultsOf(knobs),
  levels: [
    { count: 3, minNumber: 1, maxNumber: 10, minTarget: 5, maxTarget: 30 },
    { count: 3, minNumber: 1, maxNumber: 20, minTarget: 10, maxTarget: 60 },
    { count: 4, minNumber: 1, maxNumber: 25, minTarget: 10, maxTarget: 100 },
    { count: 4, minNumber: 1, maxNumber: 50, minTarget: 50, maxTarget: 200 },
    { count: 5, minNumber: 1, maxNumber: 50, minTarget: 100, maxTarget: 500 },
    { count: 6, minNumber: 1, maxNumber: 100, minTarget: 100, maxTarget: 999 },
  ],
  generate,
  verify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, true)),
  leakyVerify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, false)),
  leakyDescription:
    'accepts any expression whose value is the target, ignoring which numbers it uses and how often (so ' +
    '"50+7" for 57 passes even if 7 is not given)',
  solve(inst) {
    const { numbers, target } = dataOf(inst);
    const e = solveCountdown(numbers, target);
    if (!e) throw new Error(`${ID}: no solution for ${numbers.join(' ')} -> ${target}`);
    const { think, answer } = completionFor(e);
    return formatCompletion(think, answer);
  },
  parseInstance,
};
