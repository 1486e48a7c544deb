// Sorting: exact mode, Kendall-tau partial credit, ties in any order, and the leaky variant that
// ignores whether the answer holds the given items.
import { describe, expect, it } from 'vitest';
import { kendallAgreement, sort, type SortData } from './families/sort.ts';
import type { TaskInstance } from './types.ts';

const wrap = (a: string) => `<think>s</think><answer>${a}</answer>`;
const data = (i: TaskInstance) => i.data as SortData;

describe('sort', () => {
  it('rejects the reference with two items swapped, in every key (2000 seeds)', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const inst = sort.generate(seed, { key: 'mixed', length: 3 + (seed % 8) });
      const items = data(inst).sorted.slice();
      const i = seed % (items.length - 1);
      const j = i + 1 + (seed % (items.length - 1 - i));
      const cmpKey = data(inst).key;
      const sameKey = cmpKey === 'len' ? items[i]!.length === items[j]!.length : items[i] === items[j];
      [items[i], items[j]] = [items[j]!, items[i]!];
      const v = sort.verify(inst, wrap(items.join(' ')), { sortMetric: 'kendall' });
      if (sameKey) {
        expect(v.correct).toBe(true);
      } else {
        expect(v.correct).toBe(false);
        expect(v.components.partial!).toBeLessThan(1);
        expect(v.components.partial!).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('computes normalised Kendall tau agreement', () => {
    expect(kendallAgreement(['1', '2', '3', '4'], 'asc')).toBe(1);
    expect(kendallAgreement(['4', '3', '2', '1'], 'asc')).toBe(0);
    expect(kendallAgreement(['2', '1', '3', '4'], 'asc')).toBeCloseTo(5 / 6, 12);
    expect(kendallAgreement(['ox', 'at', 'cat'], 'len')).toBe(1);
  });

  it('leaves partial unset in exact mode and sets it in kendall mode', () => {
    const inst = sort.generate(3);
    const rev = data(inst).sorted.slice().reverse().join(' ');
    expect(sort.verify(inst, wrap(rev)).components.partial).toBeUndefined();
    expect(sort.verify(inst, wrap(rev), { sortMetric: 'kendall' }).components.partial).toBe(0);
    expect(sort.verify(inst, inst.reference, { sortMetric: 'kendall' }).components.partial).toBe(1);
  });

  it('accepts any order among equal keys, rejects missing, extra and repeated items', () => {
    const inst: TaskInstance = {
      task: 'sort',
      seed: 0,
      difficulty: {},
      prompt: '',
      reference: '',
      answer: '',
      data: { key: 'len', items: ['cat', 'ox', 'dog', 'tree'], sorted: ['ox', 'cat', 'dog', 'tree'] },
    };
    expect(sort.verify(inst, wrap('ox dog cat tree')).correct).toBe(true);
    expect(sort.verify(inst, wrap('ox, cat, dog, tree')).correct).toBe(true);
    expect(sort.verify(inst, wrap('ox cat tree')).reason).toBe('missing dog');
    expect(sort.verify(inst, wrap('ox cat dog tree tree')).correct).toBe(false);
    expect(sort.verify(inst, wrap('ox cat dog tree a')).correct).toBe(false);
    expect(sort.verify(inst, wrap('cat ox dog tree')).reason).toBe('cat should come after ox');
  });

  it('leaky variant accepts any ordered list, the strict one does not', () => {
    const inst = sort.generate(8);
    expect(sort.verify(inst, wrap('1 2 3')).correct).toBe(false);
    expect(sort.leakyVerify!(inst, wrap('1 2 3')).correct).toBe(true);
    expect(sort.leakyVerify!(inst, wrap('3 2 1')).correct).toBe(false);
  });

  it('states each key in the prompt', () => {
    for (const key of ['asc', 'desc', 'len', 'abc']) {
      const inst = sort.generate(1, { key });
      expect(inst.prompt.startsWith(`${key}: `)).toBe(true);
      expect(data(inst).items.length).toBe(5);
    }
  });
});
