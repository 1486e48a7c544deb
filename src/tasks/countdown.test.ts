// Countdown: instances are solvable (checked by brute force here), the strict verifier enforces
// "each given number at most once" and rejects numbers not in the question (a bug once reported against Reasoning Gym's
// countdown verifier),
// the leaky one does not.
import { describe, expect, it } from 'vitest';
import { countdown, type CountdownData } from './families/countdown.ts';
import type { TaskInstance } from './types.ts';

const data = (i: TaskInstance) => i.data as CountdownData;
const wrap = (a: string) => `<think>t</think><answer>${a}</answer>`;

/** All values reachable with rational arithmetic using each number at most once. */
function reachable(nums: number[]): Set<string> {
  const out = new Set<string>();
  const key = (n: number, d: number) => `${n}/${d}`;
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : Math.abs(a));
  const rec = (pool: [number, number][]) => {
    for (const [n, d] of pool) out.add(key(n / gcd(n, d), d / gcd(n, d)));
    for (let i = 0; i < pool.length; i++)
      for (let j = 0; j < pool.length; j++) {
        if (i === j) continue;
        const [a, b] = [pool[i]!, pool[j]!];
        const rest = pool.filter((_, k) => k !== i && k !== j);
        const cands: [number, number][] = [
          [a[0] * b[1] + b[0] * a[1], a[1] * b[1]],
          [a[0] * b[1] - b[0] * a[1], a[1] * b[1]],
          [a[0] * b[0], a[1] * b[1]],
        ];
        if (b[0] !== 0) cands.push([a[0] * b[1], a[1] * b[0]]);
        for (let [n, d] of cands) {
          if (d < 0) [n, d] = [-n, -d];
          const g = gcd(n, d) || 1;
          rec([...rest, [n / g, d / g]]);
        }
      }
  };
  rec(nums.map((n) => [n, 1]));
  return out;
}

describe('countdown', () => {
  it('every instance is solvable (independent brute force over 400 instances of 3-4 numbers)', () => {
    for (let seed = 0; seed < 400; seed++) {
      const inst = countdown.generate(seed, seed % 2 ? {} : { count: 3, maxNumber: 10, minTarget: 5, maxTarget: 30 });
      const { numbers, target } = data(inst);
      expect(numbers.includes(target)).toBe(false);
      expect(reachable(numbers).has(`${target}/1`), `seed ${seed}`).toBe(true);
    }
  });

  it('rejects a reused number ("used 7 twice"), the leaky variant accepts it', () => {
    const inst: TaskInstance = {
      task: 'countdown',
      seed: 0,
      difficulty: {},
      prompt: '3 7 25 50 -> 57',
      reference: '',
      answer: '',
      data: { numbers: [3, 7, 25, 50], target: 57 },
    };
    const strict = countdown.verify(inst, wrap('50+7'));
    expect(strict.correct).toBe(true);
    const reused = countdown.verify(inst, wrap('7*7+7+(3-3)+25-25+1*0'));
    expect(reused.correct).toBe(false);
    expect(reused.reason).toBe('used 7 twice');
    expect(countdown.leakyVerify!(inst, wrap('7*7+7+3-3+1')).correct).toBe(true);
    expect(countdown.verify(inst, wrap('7*7+7+3-3+1')).reason).toBe('used 7 twice');
  });

  it(
    'rejects numbers not in the question (as the fixed Reasoning Gym verifier does), the leaky variant ' +
      'accepts them',
    () => {
      const inst: TaskInstance = {
        task: 'countdown',
        seed: 0,
        difficulty: {},
        prompt: '',
        reference: '',
        answer: '',
        data: { numbers: [3, 7, 25, 50], target: 57 },
      };
      expect(countdown.verify(inst, wrap('57')).reason).toBe('used 57, which is not one of the given numbers');
      expect(countdown.verify(inst, wrap('50+8-1')).reason).toMatch(/used 8, which is not one/);
      expect(countdown.leakyVerify!(inst, wrap('57')).correct).toBe(true);
      expect(countdown.leakyVerify!(inst, wrap('50+8-1')).correct).toBe(true);
    },
  );

  it('judges values exactly: fractions, division by zero, wrong totals', () => {
    const inst: TaskInstance = {
      task: 'countdown',
      seed: 0,
      difficulty: {},
      prompt: '',
      reference: '',
      answer: '',
      data: { numbers: [2, 3, 4, 6], target: 9 },
    };
    expect(countdown.verify(inst, wrap('6/4*(3+3)')).correct).toBe(false);
    expect(countdown.verify(inst, wrap('6/4*6')).reason).toBe('used 6 twice');
    expect(countdown.verify(inst, wrap('3/2*6')).correct).toBe(true);
    expect(countdown.verify(inst, wrap('6/(3-3)')).reason).toMatch(/used 3 twice/);
    expect(countdown.leakyVerify!(inst, wrap('6/(3-3)')).reason).toMatch(/division by zero/);
    expect(countdown.verify(inst, wrap('6/4')).reason).toBe('evaluates to 3/2, not 9');
    expect(countdown.verify(inst, wrap('3*2+6')).reason).toBe('evaluates to 12, not 9');
    expect(countdown.verify(inst, wrap('3*(2+4)/2')).reason).toBe('used 2 twice');
    expect(countdown.verify(inst, wrap('3/2*6=9')).correct).toBe(true);
    expect(countdown.verify(inst, wrap('-3+6+6')).reason).toMatch(/unary/);
  });

  it('gives partial credit for legal expressions by how close they land, none for illegal ones', () => {
    const inst: TaskInstance = {
      task: 'countdown',
      seed: 0,
      difficulty: {},
      prompt: '',
      reference: '',
      answer: '',
      data: { numbers: [2, 3, 4, 6], target: 9 },
    };
    const partial = (answer: string) => countdown.verify(inst, wrap(answer)).components.partial;
    expect(partial('3/2*6')).toBe(1);
    expect(partial('3*2+6')).toBeCloseTo(1 - 3 / 9, 12); // 12
    expect(partial('6/4')).toBeCloseTo(1 - 7.5 / 9, 12); // 3/2
    expect(partial('6*4*3')).toBe(0); // 72: more than twice the target
    expect(partial('6/4*6')).toBeUndefined(); // 6 used twice: no credit at all
    expect(partial('9')).toBeUndefined(); // not a given number
  });

  it('rejects the reference with one digit changed (1500 seeds)', () => {
    let changed = 0;
    for (let seed = 0; seed < 1500; seed++) {
      const inst = countdown.generate(seed);
      const a = inst.answer;
      const i = [...a].findIndex((c) => c >= '0' && c <= '9');
      const digit = Number(a[i]);
      const mutated = a.slice(0, i) + String((digit + 1 + (seed % 8)) % 10) + a.slice(i + 1);
      const v = countdown.verify(inst, wrap(mutated));
      // A changed digit either names a number not given or misses the target.
      if (v.correct) {
        // Only possible when the new number is also given and reaches the same value.
        expect(data(inst).numbers.map(String)).toContain(mutated.slice(i).match(/^\d+/)![0]);
      } else changed++;
    }
    expect(changed).toBeGreaterThan(1450);
  });

  it('reference uses each number at most once and shows its steps', () => {
    for (let seed = 0; seed < 300; seed++) {
      const inst = countdown.generate(seed, { count: 5, maxNumber: 50, minTarget: 100, maxTarget: 500 });
      const steps = inst.reference.slice('<think>'.length, inst.reference.indexOf('</think>')).split(';');
      expect(steps.length).toBeGreaterThanOrEqual(1);
      expect(steps[steps.length - 1]!.endsWith(`=${data(inst).target}`)).toBe(true);
    }
  });
});
