// Reliability (docs/reliability.md): JSONL datasets from disk. A 50 MB file (generated here, in a temp dir) streams
// through
// parseDatasetStream with bounded memory, malformed lines anywhere in it are reported by line number,
// and an empty file gives a clear message. src/tasks/dataset.test.ts (main suite) covers the parser on
// in-memory chunks; this reads a real file through fs streams, and through Blob.stream() as the
// browser's File would be read (src/ui/derive/import-limits.ts).
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAsBlob } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetError, parseDatasetStream } from '../src/tasks/dataset.ts';
import { readDatasetFile } from '../src/ui/derive/import-limits.ts';
import { heapAfterGc } from './helpers.ts';

const TARGET_BYTES = 50 * 1024 * 1024;
/** Lines the generator breaks on purpose (1-based), one of each kind. */
const BAD: Record<number, RegExp> = {
  3: /not valid JSON/,
  100_000: /missing "answer"/,
  250_000: /not a JSON object/,
  400_001: /"prompt" is empty/,
};
/**
 * Retained heap (after a full GC) allowed while streaming 50 MB with at most 1,000 records kept: the file is 12x this.
 */
const STREAM_HEAP_BOUND = 4 * 1024 * 1024;

let dir = '';
let file = '';
let lines = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-dataset-'));
  file = join(dir, 'big.jsonl');
  const fh = await open(file, 'w');
  let bytes = 0;
  let buf: string[] = [];
  while (bytes < TARGET_BYTES) {
    lines++;
    let line: string;
    if (lines === 3) line = '{"prompt": "broken", "answer": ';
    else if (lines === 100_000) line = '{"prompt": "no answer"}';
    else if (lines === 250_000) line = '[1, 2, 3]';
    else if (lines === 400_001) line = '{"prompt": "", "answer": "1"}';
    else
      line = JSON.stringify({
        prompt: `What is ${lines} + ${lines % 97}? Think step by step.`,
        answer: String(lines + (lines % 97)),
      });
    buf.push(line);
    bytes += line.length + 1;
    if (buf.length === 10_000) {
      await fh.write(buf.join('\n') + '\n');
      buf = [];
    }
  }
  if (buf.length) await fh.write(buf.join('\n') + '\n');
  await fh.close();
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a 50 MB JSONL dataset file', () => {
  it('streams with bounded memory; malformed lines are reported by line number', async () => {
    expect((await stat(file)).size).toBeGreaterThanOrEqual(TARGET_BYTES);
    const before = heapAfterGc();
    let peak = 0;
    let chunks = 0;
    const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
    async function* sampled() {
      for await (const c of stream) {
        // retained, not garbage waiting for collection
        if (++chunks % 100 === 0) peak = Math.max(peak, heapAfterGc() - before);
        yield c as string;
      }
    }
    const t0 = performance.now();
    const ds = await parseDatasetStream(sampled(), { maxRecords: 1000 });
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `50 MB file, ${lines} lines, ${chunks} chunks: parsed in ${seconds.toFixed(1)} s; peak retained ` +
        `heap growth while streaming ${(peak / 2 ** 20).toFixed(1)} MB (bound ${STREAM_HEAP_BOUND / 2 ** 20} ` +
        'MB)',
    );
    expect(ds.lines).toBe(lines);
    expect(ds.records).toHaveLength(1000);
    expect(ds.truncated).toBe(true);
    expect(ds.records[0]).toEqual({ line: 1, prompt: 'What is 1 + 1? Think step by step.', answer: '2' });
    expect(ds.records[2]!.line).toBe(4); // line 3 was the broken one
    expect(ds.errorCount).toBe(Object.keys(BAD).length);
    expect(ds.errors.map((e) => e.line)).toEqual(Object.keys(BAD).map(Number));
    for (const e of ds.errors) expect(e.reason).toMatch(BAD[e.line]!);
    expect(peak).toBeLessThan(STREAM_HEAP_BOUND);
  }, 300_000);

  it('reads the same file as a browser File would (Blob.stream(), size cap checked first)', async () => {
    const blob = await openAsBlob(file);
    const ds = await readDatasetFile(Object.assign(blob, { name: 'big.jsonl' }), { maxRecords: 10 });
    expect(ds.lines).toBe(lines);
    expect(ds.errors.map((e) => e.line)).toEqual(Object.keys(BAD).map(Number));
  }, 300_000);

  it('an empty file (0 bytes) and a file of blank lines give a clear message', async () => {
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '');
    await expect(
      parseDatasetStream(createReadStream(empty, { encoding: 'utf8' }) as AsyncIterable<string>),
    ).rejects.toThrow(DatasetError);
    await expect(
      parseDatasetStream(createReadStream(empty, { encoding: 'utf8' }) as AsyncIterable<string>),
    ).rejects.toThrow(/dataset is empty/);
    const blank = join(dir, 'blank.jsonl');
    await writeFile(blank, '\n\n   \n\r\n');
    await expect(
      parseDatasetStream(createReadStream(blank, { encoding: 'utf8' }) as AsyncIterable<string>),
    ).rejects.toThrow(/dataset is empty/);
    const garbage = join(dir, 'garbage.jsonl');
    await writeFile(garbage, Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)));
    await expect(
      parseDatasetStream(createReadStream(garbage, { encoding: 'utf8' }) as AsyncIterable<string>),
    ).rejects.toThrow(/no valid records \(\d+ malformed lines; line 1: /);
  });
});
