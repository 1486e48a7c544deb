// The word diff of "This prompt over training" (word-diff.ts): it rebuilds both texts, keeps as many words
// as a longest common subsequence does (checked against a plain recursive count), falls back to a whole
// middle past its cap, and pairs each completion with the most alike of the nearest earlier step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changesOverTraining, rewardChange, wordDiff, words } from './word-diff.ts';

const text = (parts: { kind: string; text: string }[], keep: string) =>
  parts
    .filter((p) => p.kind === 'same' || p.kind === keep)
    .map((p) => p.text)
    .join('');

/** The LCS length of two word lists, by memoised recursion (a reference written apart from the module). */
function lcsLength(a: string[], b: string[]): number {
  const memo = new Map<string, number>();
  const go = (i: number, j: number): number => {
    if (i === a.length || j === b.length) return 0;
    const k = `${i},${j}`;
    if (!memo.has(k)) memo.set(k, a[i] === b[j] ? 1 + go(i + 1, j + 1) : Math.max(go(i + 1, j), go(i, j + 1)));
    return memo.get(k)!;
  };
  return go(0, 0);
}

describe('word diff', () => {
  it('marks the words removed and added', () => {
    expect(wordDiff('the cat sat on the mat', 'the dog sat on a mat').parts).toEqual([
      { kind: 'same', text: 'the ' },
      { kind: 'removed', text: 'cat ' },
      { kind: 'added', text: 'dog ' },
      { kind: 'same', text: 'sat on ' },
      { kind: 'removed', text: 'the ' },
      { kind: 'added', text: 'a ' },
      { kind: 'same', text: 'mat' },
    ]);
    expect(wordDiff('', 'new words').parts).toEqual([{ kind: 'added', text: 'new words' }]);
    expect(wordDiff('same', 'same')).toEqual({ parts: [{ kind: 'same', text: 'same' }], exact: true });
  });

  const sentence = fc
    .array(fc.constantFrom('a', 'b', 'c', 'the', '42', 'x'), { maxLength: 30 })
    .map((w) => w.join(' '));

  it('rebuilds both texts and keeps a longest common subsequence of words', () => {
    fc.assert(
      fc.property(sentence, sentence, (before, after) => {
        const { parts, exact } = wordDiff(before, after);
        expect(exact).toBe(true);
        expect(text(parts, 'added')).toBe(after);
        // `same` parts hold the later text's spaces: the earlier one comes back word for word.
        const trim = (t: string) => words(t).map((w) => w.trimEnd());
        expect(trim(text(parts, 'removed'))).toEqual(trim(before));
        const kept = parts.filter((p) => p.kind === 'same').flatMap((p) => words(p.text));
        expect(kept.length).toBe(lcsLength(trim(before), trim(after)));
      }),
      { numRuns: 300 },
    );
  });

  it('past its cap shows the middle whole, still rebuilding both texts', () => {
    const before = `start ${Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ')} end`;
    const after = `start ${Array.from({ length: 3000 }, (_, i) => `w${(i * 7) % 3000}`).join(' ')} end`;
    const capped = wordDiff(before, after, 1_000_000);
    expect(capped.exact).toBe(false);
    expect(capped.parts.map((p) => p.kind)).toEqual(['same', 'removed', 'added', 'same']);
    expect(text(capped.parts, 'added')).toBe(after);
    expect(text(capped.parts, 'removed')).toBe(before);
    expect(wordDiff(before, after).exact).toBe(false); // 3,001² cells: past the 4 million of the default cap
    const half = (t: string) => t.split(' ').slice(0, 1500).join(' ');
    expect(wordDiff(half(before), half(after)).exact).toBe(true);
  });

  it('says the reward change signed, with a true minus', () => {
    expect([rewardChange(0.5, 1), rewardChange(1, 0), rewardChange(1, 1), rewardChange(Number.NaN, 1)]).toEqual([
      '+0.50',
      '\u22121.00',
      '±0.00',
      '—',
    ]);
  });

  it('compares each completion with the most alike of the nearest earlier step', () => {
    const samples = [
      { step: 1, row: 0, completion: 'the answer is 4', reward: 1 },
      { step: 1, row: 1, completion: 'I do not know', reward: 0 },
      { step: 3, row: 0, completion: 'I really do not know', reward: 0 },
      { step: 3, row: 1, completion: 'the answer is 5', reward: 0 },
      { step: 7, row: 0, completion: 'the answer is 5 indeed', reward: 0.5 },
    ];
    const changes = changesOverTraining(samples);
    expect(changes.has('1:0')).toBe(false);
    expect(changes.get('3:0')!.earlier.row).toBe(1);
    expect(changes.get('3:1')!.earlier.row).toBe(0);
    expect(changes.get('3:1')!.reward).toBe('\u22121.00');
    expect(changes.get('7:0')!.earlier).toMatchObject({ step: 3, row: 1 });
    expect(changes.get('7:0')!.diff.parts).toEqual([
      { kind: 'same', text: 'the answer is 5 ' },
      { kind: 'added', text: 'indeed' },
    ]);
    expect(changes.get('7:0')!.reward).toBe('+0.50');
  });
});
