// Reliability (docs/reliability.md): dataset regex patterns that backtrack catastrophically are refused at load, so a
// custom
// verifier answers in bounded time on any completion. Before this check, `(a+)+b` took 5 s on a
// 28-character completion.
import { describe, expect, it } from 'vitest';
import { backtrackingRisk, checkCustomAnswer, parseDataset } from './dataset.ts';
import { makeCustomFamily } from './families/custom.ts';

describe('regex patterns from datasets', () => {
  it.each([
    '(a+)+b',
    '(a*)*',
    '(a|aa)+',
    '(?:a|ab)*c',
    '(\\d{1,3})+',
    '(a+){10}',
    '\\d*\\d*\\d*\\d*x',
    '((ab)*)*',
    '(.*a){12}',
  ])('refuses %s', (p) => {
    expect(backtrackingRisk(p)).toMatch(/backtracking/);
    const ds = parseDataset(
      `{"prompt":"p","answer":"x"}\n${JSON.stringify({ prompt: 'q', answer: 'aab', pattern: p })}\n`,
    );
    expect(ds.errors).toEqual([{ line: 2, reason: expect.stringMatching(/^"pattern": .*backtracking/) }]);
    expect(checkCustomAnswer({ kind: 'regex' }, 'aab', p, 'a'.repeat(40)).correct).toBe(false);
  });

  it.each([
    '4[0-9]',
    '[02468]',
    '\\d{1,3}(,\\d{3})*',
    '-?\\d+(\\.\\d+)?',
    '(yes|no)',
    '[a-z]+@[a-z]+\\.com',
    'a|b',
    '(ab)+',
    '(?<n>\\d+)',
    '[(+*]+',
    '\\(+',
    '(a+)?',
    '\\d{4}-\\d{2}-\\d{2}',
  ])('accepts %s', (p) => {
    expect(backtrackingRisk(p)).toBeNull();
  });

  // Catastrophic backtracking takes seconds; 250 ms (best of three, so a busy core or a GC pause does
  // not count) separates it from a slow machine.
  it('the worst accepted shapes answer within 250 ms on 200-character adversarial answers', () => {
    for (const p of ['\\d*\\d*\\d*x', '(a|b)', '(ab)+c', '.*a.*b.*c', '[a-z]+[a-z]+[a-z]+!']) {
      const fam = makeCustomFamily(parseDataset(JSON.stringify({ prompt: 'p', answer: 'x', pattern: p })), {
        kind: 'regex',
      });
      const inst = fam.generate(0);
      for (const body of ['1'.repeat(199), 'ab'.repeat(99), 'a'.repeat(199), 'ab'.repeat(50) + 'c'.repeat(99)]) {
        let ms = Infinity;
        for (let attempt = 0; attempt < 3 && ms >= 250; attempt++) {
          const t0 = performance.now();
          fam.verify(inst, `<think></think><answer>${body}</answer>`);
          ms = Math.min(ms, performance.now() - t0);
        }
        expect(ms, `${p} on ${body.slice(0, 10)}…`).toBeLessThan(250);
      }
    }
  });
});
