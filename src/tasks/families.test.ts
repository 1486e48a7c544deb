// Properties every built-in family must have: references and solver outputs score full reward,
// instances are deterministic, compact and tokenizable, and bad knobs are rejected by name.
import { describe, expect, it } from 'vitest';
import { countTokens, isTokenizable, parseCompletion } from './format.ts';
import { getTaskFamily, taskFamilies, taskIds } from './registry.ts';
import { maxReward, shapeReward } from './reward.ts';
import type { Difficulty, TaskFamily } from './types.ts';

const builtins = taskFamilies.filter((f) => f.id !== 'custom');
const SEEDS = 1500;

function fullReward(f: TaskFamily, inst: ReturnType<TaskFamily['generate']>, completion: string) {
  const v = f.verify(inst, completion);
  const shaped = shapeReward(v, {
    completionLength: countTokens(completion),
    maxLength: 256,
    weights: { correctness: 0.5, format: 0.2, partial: 0.3 },
  });
  return { v, shaped };
}

describe('registry', () => {
  it('has exactly the agreed ids', () => {
    expect(taskIds).toEqual(['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain', 'custom']);
  });
  it('names the known ids for an unknown one', () => {
    expect(() => getTaskFamily('chess')).toThrow(
      /unknown task "chess".*arithmetic, countdown, sat, sudoku, sort, chain, custom/,
    );
  });
  it('every family has knobs whose defaults form its defaultDifficulty, and a non-empty ladder', () => {
    for (const f of builtins) {
      expect(Object.keys(f.defaultDifficulty).sort()).toEqual(f.knobs.map((k) => k.name).sort());
      expect(f.levels.length).toBeGreaterThan(2);
      for (const lv of f.levels) expect(() => f.generate(0, lv)).not.toThrow();
      expect(f.leakyVerify).toBeTypeOf('function');
    }
  });
});

describe.each(builtins.map((f) => [f.id, f] as const))('%s', (_id, f) => {
  it(`reference and solver score full reward over ${SEEDS} seeds at the default difficulty`, () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const inst = f.generate(seed);
      const ref = fullReward(f, inst, inst.reference);
      expect(ref.v.correct, `seed ${seed}: ${ref.v.reason}`).toBe(true);
      expect(ref.v.components.format).toBe(1);
      if (ref.v.components.partial !== undefined) expect(ref.v.components.partial).toBe(1);
      const expected = ref.v.components.partial === undefined ? 0.7 : 1;
      expect(ref.shaped.total).toBeCloseTo(expected, 12);
      expect(parseCompletion(inst.reference).answer).toBe(inst.answer);
      const solved = f.solve(inst);
      expect(f.verify(inst, solved).correct, `seed ${seed} solver`).toBe(true);
    }
  });

  it('reference scores full reward on every ladder level', () => {
    for (const lv of f.levels) {
      for (let seed = 0; seed < 60; seed++) {
        const inst = f.generate(seed, lv);
        const v = f.verify(inst, inst.reference);
        expect(v.correct, `${JSON.stringify(lv)} seed ${seed}: ${v.reason}`).toBe(true);
        expect(v.components.format).toBe(1);
        // The leaky verifier is lenient, never stricter than the real one.
        expect(f.leakyVerify!(inst, inst.reference).correct).toBe(true);
        expect(shapeReward(v, { completionLength: 10, maxLength: 256 }).total).toBeCloseTo(maxReward(), 12);
      }
    }
  });

  it('is deterministic and JSON-serialisable', () => {
    for (const seed of [0, 1, 42, 123456, -7]) {
      const a = f.generate(seed);
      const b = f.generate(seed);
      expect(b).toEqual(a);
      expect(JSON.parse(JSON.stringify(a))).toEqual(a);
      expect(f.parseInstance(JSON.parse(JSON.stringify(a)))).toEqual(a);
    }
    const prompts = new Set(Array.from({ length: 50 }, (_, s) => f.generate(s).prompt));
    expect(prompts.size).toBeGreaterThan(40);
  });

  it('keeps default prompts compact and tokenizable', () => {
    let promptTotal = 0;
    let refTokens = 0;
    for (let seed = 0; seed < 300; seed++) {
      const inst = f.generate(seed);
      expect(isTokenizable(inst.prompt)).toBe(true);
      expect(isTokenizable(inst.reference)).toBe(true);
      expect(inst.prompt.length).toBeLessThanOrEqual(52);
      expect(countTokens(inst.reference)).toBeLessThanOrEqual(100);
      promptTotal += inst.prompt.length;
      refTokens += countTokens(inst.reference);
    }
    expect(promptTotal / 300).toBeLessThanOrEqual(48);
    expect(refTokens / 300).toBeLessThanOrEqual(80);
  });

  it('rejects unknown knobs and out-of-range values, naming the knob', () => {
    expect(() => f.generate(1, { bogus: 1 } as Partial<Difficulty>)).toThrow(/unknown knob "bogus"/);
    for (const k of f.knobs) {
      if (typeof k.default === 'number') {
        if (k.max !== undefined)
          expect(() => f.generate(1, { [k.name]: k.max! + 1 })).toThrow(new RegExp(`"${k.name}"`));
        expect(() => f.generate(1, { [k.name]: 'x' })).toThrow(new RegExp(`"${k.name}"`));
      } else {
        expect(() => f.generate(1, { [k.name]: 'no-such-value?' })).toThrow(new RegExp(`"${k.name}"`));
        expect(() => f.generate(1, { [k.name]: 3 })).toThrow(new RegExp(`"${k.name}"`));
      }
    }
    expect(() => f.generate(1.5)).toThrow(/seed/);
  });

  it('rejects a broken instance file with a message', () => {
    const inst = f.generate(3);
    expect(() => f.parseInstance('nope')).toThrow(/object/);
    expect(() => f.parseInstance({ ...inst, task: 'other' })).toThrow(/task/);
    expect(() => f.parseInstance({ ...inst, data: null })).toThrow(/data/);
    expect(() => f.parseInstance({ ...inst, prompt: 5 })).toThrow(/prompt/);
  });

  it('gives format 0 but still grades a right answer without the think block', () => {
    const inst = f.generate(5);
    const v = f.verify(inst, `<answer>${inst.answer}</answer>`);
    expect(v.correct).toBe(true);
    expect(v.components.format).toBe(0);
    expect(shapeReward(v, { completionLength: 5, maxLength: 100 }).total).toBeCloseTo(0.9, 12);
    expect(
      f.verify(inst, `<answer>${inst.answer}</answer>`, {
        format: { thinkTag: 'think', answerTag: 'answer', requireThink: false },
      }).components.format,
    ).toBe(1);
    const none = f.verify(inst, inst.answer);
    expect(none.correct).toBe(false);
    expect(shapeReward(none, { completionLength: 5, maxLength: 100 }).total).toBe(0);
  });
});

describe('fixed-seed snapshots (same instance in Node and the browser)', () => {
  const cases: [string, number, string, string][] = [
    ['arithmetic', 1, '664+68=', '<think>4+8=12;6+6+1=13;6+0+1=7</think><answer>732</answer>'],
    ['arithmetic', 2, '570-56=', '<think>10-6=4;6-5=1;5-0=5</think><answer>514</answer>'],
    ['countdown', 1, '4 18 21 13 -> 22', '<think>18-13=5;5+21=26;26-4=22</think><answer>18-13+21-4</answer>'],
    ['countdown', 7, '4 2 22 19 -> 32', '<think>4*19=76;2*22=44;76-44=32</think><answer>4*19-2*22</answer>'],
    ['sat', 1, 'sat 5: 1 2 4|1 4 -5|-1 2 -3|-2 4 -5|-1 -3 4', '<think>4 4 -1 -2 -1</think><answer>00011</answer>'],
    [
      'sudoku',
      1,
      '4x4:..../3.14/2341/14.2',
      '<think>a1=4 a4=3 b2=2 d3=3 a2=1 a3=2</think><answer>4123/3214/2341/1432</answer>',
    ],
    ['sort', 1, 'asc: 27 42 41 30 11', '<think>11<27<30<41<42</think><answer>11 27 30 41 42</answer>'],
    ['chain', 1, 'a=27+34,b=a+40,c=b+5,c?', '<think>a=61,b=101,c=106</think><answer>106</answer>'],
  ];
  it.each(cases)('%s seed %i', (task, seed, prompt, reference) => {
    const inst = getTaskFamily(task).generate(seed);
    expect(inst.prompt).toBe(prompt);
    expect(inst.reference).toBe(reference);
  });
});
