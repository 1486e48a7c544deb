// JSONL datasets: line-numbered errors, empty files, chunked streaming with bounded lines, and the
// exact / numeric / regex verifiers of the custom family.
import { describe, expect, it } from 'vitest';
import { checkCustomAnswer, DatasetError, parseDataset, parseDatasetStream, parseNumber } from './dataset.ts';
import { customFamily, makeCustomFamily } from './families/custom.ts';

const wrap = (a: string) => `<think></think><answer>${a}</answer>`;

describe('parseDataset', () => {
  it('loads good lines and reports malformed ones by line number', () => {
    const text = [
      '{"prompt":"2+2=","answer":"4"}',
      '',
      '{"prompt":"3*3=","answer":9}',
      'not json',
      '{"prompt":"x"}',
      '[1,2]',
      '{"prompt":"","answer":"1"}',
      '{"prompt":"p","answer":"a","pattern":"("}',
      '{"prompt":"ok","answer":"yes"}\r',
    ].join('\n');
    const ds = parseDataset(text);
    expect(ds.records.map((r) => [r.line, r.prompt, r.answer])).toEqual([
      [1, '2+2=', '4'],
      [3, '3*3=', '9'],
      [9, 'ok', 'yes'],
    ]);
    expect(ds.errors.map((e) => e.line)).toEqual([4, 5, 6, 7, 8]);
    expect(ds.errors[0]!.reason).toMatch(/not valid JSON/);
    expect(ds.errors[1]!.reason).toMatch(/missing "answer"/);
    expect(ds.errors[2]!.reason).toMatch(/not a JSON object/);
    expect(ds.errors[3]!.reason).toMatch(/"prompt" is empty/);
    expect(ds.errors[4]!.reason).toMatch(/"pattern": not a valid regular expression/);
    expect(ds.errorCount).toBe(5);
    expect(ds.lines).toBe(9);
  });

  it('gives a clear error for an empty file or one with no valid line', () => {
    expect(() => parseDataset('')).toThrow(DatasetError);
    expect(() => parseDataset('\n  \n')).toThrow(/dataset is empty/);
    expect(() => parseDataset('oops\n{"a":1}')).toThrow(/no valid records \(2 malformed lines; line 1: not valid JSON/);
  });

  it('streams chunks split anywhere, including inside lines and CRLF pairs', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ prompt: `q${i}`, answer: String(i) }));
    const text = lines.join('\r\n') + '\r\n';
    async function* chunks(size: number) {
      for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
    }
    for (const size of [1, 7, 64, 100_000]) {
      const ds = await parseDatasetStream(chunks(size));
      expect(ds.records.length).toBe(500);
      expect(ds.records[499]).toEqual({ line: 500, prompt: 'q499', answer: '499' });
      expect(ds.errorCount).toBe(0);
    }
  });

  it('handles a 50 MB stream with a huge line without holding it', async () => {
    const line = JSON.stringify({ prompt: 'p'.repeat(40), answer: '42' }) + '\n';
    const chunk = line.repeat(16_384); // ~1 MB
    async function* gen() {
      yield '{"prompt":"' + 'x'.repeat(200_000);
      yield 'x'.repeat(200_000) + '","answer":"1"}\n';
      for (let i = 0; i < 50; i++) yield chunk;
    }
    const ds = await parseDatasetStream(gen(), { maxRecords: 1000 });
    expect(ds.errors[0]).toEqual({ line: 1, reason: 'line longer than 65536 chars' });
    expect(ds.records.length).toBe(1000);
    expect(ds.truncated).toBe(true);
    expect(ds.lines).toBe(1 + 50 * 16_384);
  });

  it('caps the number of kept errors but counts them all', () => {
    const ds = parseDataset('{"prompt":"a","answer":"b"}\n' + 'bad\n'.repeat(500), { maxErrors: 10 });
    expect(ds.errors.length).toBe(10);
    expect(ds.errorCount).toBe(500);
  });
});

describe('custom verifiers', () => {
  it('exact compares trimmed, whitespace-collapsed text', () => {
    expect(checkCustomAnswer({ kind: 'exact' }, 'Paris', undefined, ' Paris ').correct).toBe(true);
    expect(checkCustomAnswer({ kind: 'exact' }, 'New  York', undefined, 'New York').correct).toBe(true);
    expect(checkCustomAnswer({ kind: 'exact' }, 'Paris', undefined, 'paris').correct).toBe(false);
  });
  it('numeric accepts within tolerance and several spellings', () => {
    expect(parseNumber('1,000.5')).toBe(1000.5);
    expect(parseNumber('3/4')).toBe(0.75);
    expect(parseNumber('1e3')).toBe(1000);
    expect(parseNumber('1/0')).toBeNull();
    expect(parseNumber('Infinity')).toBeNull();
    expect(parseNumber('0x10')).toBeNull();
    expect(checkCustomAnswer({ kind: 'numeric' }, '0.75', undefined, '3/4').correct).toBe(true);
    expect(checkCustomAnswer({ kind: 'numeric', tolerance: 0.01 }, '3.14159', undefined, '3.14').correct).toBe(true);
    expect(checkCustomAnswer({ kind: 'numeric', tolerance: 0.0001 }, '3.14159', undefined, '3.14').correct).toBe(false);
    expect(checkCustomAnswer({ kind: 'numeric' }, '2', undefined, 'two').reason).toMatch(/not a number/);
  });
  it('regex uses the author pattern, anchored, never the completion', () => {
    expect(checkCustomAnswer({ kind: 'regex' }, '42', '4[0-9]', '42').correct).toBe(true);
    expect(checkCustomAnswer({ kind: 'regex' }, '42', '4[0-9]', '142').correct).toBe(false);
    expect(checkCustomAnswer({ kind: 'regex' }, '42', '4[0-9]', '.*').correct).toBe(false);
    expect(checkCustomAnswer({ kind: 'regex' }, 'a|b', undefined, 'b').correct).toBe(true);
    expect(checkCustomAnswer({ kind: 'regex' }, 'x', 'a'.repeat(201), 'a').reason).toMatch(/longer than 200/);
  });
});

describe('custom family', () => {
  const ds = parseDataset(
    [
      '{"prompt":"2+2=","answer":"4"}',
      '{"prompt":"pi?","answer":"3.1416"}',
      '{"prompt":"even?","answer":"8","pattern":"[02468]"}',
    ].join('\n'),
  );

  it('generates by seed from the records and its reference scores', () => {
    const fam = makeCustomFamily(ds, { kind: 'exact' });
    const seen = new Set<string>();
    for (let seed = 0; seed < 100; seed++) {
      const inst = fam.generate(seed);
      seen.add(inst.prompt);
      expect(fam.generate(seed)).toEqual(inst);
      expect(fam.verify(inst, inst.reference)).toMatchObject({
        correct: true,
        components: { correctness: 1, format: 1 },
      });
      expect(fam.verify(inst, wrap('nope')).correct).toBe(false);
    }
    expect(seen.size).toBe(3);
    expect(() => fam.generate(1, { digits: 3 })).toThrow(/unknown knob "digits"/);
  });

  it('verifies from the instance alone (the registry entry), with the dataset verifier kind', () => {
    const fam = makeCustomFamily(ds, { kind: 'numeric', tolerance: 0.001 });
    const inst = Array.from({ length: 20 }, (_, s) => fam.generate(s)).find((i) => i.prompt === 'pi?')!;
    const copy = customFamily.parseInstance(JSON.parse(JSON.stringify(inst)));
    expect(customFamily.verify(copy, wrap('3.1415')).correct).toBe(true);
    expect(customFamily.verify(copy, wrap('3.2')).correct).toBe(false);
    expect(() => customFamily.generate(1)).toThrow(/no dataset loaded/);
    expect(() => customFamily.parseInstance({ ...inst, data: { answer: '1', verifier: { kind: 'eval' } } })).toThrow(
      /verifier.kind/,
    );
    expect(() => makeCustomFamily(ds, { kind: 'fuzzy' as 'exact' })).toThrow(/verifier must be one of/);
  });
});
