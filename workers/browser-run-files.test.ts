// The run reader worker's two RunFiles (workers/browser-run-files.ts): a picked folder's File objects
// (File.slice for ranges) and a run served over HTTP the way `rlvr view` serves it (files.json,
// file/<path> with Range), here by a small Node server that keeps that contract and counts what it was
// asked for. The readers open a real TRL run's parquet files (src/runs/fixtures/README.md) and a veRL
// dump through each.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectRuns, openRun } from '../src/runs/detect.ts';
import { verlDumpGenerations } from '../src/runs/verl-fixture.ts';
import { givenRunFiles, httpRunFiles } from './browser-run-files.ts';

const trlDir = join(import.meta.dirname, '..', 'src', 'runs', 'fixtures', 'trl-tiny');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
const contents = new Map<string, Uint8Array>(
  walk(trlDir).map((p) => [relative(trlDir, p), new Uint8Array(readFileSync(p))]),
);
for (const step of [1, 2]) {
  const d = verlDumpGenerations({ step, inputs: ['q', 'q'], outputs: ['a', 'b'], gts: ['a', 'a'], scores: [1, 0] });
  contents.set(`rollouts/${d.name}`, new TextEncoder().encode(d.text));
}

let server: Server;
let base = '';
let honourRange = true;
const asked: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/runs/all/files.json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify([...contents].map(([path, b]) => ({ path, size: b.length }))));
      return;
    }
    const m = /^\/runs\/all\/file\/(.+)$/.exec(url.pathname);
    const bytes = m ? contents.get(m[1]!.split('/').map(decodeURIComponent).join('/')) : undefined;
    if (!bytes) {
      res.statusCode = 404;
      res.end();
      return;
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    asked.push(`${m![1]} ${req.headers.range ?? 'whole'}`);
    if (range && honourRange) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
      if (start >= bytes.length) {
        res.statusCode = 416;
        res.end();
        return;
      }
      res.statusCode = 206;
      res.setHeader('content-range', `bytes ${start}-${end}/${bytes.length}`);
      res.end(bytes.subarray(start, end + 1));
      return;
    }
    res.end(bytes);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/runs/all/`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('the run reader worker RunFiles', () => {
  it('a picked folder: the readers open TRL and veRL runs from File objects', async () => {
    const files = givenRunFiles(
      'picked',
      [...contents].map(([path, b]) => ({
        path,
        file: new File([b as Uint8Array<ArrayBuffer>], path.split('/').pop()!),
      })),
    );
    const found = await detectRuns(files);
    expect(found.runs.map((r) => [r.path, r.format])).toEqual([
      ['', 'trl'],
      ['rollouts', 'verl'],
    ]);
    const trl = await openRun(files, found.runs[0]!);
    expect(trl.index.steps).toEqual([1, 2, 3]);
    expect((await trl.readStep(3)).groups).toHaveLength(3);
    expect((await files.read('rollouts/1.jsonl', 2, 9)).length).toBe(7);
  });

  it('a served run: files.json and ranged reads of file/<path>, whole-file answers taken apart too', async () => {
    for (const honour of [true, false]) {
      honourRange = honour;
      asked.length = 0;
      const files = httpRunFiles('all', base);
      const found = await detectRuns(files);
      expect(found.runs.map((r) => r.format)).toEqual(['trl', 'verl']);
      const trl = await openRun(files, found.runs[0]!);
      expect(trl.index.metrics.map((m) => m.step)).toEqual([1, 2]);
      const rows = (await trl.readStep(2)).groups.flatMap((g) => g.completions);
      expect(rows).toHaveLength(12);
      const verl = await openRun(files, found.runs[1]!);
      expect((await verl.readStep(2)).groups[0]!.completions.map((c) => c.completion)).toEqual(['a', 'b']);
      // Whole files: the trainer state, and the one small parquet of the step read (footer and rows at once).
      if (honour) {
        expect(asked.filter((a) => a.endsWith('whole'))).toEqual([
          'checkpoint-2/trainer_state.json whole',
          'completions/completions_00002.parquet whole',
        ]);
      }
    }
    honourRange = true;
    await expect(httpRunFiles('all', base).read('nope.jsonl')).rejects.toThrow('rlvr view answered 404 for nope.jsonl');
  });
});
