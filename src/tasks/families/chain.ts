/**
 * Chained arithmetic (R-Horizon style composition): k sub-problems where each uses the previous
 * answer. Prompt "a=38+5,b=a*3,c=b-17,c?", thinking "a=43,b=129,c=112", answer "112".
 * Partial credit is the share of intermediate values stated correctly in the thinking part, a
 * process reward (which the lessons can show being gamed).
 */
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
  str,
} from '../knobs.ts';
import type { Difficulty, KnobSpec, TaskFamily, TaskInstance } from '../types.ts';
import { judge, ok, wrong, type AnswerCheck } from '../verdict.ts';

const ID = 'chain';
const NAMES = 'abcdefghijkl';

const knobs: KnobSpec[] = [
  {
    name: 'length',
    description: 'chain length k: sub-problems, each using the previous answer',
    default: 3,
    min: 1,
    max: 12,
  },
  {
    name: 'maxOperand',
    description: 'largest operand for + and - (factors and divisors are 2..9)',
    default: 50,
    min: 2,
    max: 999,
  },
  { name: 'ops', description: 'operations to draw from: any of + - * /', default: '+-*' },
];

export interface ChainData {
  /** Step i computes (previous value, or start for i = 0) ops[i] operands[i]. */
  start: number;
  ops: string[];
  operands: number[];
  /** Value after each step; the last is the answer. */
  values: number[];
}

const MAX_VALUE = 999;

function resolve(partial?: Partial<Difficulty>): Difficulty {
  const d = resolveDifficulty(ID, knobs, partial);
  const ops = str(d, 'ops');
  if (ops.length === 0 || [...ops].some((c) => !'+-*/'.includes(c)))
    throw new Error(`${ID}: knob "ops" must be a non-empty mix of + - * / (got "${ops}")`);
  return d;
}

function apply(x: number, op: string, y: number): number {
  return op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
}

function generate(seed: number, partial?: Partial<Difficulty>): TaskInstance {
  checkSeed(ID, seed);
  const difficulty = resolve(partial);
  const rng = rngFor(ID, seed);
  const k = num(difficulty, 'length');
  const maxOperand = num(difficulty, 'maxOperand');
  const allowed = [...str(difficulty, 'ops')];
  const start = rng.int(1, maxOperand);
  const ops: string[] = [];
  const operands: number[] = [];
  const values: number[] = [];
  let x = start;
  for (let step = 0; step < k; step++) {
    // Try ops in random order; keep values in 0..999 and divisions exact.
    let done = false;
    for (const op of rng.shuffle(allowed.slice())) {
      let y: number | null = null;
      if (op === '+') y = x + 1 <= MAX_VALUE ? rng.int(1, Math.min(maxOperand, MAX_VALUE - x)) : null;
      else if (op === '-') y = x >= 1 ? rng.int(1, Math.min(maxOperand, x)) : null;
      else if (op === '*')
        y = x * 2 <= MAX_VALUE ? rng.int(2, Math.min(9, Math.floor(MAX_VALUE / Math.max(x, 1)))) : null;
      else {
        const divisors = [2, 3, 4, 5, 6, 7, 8, 9].filter((v) => x % v === 0 && x > 0);
        y = divisors.length ? rng.pick(divisors) : null;
      }
      if (y === null) continue;
      ops.push(op);
      operands.push(y);
      x = apply(x, op, y);
      values.push(x);
      done = true;
      break;
    }
    if (!done) {
      // Only reachable when the ops mix has no step that fits the current value (e.g. "/" alone).
      const op = x >= 1 ? '-' : '+';
      const y = op === '-' ? rng.int(1, Math.min(maxOperand, x)) : rng.int(1, maxOperand);
      ops.push(op);
      operands.push(y);
      x = apply(x, op, y);
      values.push(x);
    }
  }
  const data: ChainData = { start, ops, operands, values };
  const answer = String(x);
  return {
    task: ID,
    seed,
    difficulty,
    prompt: promptOf(data),
    reference: formatCompletion(thinkOf(values), answer),
    answer,
    data,
  };
}

function promptOf(d: ChainData): string {
  const parts = d.ops.map((op, i) => `${NAMES[i]}=${i === 0 ? d.start : NAMES[i - 1]}${op}${d.operands[i]}`);
  return `${parts.join(',')},${NAMES[d.ops.length - 1]}?`;
}

function thinkOf(values: number[]): string {
  return values.map((v, i) => `${NAMES[i]}=${v}`).join(',');
}

function dataOf(inst: TaskInstance): ChainData {
  return inst.data as ChainData;
}

/** Reads "name=value" pairs from the thinking part (first mention of each name wins). */
function statedValues(think: string | null): Map<string, number> {
  const out = new Map<string, number>();
  if (!think) return out;
  const s = think.slice(0, 1000);
  for (let i = 0; i + 2 < s.length; i++) {
    if (!NAMES.includes(s[i]!) || s[i + 1] !== '=') continue;
    if (i > 0 && /[a-z]/.test(s[i - 1]!)) continue;
    let j = i + 2;
    const neg = s[j] === '-';
    if (neg) j++;
    const from = j;
    while (j < s.length && j - from < 7 && s[j]! >= '0' && s[j]! <= '9') j++;
    if (j === from || out.has(s[i]!)) continue;
    out.set(s[i]!, (neg ? -1 : 1) * Number(s.slice(from, j)));
  }
  return out;
}

function checkAnswer(inst: TaskInstance, answer: string, think: string | null, leaky: boolean): AnswerCheck {
  const { values, ops, operands } = dataOf(inst);
  const stated = statedValues(think);
  const right = values.filter((v, i) => stated.get(NAMES[i]!) === v).length;
  const partial = values.length ? right / values.length : 0;
  const compact = answer.replace(/\s/g, '');
  if (!/^-?\d{1,12}$/.test(compact))
    return wrong(`answer is not an integer: ${JSON.stringify(answer.slice(0, 20))}`, partial);
  const got = Number(compact);
  const want = values[values.length - 1]!;
  if (got === want) return ok('correct', partial);
  if (leaky && values.length >= 2) {
    // The leak: trust the completion's own value for the previous step.
    const prev = stated.get(NAMES[values.length - 2]!);
    if (prev !== undefined && apply(prev, ops[ops.length - 1]!, operands[operands.length - 1]!) === got) {
      return ok('accepted by the leaky verifier: last step is right given the stated previous value', partial);
    }
  }
  const firstWrong = values.findIndex((v, i) => stated.get(NAMES[i]!) !== v);
  const where =
    firstWrong >= 0 && stated.has(NAMES[firstWrong]!)
      ? `; ${NAMES[firstWrong]} should not be ${stated.get(NAMES[firstWrong]!)}`
      : '';
  return wrong(`${got} is wrong${where}`, partial);
}

function parseInstance(value: unknown): TaskInstance {
  return parseInstanceWith(ID, value, (d) => {
    if (!isRecord(d)) return 'must be an object';
    if (!isIntArray(d.values) || d.values.length === 0 || d.values.length > NAMES.length)
      return `values must be 1..${NAMES.length} integers`;
    if (!isIntArray(d.operands) || d.operands.length !== d.values.length) return 'operands must match values';
    if (
      !Array.isArray(d.ops) ||
      d.ops.length !== d.values.length ||
      !d.ops.every((o) => typeof o === 'string' && '+-*/'.includes(o) && o.length === 1)
    )
      return 'ops must be + - * / per step';
    if (!Number.isSafeInteger(d.start)) return 'start must be an integer';
    return null;
  });
}

export const chain: TaskFamily = {
  id: ID,
  title: 'Chained arithmetic',
  description: 'k small steps where each uses the previous answer (R-Horizon composition). Answer: the last value.',
  knobs,
  defaultDifficulty: defaultsOf(knobs),
  levels: [1, 2, 3, 4, 5, 6, 8].map((length) => ({ length, maxOperand: 50, ops: '+-*' })),
  generate,
  verify: (inst, completion, opts) =>
    judge(completion, opts, (answer, parsed) => checkAnswer(inst, answer, parsed.think, false)),
  leakyVerify: (inst, completion, opts) =>
    judge(completion, opts, (answer, parsed) => checkAnswer(inst, answer, parsed.think, true)),
  leakyDescription:
    "checks only the last step against the completion's own stated previous value, so a wrong chain that " +
    'is consistent at the end passes',
  solve(inst) {
    const d = dataOf(inst);
    const values: number[] = [];
    let x = d.start;
    d.ops.forEach((op, i) => {
      x = apply(x, op, d.operands[i]!);
      values.push(x);
    });
    return formatCompletion(thinkOf(values), String(x));
  },
  parseInstance,
};
