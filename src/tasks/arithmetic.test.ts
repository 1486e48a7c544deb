// Arithmetic: the working shows carries, a changed digit is rejected with digit-accuracy partial
// credit, and the leaky variant accepts the right number anywhere in the completion.
import { describe, expect, it } from 'vitest';
import { arithmetic, working, type ArithmeticData } from './families/arithmetic.ts';

const wrap = (a: string, t = 'x') => `<think>${t}</think><answer>${a}</answer>`;

describe('arithmetic', () => {
  it('shows the column working with carries and borrows', () => {
    expect(working(347n, 85n, '+')).toBe('7+5=12;4+8+1=13;3+0+1=4');
    expect(working(503n, 78n, '-')).toBe('13-8=5;9-7=2;4-0=4');
    expect(working(347n, 6n, '*')).toBe('7*6=42;4*6+4=28;3*6+2=20');
    expect(working(347n, 85n, '*')).toBe('347*5=1735;347*80=27760;sum=29495');
  });

  it('computes the right result for every op over 2000 seeds', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const inst = arithmetic.generate(seed, { digits: 1 + (seed % 8), mulDigits: 1 + (seed % 3) });
      const d = inst.data as ArithmeticData;
      const [a, b] = [BigInt(d.a), BigInt(d.b)];
      const want = d.op === '+' ? a + b : d.op === '-' ? a - b : a * b;
      expect(d.result).toBe(want.toString());
      expect(want >= 0n).toBe(true);
      expect(inst.prompt).toBe(`${d.a}${d.op}${d.b}=`);
    }
  });

  it('rejects the answer with one digit changed, with digit-accuracy partial credit', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const inst = arithmetic.generate(seed);
      const ans = inst.answer;
      const i = seed % ans.length;
      const nd = (Number(ans[i]) + 1 + (seed % 9)) % 10;
      if (i === 0 && nd === 0 && ans.length > 1) continue;
      const mutated = ans.slice(0, i) + nd + ans.slice(i + 1);
      const v = arithmetic.verify(inst, wrap(mutated));
      expect(v.correct).toBe(false);
      expect(v.components.format).toBe(1);
      expect(v.components.partial).toBeCloseTo((ans.length - 1) / ans.length, 12);
    }
  });

  it('accepts equivalent spellings and rejects non-numbers', () => {
    const inst = arithmetic.generate(1); // 664+68=732
    expect(arithmetic.verify(inst, wrap(' 0732 ')).correct).toBe(true);
    expect(arithmetic.verify(inst, wrap('7 32')).correct).toBe(true);
    expect(arithmetic.verify(inst, wrap('seven')).reason).toMatch(/not an integer/);
    expect(arithmetic.verify(inst, wrap('732.0')).correct).toBe(false);
  });

  it('leaky variant pays for the right number anywhere, even with no answer tag', () => {
    const inst = arithmetic.generate(1);
    const spam = '<think>730 731 732 733</think><answer>1</answer>';
    expect(arithmetic.verify(inst, spam).correct).toBe(false);
    expect(arithmetic.leakyVerify!(inst, spam).correct).toBe(true);
    expect(arithmetic.leakyVerify!(inst, 'maybe 732?').correct).toBe(true);
    expect(arithmetic.leakyVerify!(inst, 'maybe 7321?').correct).toBe(false);
  });
});
