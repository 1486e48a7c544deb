import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidUtf8, NotUtf8Error } from './text-import.ts';

describe('strict UTF-8 import', () => {
  it('agrees with a fatal TextDecoder on every well-formed and broken sequence tried', () => {
    const cases = ['plain ascii', 'café', '€ and 😀', '\u{10FFFF}'].map((t) => new TextEncoder().encode(t));
    const broken = [
      [0x93, 0x41],
      [0xc3],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xc0, 0xaf],
      [0x41, 0xe9, 0x22],
    ].map((b) => new Uint8Array(b));
    for (const b of [...cases, ...broken]) {
      let fatal = true;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(b);
      } catch {
        fatal = false;
      }
      expect(firstInvalidUtf8(b) < 0, `bytes ${[...b].map((x) => x.toString(16))}`).toBe(fatal);
    }
  });
  it(
    'names the line and the byte of a Windows-1252 file ' +
      '(curly quotes), instead of decoding it with ' +
      'replacement characters',
    () => {
      const bytes = new Uint8Array([
        ...new TextEncoder().encode('{"prompt": "1+1=", "answer": "2"}\n{'),
        0x93,
        ...new TextEncoder().encode('prompt'),
        0x94,
        ...new TextEncoder().encode(': "2+2="}\n'),
      ]);
      expect(() => decodeUtf8(bytes, 'smart.jsonl')).toThrow(NotUtf8Error);
      expect(() => decodeUtf8(bytes, 'smart.jsonl')).toThrow(
        /^smart\.jsonl is not UTF-8 text: line 2 has the byte 0x93/,
      );
      expect(decodeUtf8(new TextEncoder().encode('café\n'), 'ok.jsonl')).toBe('café\n');
    },
  );
});
