// A TRL step is read the fast way (src/runs/trl.ts: every column but `step`, snappy through hysnappy's
// WebAssembly, src/runs/parquet-codecs.ts); these check it gives what the plain way gives (hyparquet's own
// JavaScript snappy, every column), row for row, and that a search finds the same hits.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetReadObjects, snappyUncompress } from 'hyparquet';
import { snappyCompress } from 'hysnappy';
import { describe, expect, it } from 'vitest';
import { openRun } from './detect.ts';
import { asText, toNumber } from './files.ts';
import { memoryRunFiles } from './memory-files.ts';
import { parquetCompressors } from './parquet-codecs.ts';
import type { OpenedRun, RunCompletion, RunQuery } from './types.ts';

const tiny = join(import.meta.dirname, 'fixtures', 'trl-tiny');
const names = readdirSync(join(tiny, 'completions')).sort();
const bytesOf = (name: string) => new Uint8Array(readFileSync(join(tiny, 'completions', name)));

/** A step's rows read the plain way, as the reader would build them (reward columns as the index names them). */
async function plainRows(bytes: Uint8Array, rewardNames: string[]): Promise<Partial<RunCompletion>[]> {
  const file = bytes.slice().buffer;
  const rows = await parquetReadObjects({ file, rowFormat: 'object' });
  return rows.map((r, row) => {
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r))
      if (!['step', 'prompt', 'completion', 'advantage', ...rewardNames].includes(k)) extra[k] = v;
    const rewards = Object.fromEntries(rewardNames.map((n) => [n, toNumber(r[n]) ?? Number.NaN]));
    return {
      row,
      prompt: asText(r.prompt),
      completion: asText(r.completion),
      rewards,
      advantage: toNumber(r.advantage),
      extra,
    };
  });
}

const open = async (contents: Record<string, Uint8Array>): Promise<OpenedRun> =>
  openRun(memoryRunFiles('run', contents), { path: '', name: 'run', format: 'trl' });

describe('the fast TRL read', () => {
  it("hysnappy decodes what hyparquet's own snappy decodes", () => {
    const SNAPPY = parquetCompressors().SNAPPY!;
    const enc = new TextEncoder();
    for (const text of ['', 'a', 'ü 👍 \\u00fc "q" \\\\', 'satisfied '.repeat(5000), 'x'.repeat(70_000) + 'yz']) {
      const input = enc.encode(text);
      const packed = snappyCompress(input);
      const plain = new Uint8Array(input.length);
      snappyUncompress(packed, plain);
      expect(SNAPPY(packed, input.length)).toEqual(plain);
      expect(plain).toEqual(input);
    }
  });

  it('reads every step of a TRL run as the plain read does, row for row', async () => {
    const contents = Object.fromEntries(names.map((n) => [`completions/${n}`, bytesOf(n)]));
    const run = await open(contents);
    expect(run.index.steps).toEqual([1, 2, 3]);
    for (const [i, step] of run.index.steps.entries()) {
      const read = (await run.readStep(step)).groups.flatMap((g) => g.completions);
      const plain = await plainRows(bytesOf(names[i]!), run.index.rewardNames);
      expect(read.length).toBe(plain.length);
      read.forEach((c, k) => {
        const p = plain[k]!;
        expect({ ...c, advantage: c.advantage }).toMatchObject(p);
        expect(c.reward).toBe(Object.values(p.rewards!).reduce((a, b) => a + b, 0));
      });
    }
  });

  it('a search finds the hits the plain rows give, for text, case, regex and filters', async () => {
    const contents = Object.fromEntries(names.map((n) => [`completions/${n}`, bytesOf(n)]));
    const run = await open(contents);
    const all: { step: number; c: Partial<RunCompletion> }[] = [];
    for (const [i, step] of run.index.steps.entries())
      for (const c of await plainRows(bytesOf(names[i]!), run.index.rewardNames)) all.push({ step, c });
    const words = [...new Set(all.flatMap(({ c }) => `${c.prompt} ${c.completion}`.split(/\s+/)))].slice(0, 12);
    const queries: (RunQuery & { text: string })[] = [
      ...words.map((w) => ({ text: w.toUpperCase() })),
      { text: `${words[0]}|${words[1]}`, regex: true },
      { text: '\\d+', regex: true, in: 'completion' },
      { text: words[0]!, advantageSign: 'positive' },
    ];
    let found = 0;
    for (const q of queries) {
      const re = q.regex ? new RegExp(q.text, 'u') : null;
      const matches = (s = '') => (re ? re.test(s) : s.toLowerCase().includes(q.text.toLowerCase()));
      const expected = all.filter(
        ({ c }) =>
          (q.in === 'completion' ? matches(c.completion) : matches(c.prompt) || matches(c.completion)) &&
          (!q.advantageSign || (c.advantage ?? 0) > 0),
      );
      const result = await run.search(q);
      expect(result.count, JSON.stringify(q)).toBe(expected.length);
      expect(result.hits.map((h) => [h.step, h.row, h.completion])).toEqual(
        expected.map(({ step, c }) => [step, c.row, c.completion]),
      );
      found += result.count;
    }
    expect(found).toBeGreaterThan(0);
  });
});
