/**
 * `rlvr view` over every format the readers know (src/runs/detect.ts), on a real port: TRL's
 * output_dir (the readers' real TRL 1.13 fixture, src/runs/fixtures/README.md), a veRL dump, a
 * documented JSONL file and a shipped run record. A one-file run (JSONL, record) is served as a folder
 * of that one file. And the HTTP contract is enough for the readers: a run opened through
 * files.json and Range reads (as the page's worker does) reads the same steps as one opened on disk.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectRuns, openRun } from '../runs/index.ts';
import type { RunFiles } from '../runs/types.ts';
import { nodeRunFiles } from './run-files.ts';
import { RunCatalog } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { createViewServer, listenForView } from './view-server.ts';
import { httpRunFiles as pageRunFiles } from '../../workers/browser-run-files.ts';

const repo = join(__dirname, '..', '..');
const RECORD = join(repo, 'public/records/lessons/forking-tokens/seed-11/top_20_entropy.rlvr.gz');

/** The readers' RunFiles over `rlvr view`'s HTTP contract: files.json, and each read one Range request. */
function httpRunFiles(base: string, name: string): RunFiles {
  return {
    name,
    async list() {
      return (await (await fetch(new URL('files.json', base))).json()) as { path: string; size: number }[];
    },
    async read(path, start, end) {
      const url = new URL(`file/${path.split('/').map(encodeURIComponent).join('/')}`, base);
      // Range is inclusive; RunFiles' end is exclusive.
      const headers: Record<string, string> =
        start === undefined ? {} : { Range: end === undefined ? `bytes=${start}-` : `bytes=${start}-${end - 1}` };
      const res = await fetch(url, { headers });
      if (!res.ok) throw new Error(`${url}: ${res.status}`);
      if (start !== undefined && start !== end) expect(res.status).toBe(206);
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}

let tmp: string;
let served: string;
let server: Server;
let origin: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-formats-'));
  served = join(tmp, 'served');
  cpSync(join(repo, 'src/runs/fixtures/trl-tiny'), join(served, 'grpo-qwen'), { recursive: true });
  mkdirSync(join(served, 'verl', 'dump'), { recursive: true });
  for (const step of [1, 2, 3]) {
    // As _dump_generations writes them (verl/trainer/ppo/ray_trainer.py): Python's json.dumps of flat
    // objects (", " and ": " between items), lines joined by "\n" with a final "\n".
    const pyJson = (o: Record<string, unknown>) =>
      `{${Object.entries(o)
        .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
        .join(', ')}}`;
    const line = (i: number) => pyJson({ input: `q${i >> 1}`, output: `a${i}`, gts: '1', score: i % 2, step });
    const lines = [0, 1, 2, 3].map(line);
    writeFileSync(join(served, 'verl', 'dump', `${step}.jsonl`), lines.join('\n') + '\n');
  }
  const documented = [1, 2].flatMap((step) =>
    [0, 1].map((i) => JSON.stringify({ step, prompt: 'p', completion: `c${i}`, rewards: { ok: i } })),
  );
  writeFileSync(join(served, 'other.jsonl'), documented.join('\n') + '\n');
  copyFileSync(RECORD, join(served, 'lesson.rlvr.gz'));
  const dist = join(tmp, 'dist');
  mkdirSync(dist);
  writeFileSync(join(dist, 'index.html'), '<!doctype html>');
  const catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(dist), loopbackOnly: true });
  await listenForView(server, '127.0.0.1', 0, 0);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

describe('rlvr view serves every format', () => {
  it('lists TRL, veRL, JSONL and record runs with their steps', async () => {
    const runs = (await (await fetch(new URL('runs.json', origin))).json()) as { name: string }[];
    const onDisk = await detectRuns(nodeRunFiles(served));
    const steps = await Promise.all(
      onDisk.runs.map(async (r) => (await openRun(nodeRunFiles(served), r)).index.steps.length),
    );
    expect(runs).toEqual([
      { name: 'grpo-qwen', format: 'trl', steps: 3, errors: [] },
      { name: 'dump', format: 'verl', steps: 3, errors: [] },
      { name: 'other.jsonl', format: 'jsonl', steps: 2, errors: [] },
      { name: 'lesson.rlvr.gz', format: 'record', steps: steps[3], errors: [] },
    ]);
    expect(steps[3]).toBeGreaterThan(0);
  });

  it('serves a one-file run as a folder of that file, and none of its neighbours', async () => {
    const files = await (await fetch(new URL('runs/other.jsonl/files.json', origin))).json();
    expect(files).toEqual([{ path: 'other.jsonl', size: expect.any(Number) }]);
    expect((await fetch(new URL('runs/other.jsonl/file/lesson.rlvr.gz', origin))).status).toBe(404);
    expect((await fetch(new URL('runs/lesson.rlvr.gz/file/other.jsonl', origin))).status).toBe(404);
  });

  it('a run read over HTTP (files.json and Range reads) reads the same steps as on disk', async () => {
    for (const [name, folder] of [
      ['grpo-qwen', 'grpo-qwen'],
      ['dump', 'verl/dump'],
    ] as const) {
      const http = httpRunFiles(new URL(`runs/${name}/`, origin).href, name);
      const [found] = (await detectRuns(http)).runs;
      expect(found).toMatchObject({ path: '' });
      const overHttp = await openRun(http, found!);
      const disk = await openRun(nodeRunFiles(join(served, folder)), found!);
      expect(overHttp.index.steps).toEqual(disk.index.steps);
      for (const step of disk.index.steps) expect(await overHttp.readStep(step)).toEqual(await disk.readStep(step));
    }
    const http = httpRunFiles(new URL('runs/lesson.rlvr.gz/', origin).href, 'lesson.rlvr.gz');
    const [record] = (await detectRuns(http)).runs;
    expect(record).toMatchObject({ path: 'lesson.rlvr.gz', format: 'record' });
    const overHttp = await openRun(http, record!);
    const disk = await openRun(nodeRunFiles(served), { ...record!, path: 'lesson.rlvr.gz' });
    expect(overHttp.index.steps).toEqual(disk.index.steps);
    const last = disk.index.steps[disk.index.steps.length - 1]!;
    expect(await overHttp.readStep(last)).toEqual(await disk.readStep(last));
  });

  it(
    "a search over a served TRL run, and a served veRL dump, reads their steps' files many to a request " +
      '(files?path=…), and finds what a search on disk finds',
    async () => {
      for (const [name, folder, text] of [
        ['grpo-qwen', 'grpo-qwen', 'a'],
        ['dump', 'verl/dump', 'a'],
      ] as const) {
        const plain = pageRunFiles(name, new URL(`runs/${name}/`, origin).href);
        let many = 0;
        let single = 0;
        const counted = {
          ...plain,
          read: (path: string, start?: number, end?: number) => (single++, plain.read(path, start, end)),
          readMany: (paths: string[]) => (many++, plain.readMany!(paths)),
        };
        const [found] = (await detectRuns(counted)).runs;
        const overHttp = await openRun(counted, found!);
        const disk = await openRun(nodeRunFiles(join(served, folder)), found!);
        single = 0;
        const got = await overHttp.search({ text });
        const want = await disk.search({ text });
        expect(got.count, name).toBeGreaterThan(0);
        expect(got, name).toEqual(want);
        expect(many, name).toBe(1); // every step of the fixture in one request
        expect(single, name).toBe(0);
      }
      // The answer is the files one after another, each path checked as file/<path> is.
      const at = (q: string) => fetch(new URL(`runs/grpo-qwen/files?${q}`, origin));
      const two = await at('path=checkpoint-2/trainer_state.json&path=checkpoint-2%2Ftrainer_state.json');
      expect(two.status).toBe(200);
      const sizes = two.headers.get('x-part-sizes')!.split(',').map(Number);
      expect(sizes[0]).toBe(sizes[1]);
      expect((await two.arrayBuffer()).byteLength).toBe(sizes[0]! * 2);
      for (const bad of ['path=../lesson.rlvr.gz', 'path=%2e%2e%2Fother.jsonl', 'path=a%5Cb', 'path='])
        expect((await at(bad)).status, bad).toBe(403);
      expect((await at('path=nope.parquet')).status).toBe(404);
      expect((await at('')).status).toBe(400);
      expect(
        (await at(Array.from({ length: 65 }, () => 'path=checkpoint-2/trainer_state.json').join('&'))).status,
      ).toBe(400);
    },
  );
});
