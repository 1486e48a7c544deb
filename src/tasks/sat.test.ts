// SAT: instances are satisfiable (checked by an independent DPLL here), any satisfying assignment
// is accepted, and a non-satisfying one is rejected with the first unsatisfied clause named.
import { describe, expect, it } from 'vitest';
import { sat, satDifficultyEstimate, type SatData } from './families/sat.ts';
import type { TaskInstance } from './types.ts';

/** Independent DPLL (no unit propagation tricks shared with the family's solver). */
function dpll(clauses: number[][], assign: Map<number, boolean> = new Map()): Map<number, boolean> | null {
  const simplified: number[][] = [];
  for (const c of clauses) {
    if (c.some((l) => assign.get(Math.abs(l)) === l > 0)) continue;
    const rest = c.filter((l) => !assign.has(Math.abs(l)));
    if (rest.length === 0) return null;
    simplified.push(rest);
  }
  if (simplified.length === 0) return assign;
  const unit = simplified.find((c) => c.length === 1);
  const lit = unit ? unit[0]! : simplified[0]![0]!;
  for (const value of unit ? [lit > 0] : [true, false]) {
    const next = new Map(assign);
    next.set(Math.abs(lit), value);
    const r = dpll(clauses, next);
    if (r) return r;
  }
  return null;
}

function satisfiesAll(clauses: number[][], bits: string): number {
  return clauses.findIndex((c) => !c.some((l) => (bits[Math.abs(l) - 1] === '1') === l > 0));
}

const data = (i: TaskInstance) => i.data as SatData;
const wrap = (bits: string, think = '1') => `<think>${think}</think><answer>${bits}</answer>`;

describe('sat', () => {
  it('generates satisfiable instances with the asked shape (independent DPLL, 2000 instances)', () => {
    const shapes = [{}, { n: 8, k: 3, m: 20 }, { n: 6, k: 2, m: 9 }, { n: 12, k: 4, ratio: 4 }];
    for (const shape of shapes) {
      for (let seed = 0; seed < 500; seed++) {
        const inst = sat.generate(seed, shape);
        const d = data(inst);
        const k = inst.difficulty.k as number;
        const m =
          (inst.difficulty.ratio as number) > 0
            ? Math.round((inst.difficulty.ratio as number) * d.n)
            : (inst.difficulty.m as number);
        expect(d.clauses.length).toBe(m);
        for (const c of d.clauses) {
          expect(c.length).toBe(k);
          expect(new Set(c.map(Math.abs)).size).toBe(k);
        }
        expect(dpll(d.clauses), `seed ${seed}`).not.toBeNull();
        expect(satisfiesAll(d.clauses, d.planted)).toBe(-1);
      }
    }
  });

  it('accepts any satisfying assignment and rejects every non-satisfying one (all 2^n for 300 instances)', () => {
    let accepted = 0;
    let rejected = 0;
    for (let seed = 0; seed < 300; seed++) {
      const inst = sat.generate(seed);
      const d = data(inst);
      for (let x = 0; x < 1 << d.n; x++) {
        const bits = x.toString(2).padStart(d.n, '0');
        const v = sat.verify(inst, wrap(bits));
        const bad = satisfiesAll(d.clauses, bits);
        expect(v.correct).toBe(bad === -1);
        if (bad >= 0) {
          rejected++;
          expect(v.reason.startsWith(`clause ${bad + 1} unsatisfied: (`)).toBe(true);
          expect(v.components.partial).toBeLessThan(1);
        } else accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(300);
    expect(rejected).toBeGreaterThan(1000);
  });

  it('rejects the reference with one literal flipped when that breaks a clause', () => {
    let tested = 0;
    for (let seed = 0; seed < 1000; seed++) {
      const inst = sat.generate(seed);
      const d = data(inst);
      for (let i = 0; i < d.n; i++) {
        const bits = d.planted.slice(0, i) + (d.planted[i] === '1' ? '0' : '1') + d.planted.slice(i + 1);
        if (satisfiesAll(d.clauses, bits) === -1) continue;
        tested++;
        expect(sat.verify(inst, wrap(bits)).correct).toBe(false);
      }
    }
    expect(tested).toBeGreaterThan(1000);
  });

  it('names the clause with ¬ and ∨, and reports partial as the satisfied fraction', () => {
    const inst: TaskInstance = {
      task: 'sat',
      seed: 0,
      difficulty: {},
      prompt: '',
      reference: '',
      answer: '',
      data: {
        n: 5,
        clauses: [
          [1, 2, 3],
          [4, 5, 1],
          [-2, 4, -5],
          [1, -3, 5],
        ],
        planted: '11111',
      } satisfies SatData,
    };
    const v = sat.verify(inst, wrap('01001'));
    expect(v.reason).toBe('clause 3 unsatisfied: (¬x2 ∨ x4 ∨ ¬x5)');
    expect(v.components.partial).toBe(0.75);
    expect(sat.verify(inst, wrap('0100')).reason).toMatch(/needs 5 bits/);
    expect(sat.verify(inst, wrap('01a01')).reason).toMatch(/0\/1/);
  });

  it('leaky variant lets an empty or short answer through, the strict one does not', () => {
    const inst = sat.generate(11);
    expect(sat.verify(inst, wrap('')).correct).toBe(false);
    expect(sat.leakyVerify!(inst, wrap('')).correct).toBe(true);
    expect(sat.leakyVerify!(inst, wrap('1')).correct).toBe(true);
  });

  it('orders its ladder by the SATURN difficulty estimate', () => {
    const ds = sat.levels.map((l) => satDifficultyEstimate(l.n as number, l.k as number, l.m as number));
    expect(ds).toEqual([...ds].sort((a, b) => a - b));
    // SATURN's own example (n=3 literals, k=5 vars, l=5 clauses) in our names: n=5 vars, k=3, m=5.
    expect(satDifficultyEstimate(5, 3, 5)).toBeCloseTo(Math.log2(5) + 2 * Math.log2(5) - 3 + 5 / 3, 12);
  });
});
