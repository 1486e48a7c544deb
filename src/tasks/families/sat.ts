/**
 * Random k-SAT as in SATURN: plant an assignment, sample only clauses it satisfies, ask for an
 * n-bit assignment, accept ANY satisfying one. Prompt "sat 5: 1 -2 3|-1 2 4|..." lists clauses as
 * signed variable numbers; the answer is a bit string x1..xn ("10110"). The thinking part names,
 * per clause, one literal the assignment makes true.
 */
import { formatCompletion } from '../format.ts';
import { checkSeed, defaultsOf, isRecord, num, parseInstanceWith, resolveDifficulty, rngFor } from '../knobs.ts';
import type { Difficulty, KnobSpec, TaskFamily, TaskInstance } from '../types.ts';
import { judge, ok, wrong, type AnswerCheck } from '../verdict.ts';

const ID = 'sat';

const knobs: KnobSpec[] = [
  { name: 'n', description: 'number of variables', default: 5, min: 2, max: 26 },
  { name: 'k', description: 'literals per clause', default: 3, min: 1, max: 8 },
  { name: 'm', description: 'number of clauses (ignored when ratio > 0)', default: 5, min: 1, max: 200 },
  {
    name: 'ratio',
    description: 'clauses per variable; when > 0, m = round(ratio * n)',
    default: 0,
    min: 0,
    max: 10,
    integer: false,
  },
];

export interface SatData {
  n: number;
  /** Clauses as signed 1-based variable numbers. */
  clauses: number[][];
  /** The planted assignment as a bit string x1..xn. */
  planted: string;
}

/** SATURN's difficulty estimate, in our names: D = log2(n) + 2·log2(m) − k + n/k. */
export function satDifficultyEstimate(n: number, k: number, m: number): number {
  return Math.log2(n) + 2 * Math.log2(m) - k + n / k;
}

function resolve(partial?: Partial<Difficulty>): Difficulty {
  const d = resolveDifficulty(ID, knobs, partial);
  if (num(d, 'k') > num(d, 'n')) throw new Error(`${ID}: knob "k" (literals per clause) must be <= n (variables)`);
  const ratio = num(d, 'ratio');
  if (ratio > 0) {
    const m = Math.round(ratio * num(d, 'n'));
    if (m < 1 || m > 200) throw new Error(`${ID}: knob "ratio" gives m = ${m}, outside 1..200`);
  }
  return d;
}

export function clauseCount(d: Difficulty): number {
  const ratio = num(d, 'ratio');
  return ratio > 0 ? Math.round(ratio * num(d, 'n')) : num(d, 'm');
}

function satisfies(clause: number[], bits: string): boolean {
  return clause.some((lit) => (bits[Math.abs(lit) - 1] === '1') === lit > 0);
}

function generate(seed: number, partial?: Partial<Difficulty>): TaskInstance {
  checkSeed(ID, seed);
  const difficulty = resolve(partial);
  const rng = rngFor(ID, seed);
  const n = num(difficulty, 'n');
  const k = num(difficulty, 'k');
  const m = clauseCount(difficulty);
  const planted = Array.from({ length: n }, () => (rng.next() < 0.5 ? '1' : '0')).join('');
  const clauses: number[][] = [];
  const seen = new Set<string>();
  for (let tries = 0; clauses.length < m; tries++) {
    const vars = rng
      .shuffle(Array.from({ length: n }, (_, i) => i + 1))
      .slice(0, k)
      .sort((a, b) => a - b);
    const clause = vars.map((v) => (rng.next() < 0.5 ? -v : v));
    // Rejection keeps the clause uniform among those the planted assignment satisfies.
    if (!satisfies(clause, planted)) continue;
    const key = clause.join(' ');
    if (seen.has(key) && tries < 100 * m) continue;
    seen.add(key);
    clauses.push(clause);
  }
  const data: SatData = { n, clauses, planted };
  return {
    task: ID,
    seed,
    difficulty,
    prompt: promptOf(data),
    reference: completionFor(data, planted),
    answer: planted,
    data,
  };
}

function promptOf(d: SatData): string {
  return `sat ${d.n}: ${d.clauses.map((c) => c.join(' ')).join('|')}`;
}

function completionFor(d: SatData, bits: string): string {
  const witness = d.clauses.map((c) => c.find((lit) => (bits[Math.abs(lit) - 1] === '1') === lit > 0) ?? c[0]!);
  return formatCompletion(witness.join(' '), bits);
}

export function clauseText(clause: number[]): string {
  return `(${clause.map((l) => (l < 0 ? `¬x${-l}` : `x${l}`)).join(' ∨ ')})`;
}

/** Small DPLL with unit propagation; enough for n <= 26. */
export function solveSat(n: number, clauses: number[][]): string | null {
  const assign = new Int8Array(n + 1); // 0 unknown, 1 true, -1 false
  const value = (lit: number) => assign[Math.abs(lit)]! * Math.sign(lit);
  const dpll = (): boolean => {
    const trail: number[] = [];
    for (let changed = true; changed; ) {
      changed = false;
      for (const c of clauses) {
        let unknown = 0;
        let last = 0;
        let sat = false;
        for (const lit of c) {
          const v = value(lit);
          if (v > 0) {
            sat = true;
            break;
          }
          if (v === 0) {
            unknown++;
            last = lit;
          }
        }
        if (sat) continue;
        if (unknown === 0) {
          for (const x of trail) assign[x] = 0;
          return false;
        }
        if (unknown === 1) {
          assign[Math.abs(last)] = last > 0 ? 1 : -1;
          trail.push(Math.abs(last));
          changed = true;
        }
      }
    }
    let pick = 0;
    for (let v = 1; v <= n && !pick; v++) if (assign[v] === 0) pick = v;
    if (!pick) return true;
    for (const val of [1, -1]) {
      assign[pick] = val;
      if (dpll()) return true;
    }
    assign[pick] = 0;
    for (const x of trail) assign[x] = 0;
    return false;
  };
  if (!dpll()) return null;
  let bits = '';
  for (let v = 1; v <= n; v++) bits += assign[v] === -1 ? '0' : '1';
  return bits;
}

function dataOf(inst: TaskInstance): SatData {
  return inst.data as SatData;
}

/** Leaky reads missing or non-bit positions as "don't care", which satisfies any literal. */
function checkAnswer(inst: TaskInstance, answer: string, leaky: boolean): AnswerCheck {
  const { n, clauses } = dataOf(inst);
  const bits = answer.replace(/[\s,]/g, '');
  if (!leaky) {
    if (!/^[01]*$/.test(bits)) return wrong(`answer must be ${n} bits of 0/1 (x1..x${n})`, 0);
    if (bits.length !== n) return wrong(`answer needs ${n} bits (x1..x${n}), got ${bits.length}`, 0);
  }
  const holds = (c: number[]) =>
    c.some((lit) => {
      const b = bits[Math.abs(lit) - 1];
      return leaky && b !== '0' && b !== '1' ? true : (b === '1') === lit > 0;
    });
  let satisfied = 0;
  let firstBad = -1;
  clauses.forEach((c, i) => {
    if (holds(c)) satisfied++;
    else if (firstBad < 0) firstBad = i;
  });
  const partial = clauses.length ? satisfied / clauses.length : 1;
  if (firstBad >= 0) return wrong(`clause ${firstBad + 1} unsatisfied: ${clauseText(clauses[firstBad]!)}`, partial);
  if (leaky && (bits.length !== n || !/^[01]*$/.test(bits)))
    return ok('accepted by the leaky verifier: unset variables count as satisfying', partial);
  return ok('correct: all clauses satisfied', partial);
}

function parseInstance(value: unknown): TaskInstance {
  return parseInstanceWith(ID, value, (d) => {
    if (!isRecord(d)) return 'must be an object';
    const n = d.n;
    if (!Number.isSafeInteger(n) || (n as number) < 1 || (n as number) > 64) return 'n must be an integer 1..64';
    if (!Array.isArray(d.clauses) || d.clauses.length > 1000) return 'clauses must be a list';
    for (const c of d.clauses) {
      if (
        !Array.isArray(c) ||
        c.length === 0 ||
        !c.every((l) => Number.isSafeInteger(l) && l !== 0 && Math.abs(l) <= (n as number))
      ) {
        return 'each clause must be a non-empty list of literals ±1..±n';
      }
    }
    return null;
  });
}

/** SATURN-style ladder, ordered by the difficulty estimate D. */
const ladder: Difficulty[] = (
  [
    [3, 2, 3],
    [4, 2, 4],
    [4, 3, 4],
    [5, 3, 5],
    [5, 3, 6],
    [5, 3, 8],
    [6, 3, 10],
    [7, 3, 13],
    [8, 3, 16],
    [10, 3, 21],
  ] as const
)
  .map(([n, k, m]) => ({ n, k, m, ratio: 0 }))
  .sort((a, b) => satDifficultyEstimate(a.n, a.k, a.m) - satDifficultyEstimate(b.n, b.k, b.m));

export const sat: TaskFamily = {
  id: ID,
  title: 'SAT (SATURN)',
  description: 'Random k-SAT with a planted solution; answer any satisfying assignment as bits x1..xn.',
  knobs,
  defaultDifficulty: defaultsOf(knobs),
  levels: ladder,
  generate,
  verify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, false)),
  leakyVerify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, true)),
  leakyDescription:
    'treats missing or non-bit positions as wildcards that satisfy any literal, so an empty or short answer passes',
  solve(inst) {
    const d = dataOf(inst);
    const bits = solveSat(d.n, d.clauses);
    if (!bits) throw new Error(`${ID}: instance is unsatisfiable`);
    return completionFor(d, bits);
  },
  parseInstance,
};
