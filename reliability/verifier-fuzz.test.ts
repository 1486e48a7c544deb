// Reliability (docs/reliability.md): every verifier family gets 10,000 random and adversarial completions (deeply
// nested
// parentheses, 100 KB numbers, unicode, control characters, mutations of the right answer, broken
// and repeated tags): no exception, a well-formed verdict, and bounded time per call.
// src/tasks/robustness.test.ts (main suite) runs ~450 hand-picked strings per instance; this is the
// large seeded fuzz on top of it.
import { describe, expect, it } from 'vitest';
import { parseDataset } from '../src/tasks/dataset.ts';
import { makeCustomFamily } from '../src/tasks/families/custom.ts';
import { taskFamilies } from '../src/tasks/registry.ts';
import { shapeReward } from '../src/tasks/reward.ts';
import type { TaskFamily, TaskInstance, Verdict } from '../src/tasks/types.ts';
import { Rng } from '../src/util/rng.ts';

const PER_FAMILY = 10_000;
/** A verify call must answer within this (best of three tries, so a GC pause does not count). */
const CALL_MS = 50;

const wrap = (a: string) => `<think>x</think><answer>${a}</answer>`;

/** The n-th fuzz string for an instance: a mix of categories chosen by a seeded generator. */
function fuzzString(rng: Rng, inst: TaskInstance): string {
  const chars = (n: number, lo: number, hi: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(rng.int(lo, hi));
    return s;
  };
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;
  const mutate = (s: string) => {
    const a = s.split('');
    for (let k = rng.int(1, 4); k > 0; k--) {
      const i = rng.int(0, Math.max(0, a.length - 1));
      const op = rng.int(0, 3);
      if (op === 0) a.splice(i, 1);
      else if (op === 1) a.splice(i, 0, chars(1, 32, 126));
      else if (op === 2) a[i] = chars(1, 0, 0xffff);
      else
        a.splice(
          i,
          0,
          a
            .slice(i, i + rng.int(1, 8))
            .join('')
            .repeat(rng.int(2, 50)),
        );
    }
    return a.join('');
  };
  switch (rng.int(0, 15)) {
    case 0:
      return chars(rng.int(0, 300), 32, 126); // printable ASCII
    case 1:
      return wrap(chars(rng.int(0, 80), 32, 126));
    case 2:
      return wrap(chars(rng.int(0, 80), 0, 0xffff)); // any UTF-16 unit, lone surrogates included
    case 3:
      return chars(rng.int(0, 400), 0, 31) + wrap(chars(rng.int(0, 20), 0, 31)); // control characters, NUL
    case 4: {
      const d = rng.int(1, 20_000); // deeply nested parentheses, balanced or not
      const inner = pick(['1', inst.answer, '', '1+', '-']);
      return wrap('('.repeat(d) + inner + ')'.repeat(rng.int(0, 1) ? d : rng.int(0, d)));
    }
    case 5: {
      const n = rng.int(1, 10) === 1 ? 100_000 : rng.int(20, 2000); // huge numbers (100 KB in 10% of them)
      return wrap(pick(['', '-', '+', '0.', '1e', '-0.']) + chars(n, 48, 57) + pick(['', 'e308', '/0', '.5', 'e-400']));
    }
    case 6:
      return mutate(inst.reference);
    case 7:
      return wrap(mutate(inst.answer));
    case 8:
      return pick(['<think>', '</think>', '<answer>', '</answer>', '<answer></answer>', inst.answer]).repeat(
        rng.int(1, 3000),
      );
    case 9:
      return wrap(
        inst.answer +
          pick(['\u0000', '\u200b', '\u202e', '\ufeff', '\u0301'.repeat(50), '😀', '\ud800', ' '.repeat(100), '\r\n']),
      );
    case 10:
      return wrap(
        pick([
          'NaN',
          'Infinity',
          '-Infinity',
          '1e309',
          '0x1F',
          '0b101',
          '1_000',
          '١٢٣',
          '１２３',
          '__proto__',
          'constructor',
          'toString',
          '${1+1}',
          '`x`',
          '<script>alert(1)</script>',
          "'; DROP TABLE x;--",
          '\\u0041',
          'null',
          'undefined',
          '[]',
          '{}',
        ]),
      );
    case 11:
      return wrap(inst.answer.split('').reverse().join('')) + chars(rng.int(0, 50), 32, 126);
    case 12:
      return `<think>${chars(rng.int(0, 3000), 32, 126)}</think><answer>${inst.answer}</answer>`;
    case 13:
      return wrap(
        Array.from({ length: rng.int(1, 400) }, () =>
          pick(['1', '2', '+', '-', '*', '/', '(', ')', ' ', 'x', ',', '=']),
        ).join(''),
      );
    case 14:
      return mutate(inst.reference).repeat(rng.int(1, 20));
    default:
      return 'x'.repeat(rng.int(1, 10) === 1 ? 100_000 : rng.int(0, 5000));
  }
}

function checkVerdict(v: Verdict): void {
  if (typeof v.correct !== 'boolean' || typeof v.reason !== 'string' || v.reason.length === 0 || v.reason.length >= 300)
    throw new Error(`malformed verdict ${JSON.stringify(v).slice(0, 200)}`);
  for (const x of [v.components.correctness, v.components.format, v.components.partial ?? 0])
    if (!(Number.isFinite(x) && x >= 0 && x <= 1)) throw new Error(`component out of [0, 1]: ${x}`);
  if (!Number.isFinite(shapeReward(v, { completionLength: 10, maxLength: 100 }).total))
    throw new Error('non-finite shaped reward');
}

const families: TaskFamily[] = [
  ...taskFamilies.filter((f) => f.id !== 'custom'),
  makeCustomFamily(parseDataset('{"prompt":"2+2=","answer":"4"}\n{"prompt":"name?","answer":"Ada Lovelace"}\n'), {
    kind: 'exact',
  }),
  makeCustomFamily(parseDataset('{"prompt":"pi?","answer":"3.1416"}\n{"prompt":"half","answer":"1/2"}\n'), {
    kind: 'numeric',
  }),
  makeCustomFamily(
    parseDataset(
      '{"prompt":"even?","answer":"8","pattern":"[02468]"}\n' +
        '{"prompt":"thousands","answer":"1,000","pattern":"\\\\d{1,3}(,\\\\d{3})*"}\n' +
        '{"prompt":"words","answer":"a ' +
        'b","pattern":"[a-z]+( [a-z]+)*"}\n',
    ),
    { kind: 'regex' },
  ),
];

describe.each(families.map((f, i) => [`${f.id}#${i}`, f] as const))('%s: 10,000 fuzzed completions', (_name, f) => {
  it('never throw, always give a well-formed verdict, each call within the bound', () => {
    const insts = [
      f.generate(1),
      f.generate(2, f.levels[f.levels.length - 1]),
      f.generate(3, f.levels[0]),
      f.generate(4),
    ];
    const rng = new Rng(2024 + f.id.length);
    const verifiers = [f.verify, f.leakyVerify].filter((x) => x !== undefined);
    let slowest = 0;
    let slowestInput = '';
    let total = 0;
    const t0 = performance.now();
    for (let n = 0; n < PER_FAMILY; n++) {
      const inst = insts[n % insts.length]!;
      const s = fuzzString(rng, inst);
      for (const verify of verifiers) {
        let ms = Infinity;
        for (let attempt = 0; attempt < 3 && ms >= CALL_MS; attempt++) {
          const t = performance.now();
          let v: Verdict;
          try {
            v = verify(inst, s);
          } catch (e) {
            throw new Error(
              `${f.id} threw on ${JSON.stringify(s.slice(0, 80))} ` +
                `(length ${s.length}): ${e instanceof Error ? e.message : String(e)}`,
            );
          }
          ms = Math.min(ms, performance.now() - t);
          checkVerdict(v);
        }
        total++;
        if (ms > slowest) {
          slowest = ms;
          slowestInput = s;
        }
        if (ms >= CALL_MS)
          throw new Error(
            `${f.id}: ${ms.toFixed(1)} ms (bound ${CALL_MS}) on ${JSON.stringify(s.slice(0, 80))} (length ${s.length})`,
          );
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `${f.id}: ${total} verify calls on ${PER_FAMILY} strings in ${seconds.toFixed(1)} s; slowest ` +
        `${slowest.toFixed(2)} ` +
        `ms (input of ${slowestInput.length} chars starting ${JSON.stringify(slowestInput.slice(0, 24))})`,
    );
    expect(total).toBe(PER_FAMILY * verifiers.length);
  });
});
