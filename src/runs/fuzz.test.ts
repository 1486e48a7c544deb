// Property-based tests of every reader (fast-check): arbitrary bytes, and valid files mutated (bytes
// flipped, cut short, spliced), placed where each format is looked for. Nothing throws out of detectRuns,
// openRun, readStep, search or refresh except openRun's documented RunReadError, and every problem names
// a file that its message names too.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { parquetMetadata, parquetReadObjects, parquetSchema, snappyUncompress } from 'hyparquet';
import { snappyCompress } from 'hysnappy';
import { describe, expect, it } from 'vitest';
import { detectRuns, openRun } from './detect.ts';
import { asText, RunReadError } from './files.ts';
import { memoryRunFiles } from './memory-files.ts';
import { parquetCompressors } from './parquet-codecs.ts';
import { openSource } from './opened-run.ts';
import { trlSource } from './trl.ts';
import type { RunFiles, RunProblem, RunQuery } from './types.ts';
import { verlDumpGenerations } from './verl-fixture.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
const parquet = new Uint8Array(readFileSync(join(fixtures, 'trl-tiny', 'completions', 'completions_00001.parquet')));
const state = new Uint8Array(readFileSync(join(fixtures, 'trl-tiny', 'checkpoint-2', 'trainer_state.json')));
const record = new Uint8Array(
  readFileSync(
    resolve(
      import.meta.dirname,
      '..',
      '..',
      'public',
      'records',
      'lessons',
      'length-normalisation',
      'seed-33',
      'GRPO.rlvr.gz',
    ),
  ),
);
const enc = new TextEncoder();
const verl = enc.encode(
  verlDumpGenerations({
    step: 1,
    inputs: ['q1', 'q1', 'q2'],
    outputs: ['a', 'ü', 'c'],
    gts: ['a', 'a', 'c'],
    scores: [1, NaN, 0.5],
    rewardExtraInfos: { acc: [true, false, true] },
  }).text,
);
const documented = enc.encode(
  [
    JSON.stringify({
      step: 1,
      prompt: 'p',
      completion: 'a',
      rewards: { r: 1 },
      advantage: 0.5,
      tokens: { text: ['a'], ids: [1], logprobs: [-1] },
    }),
    JSON.stringify({ step: 1, prompt: 'p', completion: 'b', rewards: { r: 0 }, advantage: -0.5, truncated: true }),
    JSON.stringify({ step: 2, prompt: [{ role: 'user', content: 'q' }], completion: 'c', rewards: { r: 1, s: null } }),
  ].join('\n'),
);

/** Where each format is looked for, with a valid file for it. */
const places: [string, Uint8Array][] = [
  ['completions/completions_00001.parquet', parquet],
  ['checkpoint-2/trainer_state.json', state],
  ['verl/1.jsonl', verl],
  ['runs/dump.jsonl', documented],
  ['run.rlvr.gz', record],
];

/** Runs every entry point over a root; collects every problem; only documented errors may be thrown. */
async function exercise(files: RunFiles): Promise<RunProblem[]> {
  const { runs, problems } = await detectRuns(files);
  const all = [...problems];
  for (const found of runs) {
    let run;
    try {
      run = await openRun(files, found);
    } catch (e) {
      if (!(e instanceof RunReadError)) throw e;
      all.push({ file: e.file, message: e.message });
      continue;
    }
    for (const s of run.index.steps) all.push(...(await run.readStep(s)).problems);
    await run.search({ text: 'a' });
    await run.search({ text: 'a|b', regex: true, rewardMin: 0, advantageSign: 'positive', zeroVarianceGroups: true });
    all.push(...(await run.refresh()).problems);
  }
  return all;
}

function namesItsFile(p: RunProblem): void {
  expect(typeof p.file).toBe('string');
  expect(p.file.length).toBeGreaterThan(0);
  expect(p.message).toContain(p.file);
}

/** A valid file changed: bytes overwritten, cut short, or a slice inserted. */
const mutated = (valid: Uint8Array) =>
  fc.oneof(
    fc
      .array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })
      .map((edits) => {
        const b = valid.slice();
        for (const [at, v] of edits) b[at] = v;
        return b;
      }),
    fc.nat(valid.length).map((n) => valid.slice(0, n)),
    fc.tuple(fc.nat(valid.length), fc.uint8Array({ maxLength: 64 })).map(([at, ins]) => {
      const b = new Uint8Array(valid.length + ins.length);
      b.set(valid.subarray(0, at));
      b.set(ins, at);
      b.set(valid.subarray(at), at + ins.length);
      return b;
    }),
  );

describe('fuzzing the run readers', () => {
  for (const [path, valid] of places) {
    it(`arbitrary bytes as ${path}: no throw, every problem names its file`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => {
          for (const p of await exercise(memoryRunFiles('root', { [path]: bytes }))) namesItsFile(p);
        }),
        { numRuns: 60 },
      );
    });

    it(`${path} mutated: no throw, every problem names its file`, async () => {
      await fc.assert(
        fc.asyncProperty(mutated(valid), async (bytes) => {
          const files = memoryRunFiles(
            'root',
            Object.fromEntries([...places.filter(([p]) => p !== path && !p.endsWith('.rlvr.gz')), [path, bytes]]),
          );
          for (const p of await exercise(files)) namesItsFile(p);
        }),
        { numRuns: path.endsWith('.rlvr.gz') ? 25 : 80 },
      );
    }, 120_000);
  }

  it("hysnappy (TRL's fast read) decodes any snappy data as hyparquet's own snappy does", () => {
    const SNAPPY = parquetCompressors().SNAPPY!;
    // Repeated pieces too, so the compressed form has back-references (copies), not only literals.
    const data = fc.oneof(
      fc.uint8Array({ maxLength: 4096 }),
      fc
        .tuple(fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 8 }), fc.nat(300))
        .map(([pieces, n]) => Uint8Array.from({ length: n * 3 }, (_, i) => pieces[i % pieces.length]![i % 7] ?? i)),
    );
    fc.assert(
      fc.property(data, (input) => {
        const packed = snappyCompress(input);
        const plain = new Uint8Array(input.length);
        snappyUncompress(packed, plain);
        expect(plain).toEqual(input);
        expect(SNAPPY(packed, input.length)).toEqual(input);
      }),
      { numRuns: 300 },
    );
  });

  it("a snappy stream whose preamble gives a wrong length reads as hyparquet's decoder reads it", () => {
    // A damaged page fuzzing found: hysnappy refused it, hyparquet (which takes the length from the page
    // header) read it, so the fast read dropped rows the plain read had.
    const input = new TextEncoder().encode('7+4=11, 9+2=11; '.repeat(6)); // 96 bytes: a one-byte preamble
    const packed = snappyCompress(input);
    expect(packed[0]).toBe(input.length);
    const damaged = packed.slice();
    damaged[0] = input.length + 24;
    const plain = new Uint8Array(input.length);
    snappyUncompress(damaged, plain);
    expect(plain).toEqual(input);
    expect(parquetCompressors().SNAPPY!(damaged, input.length)).toEqual(input);
  });

  it('a mutated TRL parquet the plain read reads whole is read the same by the fast read', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(parquet), async (bytes) => {
        // Column by column: hyparquet leaves a second failing column's rejection unobserved.
        let plain: Record<string, unknown>[] = [];
        try {
          const file = bytes.slice().buffer;
          const columns = parquetSchema(parquetMetadata(file)).children.map((c) => c.element.name);
          for (const column of columns) {
            const part = await parquetReadObjects({ file, columns: [column], rowFormat: 'object' });
            plain = part.map((r, i) => ({ ...plain[i], ...r }));
          }
        } catch {
          return; // the plain read refuses it: the fast read may refuse it too, or read it (step is not read)
        }
        const files = memoryRunFiles('root', { 'completions/completions_00001.parquet': bytes });
        let run;
        try {
          run = await openRun(files, { path: '', name: 'root', format: 'trl' });
        } catch {
          return; // a footer the reader refuses (a stray column chunk, a missing prompt column)
        }
        if (!run.index.steps.length) return;
        const step = await run.readStep(1);
        const read = step.groups.flatMap((g) => g.completions);
        const expected = plain
          .map((r, row) => ({ r, row }))
          .filter(({ r }) => typeof r.completion === 'string' || Array.isArray(r.completion));
        expect(read.map((c) => [c.row, c.prompt, c.completion])).toEqual(
          expected.map(({ r, row }) => [row, asText(r.prompt), asText(r.completion)]),
        );
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('a mutated TRL parquet is counted by a search past its hits as reading its rows counts it', async () => {
    const text = new Uint8Array(readFileSync(join(fixtures, 'trl-text', 'completions', 'completions_00001.parquet')));
    const queries: RunQuery[] = [{ text: 'k' }, { text: 'Key', in: 'prompt' }, { text: 'i', in: 'completion' }];
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(parquet), mutated(text)), fc.constantFrom(...queries), async (bytes, q) => {
        const contents = {
          'completions/completions_00001.parquet': bytes,
          'completions/completions_00002.parquet': text,
        };
        const counting = trlSource(memoryRunFiles('r', contents), 'r');
        const reading = trlSource(memoryRunFiles('r', contents), 'r');
        delete reading.countText; // every step's rows read and matched, as before the count
        const [a, b] = [await openSource(counting), await openSource(reading)];
        expect(await a.search(q, { limit: 0 })).toEqual(await b.search(q, { limit: 0 }));
        expect(a.index.problems).toEqual(b.index.problems);
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it('its counterexample: a column chunk of a negative length is a corrupt footer, not empty rows', async () => {
    // Found by the property above (a fresh clone's CI run): the prompt chunk's length mutated to -70, so hyparquet
    // read the column alone as no values and beside its neighbours as the old prompts.
    const bytes = new Uint8Array(readFileSync(join(fixtures, 'negative-chunk-size.parquet')));
    const run = await openRun(memoryRunFiles('root', { 'completions/completions_00001.parquet': bytes }), {
      path: '',
      name: 'root',
      format: 'trl',
    });
    expect(run.index.steps).toEqual([]);
    expect(run.index.problems.map((p) => p.message)).toEqual([
      'completions/completions_00001.parquet: its footer is corrupt (column "prompt" is said to take -70 bytes ' +
        "from byte 102 of a 4629-byte file); expected TRL's completions table (columns step, prompt, completion, " +
        'one per reward function, advantage)',
    ]);
  });

  it('its counterexample: a text value that decodes to no bytes is a problem to counting too', async () => {
    const text = new Uint8Array(readFileSync(join(fixtures, 'trl-text', 'completions', 'completions_00001.parquet')));
    const damaged = new Uint8Array(readFileSync(join(fixtures, 'damaged-text-page.parquet')));
    const contents = {
      'completions/completions_00001.parquet': damaged,
      'completions/completions_00002.parquet': text,
    };
    const counting = trlSource(memoryRunFiles('r', contents), 'r');
    const reading = trlSource(memoryRunFiles('r', contents), 'r');
    delete reading.countText;
    const [a, b] = [await openSource(counting), await openSource(reading)];
    const counted = await a.search({ text: 'k' }, { limit: 0 });
    expect(counted).toEqual(await b.search({ text: 'k' }, { limit: 0 }));
    expect(counted.problems?.map((p) => p.file)).toContain('completions/completions_00001.parquet');
  });

  it('any query over a valid run: no throw but a named error for an invalid regular expression', async () => {
    const run = await openRun(memoryRunFiles('root', { 'a.jsonl': documented }), {
      path: 'a.jsonl',
      name: 'a',
      format: 'jsonl',
    });
    const query = fc.record(
      {
        text: fc.string({ maxLength: 6 }),
        regex: fc.boolean(),
        in: fc.constantFrom('prompt' as const, 'completion' as const, 'both' as const),
        rewardMin: fc.double(),
        rewardMax: fc.double(),
        advantageSign: fc.constantFrom('positive' as const, 'negative' as const, 'zero' as const),
        lengthMin: fc.integer(),
        lengthMax: fc.integer(),
        zeroVarianceGroups: fc.boolean(),
        truncated: fc.boolean(),
        prompt: fc.string({ maxLength: 3 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        try {
          const r = await run.search(q);
          expect(r.count).toBeGreaterThanOrEqual(r.hits.length);
          expect(r.stepsSearched).toBe(2);
        } catch (e) {
          expect(q.regex).toBe(true);
          expect((e as Error).message).toMatch(/^not a valid regular expression: /);
        }
      }),
      { numRuns: 300 },
    );
  });
});
