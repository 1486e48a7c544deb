import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRegexSpace, MAX_BOUNDED, repetitionBounds } from './repetition-bounds.ts';
import { CHAR_N, COVERAGE, repetitionAtLeast, repetitionBySlices, repetitionOf, WORD_N } from './repetition.ts';

/** Texts from a few words and characters, so n-grams repeat (a loop) as often as they do not. */
const looping = fc
  .array(fc.constantFrom('the', 'answer', 'is', '=', 'x1', ' ', '\n', 'é', '🙂', 'a', 'aaaa', 'so so so so'), {
    maxLength: 400,
  })
  .map((parts) => parts.join(''));

describe('repetitionOf: n-grams counted by hash, as the strings count them', () => {
  it('equals the count over n-gram strings (repetitionBySlices), share and n-gram, on any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(looping, fc.string({ maxLength: 600 }), fc.string({ unit: 'grapheme', maxLength: 300 })),
        (t) => {
          expect(repetitionOf(t)).toEqual(repetitionBySlices(t));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('a completion that is one phrase over and over is covered by it', () => {
    const text = 'let me check again. '.repeat(20);
    expect(repetitionOf(text)).toEqual(repetitionBySlices(text));
    expect(repetitionOf(text).share).toBeGreaterThan(0.9);
  });

  it('repetitionAtLeast flags exactly the completions the string count flags, with the same measure', () => {
    fc.assert(
      fc.property(
        fc.oneof(looping, fc.string({ maxLength: 600 })),
        fc.oneof(fc.constant(COVERAGE), fc.double({ min: 0.01, max: 1, noNaN: true })),
        (t, at) => {
          const plain = repetitionBySlices(t);
          const bounded = repetitionAtLeast(t, at);
          expect(bounded.share >= at).toBe(plain.share >= at);
          if (plain.share >= at) expect(bounded).toEqual(plain);
        },
      ),
      { numRuns: 600 },
    );
  });
});

/** How often the most frequent n-gram of `items` occurs, counted as strings. */
function topCount(items: string[], n: number, join: string): number {
  const counts = new Map<string, number>();
  let top = 0;
  for (let i = 0; i + n <= items.length; i++) {
    const gram = items.slice(i, i + n).join(join);
    const k = (counts.get(gram) ?? 0) + 1;
    counts.set(gram, k);
    top = Math.max(top, k);
  }
  return top;
}

describe('repetitionBounds', () => {
  it('counts words as text.split(/\\s+/) cuts them, over every UTF-16 code unit that could be a space', () => {
    for (let c = 0; c < 0x10000; c++)
      expect(isRegexSpace(c), `U+${c.toString(16)}`).toBe(/\s/.test(String.fromCharCode(c)));
    fc.assert(
      fc.property(fc.oneof(looping, fc.string({ maxLength: 200 })), (t) => {
        expect(repetitionBounds(t)!.words).toBe(t.split(/\s+/).filter((w) => w !== '').length);
      }),
    );
  });

  it('no n-gram occurs more often than the bounds say', () => {
    // Short words between spaces of every kind: a word's characters before it then differ from one
    // occurrence to the next, and only its own may name it.
    const spaced = fc
      .array(
        fc.tuple(fc.constantFrom('a', 'b', 'ab', 'abc', 'abcde'), fc.constantFrom(' ', '\t', '\n', '  ', '\u3000')),
        {
          maxLength: 120,
        },
      )
      .map((parts) => parts.flat().join(''));
    fc.assert(
      fc.property(fc.oneof(looping, spaced, fc.string({ maxLength: 300 })), (t) => {
        const b = repetitionBounds(t)!;
        expect(b.charGramCount).toBeGreaterThanOrEqual(topCount([...t.split('')], CHAR_N, ''));
        const words = t.split(/\s+/).filter((w) => w !== '');
        expect(b.wordGramCount).toBeGreaterThanOrEqual(topCount(words, WORD_N, ' '));
      }),
      { numRuns: 600 },
    );
  });

  it('a text too long to bound (its counts would reach the stamps) is measured in full', () => {
    const text = `${'x'.repeat(MAX_BOUNDED)} so so so so`;
    expect(repetitionBounds(text)).toBeNull();
    expect(repetitionAtLeast(text, COVERAGE)).toEqual(repetitionBySlices(text));
  });

  it('the counts of one scan do not leak into the next', () => {
    const loop = 'abcdefgh'.repeat(40);
    const plain = 'the quick brown fox jumps over the lazy dog while a cat naps on the warm mat ';
    const first = repetitionBounds(plain)!;
    for (let k = 0; k < 3; k++) repetitionBounds(loop);
    expect(repetitionBounds(plain)).toEqual(first);
  });
});
