// The raw-byte prefilter of a veRL search (raw-prefilter.ts): a search with it finds exactly what a search
// that parses every line finds, on random dumps written with JSON escapes (`\"`, `\\`, `\/`, `\n`,
// `\uXXXX` for any character), unicode, and the two characters whose lowercase is ASCII (U+0130, U+212A).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryRunFiles } from './memory-files.ts';
import { openSource } from './opened-run.ts';
import { rawTextFilter } from './raw-prefilter.ts';
import type { RunQuery } from './types.ts';
import { verlSource } from './verl.ts';

const enc = new TextEncoder();

/** A JSON string as some writer might escape it: each character plain, `\uXXXX`, or (for `/`) `\/`. */
function jsonString(s: string, escapes: readonly boolean[], slashes: boolean): string {
  let out = '"';
  let i = 0;
  for (const ch of s) {
    const escaped = escapes[i++ % Math.max(1, escapes.length)] ?? false;
    const plain = JSON.stringify(ch).slice(1, -1);
    if ((escaped || slashes) && ch === '/') out += '\\/';
    else if (escaped && ch.length === 1) out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += plain;
  }
  return `${out}"`;
}

const alphabet = fc.constantFrom(
  ...'aAbBkKiIzZ 09-_.:'.split(''),
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  'é',
  'É',
  'ß',
  '\u0130', // İ: lowercases to "i̇"
  '\u212a', // Kelvin sign: lowercases to "k"
  '\u03a3', // Σ
  '😀',
);
const text = fc.array(alphabet, { maxLength: 12 }).map((a) => a.join(''));

const line = fc.record({
  input: text,
  output: text,
  score: fc.constantFrom(0, 1, 0.5, Number.NaN),
  // Most lines as json.dumps writes them (no \u), some with characters written as \uXXXX or \/.
  escapes: fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, fc.array(fc.boolean(), { maxLength: 5 })),
  slashes: fc.boolean(),
});

type Line = { input: string; output: string; score: number; escapes: readonly boolean[]; slashes: boolean };
function step(lines: Line[], n: number): string {
  return lines
    .map((l) => {
      const score = Number.isNaN(l.score) ? 'NaN' : String(l.score);
      const [input, output] = [jsonString(l.input, l.escapes, l.slashes), jsonString(l.output, l.escapes, l.slashes)];
      return `{"input": ${input}, "output": ${output}, "score": ${score}, "step": ${n}}`;
    })
    .join('\n');
}

async function searchBoth(files: Record<string, string>, query: RunQuery) {
  const run = await openSource(verlSource(memoryRunFiles('r', files), 'r'));
  const plain = await run.search(query, { limit: 50 });
  const filtered = await run.search(query, { limit: 50, rawPrefilter: true });
  return { plain, filtered };
}

describe('the raw-byte prefilter (raw-prefilter.ts)', () => {
  it('rests on this: only U+0130 and U+212A, of all non-ASCII code points, lowercase to anything ASCII', () => {
    const found: number[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (/[\x00-\x7f]/.test(String.fromCodePoint(cp).toLowerCase())) found.push(cp);
    }
    expect(found).toEqual([0x130, 0x212a]);
  });

  it('is used only for plain text without ", \\, / or control characters', () => {
    expect(rawTextFilter({ text: 'Abc 1' })).not.toBeNull();
    for (const q of [{ text: 'a"b' }, { text: 'a\\b' }, { text: 'a/b' }, { text: 'a\nb' }, { text: 'é' }, { text: '' }])
      expect(rawTextFilter(q)).toBeNull();
    expect(rawTextFilter({ text: 'abc', regex: true })).toBeNull();
  });

  it('passes a file over only when no line can match (Kelvin sign, İ, \\u escapes, case)', () => {
    const may = (q: string, raw: string) => rawTextFilter({ text: q })!.mayMatch(enc.encode(raw));
    expect(may('k', '{"input": "\u212a"}')).toBe(true);
    expect(may('i', '{"input": "\u0130"}')).toBe(true);
    expect(may('ab', '{"input": "\\u0061b"}')).toBe(true);
    expect(may('ab', '{"input": "xAB"}')).toBe(true);
    expect(may('ab', '{"input": "a b", "output": "b a"}')).toBe(false);
  });

  it('finds exactly what parsing every line finds, on random dumps and queries', async () => {
    const dump = fc.array(fc.array(line, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 });
    // The needle: a piece of a line's text with its case flipped here and there, or a fixed or random one.
    const dumpAndNeedle = dump.chain((steps) => {
      const texts = steps.flat().flatMap((l) => [l.input, l.output]);
      const piece = fc
        .tuple(fc.constantFrom(...texts), fc.nat(), fc.nat(), fc.array(fc.boolean(), { minLength: 1 }))
        .map(([t, a, b, flips]) => {
          const cs = [...t];
          const from = cs.length ? a % cs.length : 0;
          const part = cs.slice(from, from + 1 + (b % 4));
          return part.map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join('');
        });
      return fc.tuple(
        fc.constant(steps),
        fc.oneof(piece, piece, text, fc.constantFrom('k', 'i', 'ab', 'u00', 'i\u0307')),
      );
    });
    await fc.assert(
      fc.asyncProperty(
        dumpAndNeedle,
        fc.constantFrom<RunQuery['in']>('prompt', 'completion', 'both'),
        async ([steps, needle], where) => {
          const files = Object.fromEntries(steps.map((lines, i) => [`${i + 1}.jsonl`, step(lines, i + 1)]));
          const { plain, filtered } = await searchBoth(files, { text: needle, in: where });
          expect(filtered).toEqual(plain);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds a needle held only in an escape or in a character lowering to ASCII (so the test can fail)', async () => {
    const files = {
      '1.jsonl': `{"input": "\\u004bey", "output": "x", "score": 1.0, "step": 1}\n`,
      '2.jsonl': `{"input": "\u212aey", "output": "x", "score": 1.0, "step": 2}\n`,
      '3.jsonl': `{"input": "nothing", "output": "x", "score": 1.0, "step": 3}\n`,
    };
    const { plain, filtered } = await searchBoth(files, { text: 'key' });
    expect(plain.count).toBe(2);
    expect(filtered).toEqual(plain);
    for (const [needle, raw] of [
      ['y/z', 'y\\/z'],
      ['y"z', 'y\\"z'],
    ]) {
      const one = { '1.jsonl': `{"input": "${raw}", "output": "x", "score": 1.0, "step": 1}\n` };
      const both = await searchBoth(one, { text: needle });
      expect(both.plain.count).toBe(1);
      expect(both.filtered).toEqual(both.plain);
    }
  });
});
