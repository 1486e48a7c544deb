// A TRL search past the hits it keeps only counts (trl-count.ts, text-bytes.ts): these check that it
// counts exactly what reading every row and matching as the page does counts, on text a byte match could
// get wrong (fixtures/trl-text, written by its make_fixture.py) and on random strings and bytes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryRunFiles } from './memory-files.ts';
import { openSource, textMatcher } from './opened-run.ts';
import { bytesTextMatcher } from './text-bytes.ts';
import { trlSource } from './trl.ts';
import type { RunQuery } from './types.ts';

const dir = join(import.meta.dirname, 'fixtures', 'trl-text', 'completions');
const contents = Object.fromEntries(
  readdirSync(dir).map((n) => [`completions/${n}`, new Uint8Array(readFileSync(join(dir, n)))]),
);

/** The same files searched with the count (limit 0: every step is counted) and with every row read. */
async function bothWays(query: RunQuery, limit = 0) {
  const counting = trlSource(memoryRunFiles('r', contents), 'r');
  const reading = trlSource(memoryRunFiles('r', contents), 'r');
  delete reading.countText;
  const [a, b] = [await openSource(counting), await openSource(reading)];
  return { counted: await a.search(query, { limit }), read: await b.search(query, { limit }), a, b };
}

const alphabet = fc.constantFrom(
  ...'aAbBkKiIyYeE #1'.split(''),
  '\u0130', // İ: lowercases to "i̇"
  '\u212a', // Kelvin sign: lowercases to "k"
  '\u0307',
  '\ufeff',
  'é',
  'ß',
  '\u03a3',
  '😀',
);
const text = fc.array(alphabet, { maxLength: 10 }).map((a) => a.join(''));

describe('counting a TRL step by its text bytes', () => {
  it('matches bytes as the page matches their decoded string, for any text and any bytes', () => {
    const enc = new TextEncoder();
    const dec = new TextDecoder();
    fc.assert(
      fc.property(text, text, (s, needle) => {
        const bytes = bytesTextMatcher({ text: needle });
        if (bytes) expect(bytes(enc.encode(s))).toBe(textMatcher({ text: needle })!(s));
        else expect(/[^\x00-\x7f]/.test(needle.toLowerCase()) || needle === '').toBe(true);
      }),
      { numRuns: 3000 },
    );
    const raw = fc.array(
      fc.oneof(fc.constantFrom(0x6b, 0x4b, 0x69, 0xc4, 0xb0, 0xe2, 0x84, 0xaa, 0xef, 0xbb, 0xbf), fc.nat(255)),
    );
    fc.assert(
      fc.property(raw, fc.constantFrom('k', 'i', 'ki', 'ik', 'K', 'kk', 'y', 'yk'), (b, needle) => {
        const bytes = Uint8Array.from(b);
        expect(bytesTextMatcher({ text: needle })!(bytes)).toBe(textMatcher({ text: needle })!(dec.decode(bytes)));
      }),
      { numRuns: 3000 },
    );
  });

  it('is not used for a regex, a text that lowers to anything but ASCII, or an empty text', () => {
    for (const q of [{ text: 'k', regex: true }, { text: '\u0130' }, { text: 'é' }, { text: '' }, {}])
      expect(bytesTextMatcher(q)).toBeNull();
  });

  it('counts what reading every row counts, with and without dictionaries, page v2, nulls and bad UTF-8', async () => {
    const needles = ['key', 'k', 'K', 'i', 'i\u0307', 'ist', '#1', ' ', 'satisfied', 'bom', 'e\u212a', 'ß', 'zzz'];
    let total = 0;
    for (const needle of needles) {
      for (const where of ['prompt', 'completion', 'both'] as const) {
        for (const limit of [0, 3]) {
          const { counted, read } = await bothWays({ text: needle, in: where }, limit);
          expect(counted, `${needle} in ${where}, limit ${limit}`).toEqual(read);
          total += counted.count;
        }
      }
    }
    expect(total).toBeGreaterThan(100);
  });

  it('counts a step only where it can, and leaves a row without a completion to the full read', async () => {
    const source = trlSource(memoryRunFiles('r', contents), 'r');
    await source.index();
    for (const step of [1, 2, 3, 4]) expect(typeof (await source.countText!(step, { text: 'k' }))).toBe('number');
    const fifth = await source.countText!(5, { text: 'k' });
    expect(typeof fifth === 'number' ? [] : fifth.problems.map((p) => p.row)).toEqual([3]);
    const { counted, read, a, b } = await bothWays({ text: 'key' });
    expect(counted).toEqual(read);
    expect(a.index.problems).toEqual(b.index.problems);
    expect(a.index.problems.length).toBeGreaterThan(0);
    // A file of its own problem (its step column says 1, its name 2), read only when searched: still reported.
    const renamed = {
      'completions/completions_00001.parquet': contents['completions/completions_00001.parquet']!,
      'completions/completions_00002.parquet': contents['completions/completions_00001.parquet']!,
      'completions/completions_00003.parquet': contents['completions/completions_00003.parquet']!,
    };
    const counting = await openSource(trlSource(memoryRunFiles('r', renamed), 'r'));
    await counting.search({ text: 'key' }, { limit: 0 });
    expect(counting.index.problems.map((p) => p.file)).toEqual(['completions/completions_00002.parquet']);
  });
});
