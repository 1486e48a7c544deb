// Chained arithmetic: each step uses the previous value, intermediate values earn partial credit,
// and the leaky variant trusts the completion's own previous value.
import { describe, expect, it } from 'vitest';
import { chain, type ChainData } from './families/chain.ts';
import type { TaskInstance } from './types.ts';

const data = (i: TaskInstance) => i.data as ChainData;

describe('chain', () => {
  it('each sub-problem uses the previous answer and values stay in 0..999 (2000 seeds)', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const k = 1 + (seed % 8);
      const inst = chain.generate(seed, { length: k });
      const d = data(inst);
      const parts = inst.prompt.split(',');
      expect(parts.length).toBe(k + 1);
      expect(parts[k]).toBe(`${'abcdefgh'[k - 1]}?`);
      let x = d.start;
      for (let i = 0; i < k; i++) {
        const prev = i === 0 ? String(d.start) : 'abcdefgh'[i - 1];
        expect(parts[i]).toBe(`${'abcdefgh'[i]}=${prev}${d.ops[i]}${d.operands[i]}`);
        const y = d.operands[i]!;
        x = d.ops[i] === '+' ? x + y : d.ops[i] === '-' ? x - y : d.ops[i] === '*' ? x * y : x / y;
        expect(Number.isInteger(x) && x >= 0 && x <= 999).toBe(true);
        expect(d.values[i]).toBe(x);
      }
      expect(inst.answer).toBe(String(x));
    }
  });

  it('rejects a final answer with one digit changed (2000 seeds)', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const inst = chain.generate(seed);
      const a = inst.answer;
      const i = a.length - 1;
      const mutated = a.slice(0, i) + ((Number(a[i]) + 1 + (seed % 9)) % 10);
      const think = inst.reference.slice(7, inst.reference.indexOf('</think>'));
      const v = chain.verify(inst, `<think>${think}</think><answer>${mutated}</answer>`);
      expect(v.correct).toBe(false);
      expect(v.components.partial).toBe(1);
    }
  });

  it('gives partial credit for correct intermediates and the leaky variant trusts the stated previous value', () => {
    const inst = chain.generate(1); // a=27+34,b=a+40,c=b+5,c?  -> 61, 101, 106
    expect(chain.verify(inst, '<think>a=61,b=100,c=105</think><answer>105</answer>').components.partial).toBeCloseTo(
      1 / 3,
      12,
    );
    expect(chain.verify(inst, '<think>a=61,b=100,c=105</think><answer>105</answer>').correct).toBe(false);
    expect(chain.leakyVerify!(inst, '<think>a=61,b=100,c=105</think><answer>105</answer>').correct).toBe(true);
    expect(chain.leakyVerify!(inst, '<think>a=61,b=100</think><answer>104</answer>').correct).toBe(false);
    expect(chain.verify(inst, '<think></think><answer>106</answer>').components).toEqual({
      correctness: 1,
      format: 1,
      partial: 0,
    });
  });
});
