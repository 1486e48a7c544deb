// Any string at all gets a verdict with a reason, never an exception, in bounded time.
import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.ts';
import { makeCustomFamily } from './families/custom.ts';
import { parseDataset } from './dataset.ts';
import { taskFamilies } from './registry.ts';
import { shapeReward } from './reward.ts';
import type { TaskFamily, TaskInstance, Verdict } from './types.ts';

function adversarialStrings(inst: TaskInstance): string[] {
  const rng = new Rng(99);
  const noise = (n: number, lo: number, hi: number) =>
    Array.from({ length: n }, () => String.fromCharCode(rng.int(lo, hi))).join('');
  const big = '9'.repeat(100_000);
  const wrapA = (a: string) => `<think>x</think><answer>${a}</answer>`;
  const list = [
    '',
    ' ',
    '\n\n\n',
    'x'.repeat(100_000),
    big,
    wrapA(big),
    `<think>${big}</think>`,
    wrapA('9'.repeat(190)),
    wrapA('9'.repeat(201)),
    wrapA('('.repeat(5000) + '1' + ')'.repeat(5000)),
    wrapA('('.repeat(90) + '1' + ')'.repeat(90)),
    wrapA('('.repeat(33) + '3' + ')'.repeat(33)),
    wrapA('1/0'),
    wrapA('0/0'),
    wrapA('3/(7-7)'),
    wrapA('999999999999*999999999999*999999999999*999999999999*999999999999*999999999999*999999999999'),
    wrapA('1' + '*1'.repeat(99)),
    wrapA(''),
    wrapA('   '),
    wrapA('-'),
    wrapA('+-*/()'),
    wrapA('NaN'),
    wrapA('Infinity'),
    wrapA('1e308'),
    wrapA('0x1F'),
    wrapA('__proto__'),
    wrapA('constructor'),
    wrapA('\u0000\u0001\u0002\u0007'),
    wrapA('¬x1 ∨ x2 😀 中文'),
    wrapA('\ud800'),
    wrapA(inst.answer + '\u0000'),
    wrapA(inst.answer + ' ' + inst.answer),
    '<think>',
    '</think>',
    '<answer>',
    '</answer>',
    '<answer></answer>',
    '<answer><answer></answer></answer>',
    '</answer>' + inst.answer + '<answer>',
    '<think><answer>' + inst.answer + '</answer></think>',
    '<think></think><answer>' + inst.answer + '</answer><answer>0</answer>',
    '<think></think><answer>' + inst.answer + '</answer>garbage',
    '<think></think>\n<answer>\n' + inst.answer + '\n</answer>\n',
    '<think>'.repeat(1000) + inst.answer,
    '<answer>'.repeat(500) + '</answer>'.repeat(500),
    noise(5000, 0, 0xffff),
    noise(4000, 0, 127),
    noise(4096, 32, 126),
    wrapA(noise(150, 32, 126)),
    wrapA(noise(150, 40, 57)),
  ];
  for (let i = 0; i < 200; i++) list.push(wrapA(noise(rng.int(0, 60), 32, 126)));
  for (let i = 0; i < 200; i++) list.push(wrapA(noise(rng.int(0, 40), 40, 57)));
  return list;
}

function checkVerdict(v: Verdict) {
  expect(typeof v.correct).toBe('boolean');
  expect(typeof v.reason).toBe('string');
  expect(v.reason.length).toBeGreaterThan(0);
  expect(v.reason.length).toBeLessThan(300);
  for (const x of [v.components.correctness, v.components.format, v.components.partial ?? 0]) {
    expect(Number.isFinite(x) && x >= 0 && x <= 1).toBe(true);
  }
  expect(Number.isFinite(shapeReward(v, { completionLength: 10, maxLength: 100 }).total)).toBe(true);
}

const custom = makeCustomFamily(parseDataset('{"prompt":"2+2=","answer":"4","pattern":"[0-9]+"}\n'), { kind: 'regex' });
const families: TaskFamily[] = [
  ...taskFamilies.filter((f) => f.id !== 'custom'),
  custom,
  makeCustomFamily(parseDataset('{"prompt":"p","answer":"1.5"}'), { kind: 'numeric' }),
];

describe.each(families.map((f, i) => [`${f.id}#${i}`, f] as const))('%s never throws', (_name, f) => {
  it('on adversarial and random strings, each call under 50 ms', () => {
    const insts = [f.generate(1), f.generate(2, f.levels[f.levels.length - 1])];
    for (const inst of insts) {
      for (const s of adversarialStrings(inst)) {
        for (const verify of [f.verify, f.leakyVerify].filter((x) => x !== undefined)) {
          let v: Verdict | undefined;
          const once = () => {
            const t0 = performance.now();
            v = verify(inst, s);
            v = verify(inst, s, {
              sortMetric: 'kendall',
              format: { thinkTag: 'think', answerTag: 'answer', requireThink: false },
            });
            return (performance.now() - t0) / 2;
          };
          // Best of three, so a GC pause or a busy core does not count as a slow verifier.
          let ms = Infinity;
          for (let attempt = 0; attempt < 3 && ms >= 50; attempt++) {
            expect(() => (ms = Math.min(ms, once()))).not.toThrow();
          }
          expect(ms, `slow on ${JSON.stringify(s.slice(0, 40))}`).toBeLessThan(50);
          checkVerdict(v!);
        }
      }
    }
  });

  it('survives non-string completions and tampered instance data', () => {
    const inst = f.generate(3);
    expect(() => f.verify(inst, undefined as unknown as string)).not.toThrow();
    expect(() => f.verify(inst, 12 as unknown as string)).not.toThrow();
    expect(() => f.verify({ ...inst, data: null }, inst.reference)).not.toThrow();
    expect(() => f.verify({ ...inst, data: {} }, inst.reference)).not.toThrow();
    expect(f.verify({ ...inst, data: null }, inst.reference).correct).toBe(false);
  });

  it('judges over-long completions as "too long" without scanning them', () => {
    const inst = f.generate(4);
    const v = f.verify(inst, inst.reference + ' '.repeat(5000));
    expect(v.correct).toBe(false);
    expect(v.reason).toMatch(/too long/);
  });
});
