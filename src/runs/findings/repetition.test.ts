import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repetitionBySlices, repetitionOf } from './repetition.ts';

/** Texts from a few words and characters, so n-grams repeat (a loop) as often as they do not. */
const looping = fc
  .array(fc.constantFrom('the', 'answer', 'is', '=', 'x1', ' ', '\n', 'é', '🙂', 'a', 'aaaa', 'so so so so'), {
    maxLength: 400,
  })
  .map((parts) => parts.join(''));

describe('repetitionOf: n-grams counted by hash, as the strings count them', () => {
  it('equals the count over n-gram strings (repetitionBySlices), share and n-gram, on any text', () => {
    fc.assert(
      fc.property(fc.oneof(looping, fc.string({ maxLength: 600 }), fc.string({ unit: 'grapheme', maxLength: 300 })), (t) => {
        expect(repetitionOf(t)).toEqual(repetitionBySlices(t));
      }),
      { numRuns: 600 },
    );
  });

  it('a completion that is one phrase over and over is covered by it', () => {
    const text = 'let me check again. '.repeat(20);
    expect(repetitionOf(text)).toEqual(repetitionBySlices(text));
    expect(repetitionOf(text).share).toBeGreaterThan(0.9);
  });
});
