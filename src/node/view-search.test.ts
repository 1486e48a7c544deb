/**
 * `rlvr view`'s search near the files (`GET /search.json`, src/node/view-search.ts and
 * view-search-route.ts), read as the page reads it (src/ui/state/served-search.ts): it gives exactly the
 * page's own search's hits, count and steps (src/runs/opened-run.ts) on the TRL fixture and on random veRL
 * dumps, refuses what it must, never reads outside the served folder, and stops when the client goes.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { detectRuns, openRun } from '../runs/index.ts';
import { verlDumpGenerations } from '../runs/verl-fixture.ts';
import type { RunQuery } from '../runs/types.ts';
import { servedSearch } from '../ui/state/served-search.ts';
import { RunCatalog } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { createViewServer, listenForView } from './view-server.ts';
import { endSearchThreads, searchServedRun, searchSharesInFlight } from './view-search.ts';

const SECRET = 'thesecretoutside';
let tmp: string;
let served: string;
let server: Server;
let base: string;
let catalog: RunCatalog;

const words = ['alpha', 'Beta', 'K', '\u212a', 'é', '"q"', 'a\\b', 'x/y', '\u0130', 'key', '😀', ' '];
const pick = (seed: number, n: number) =>
  Array.from({ length: n }, (_, i) => words[(seed * 7 + i * 13) % words.length]).join('');

/** A veRL dump of `steps` steps, `rows` lines each, groups of 2, rewards that make some groups zero-variance. */
function writeVerl(dir: string, steps: number, rows: number, seed = 1): void {
  mkdirSync(dir, { recursive: true });
  for (let s = 1; s <= steps; s++) {
    const inputs = Array.from({ length: rows }, (_, i) => pick(seed + s + Math.floor(i / 2), 3));
    const outputs = Array.from({ length: rows }, (_, i) => pick(seed * s + i, 1 + (i % 5)));
    const scores = Array.from({ length: rows }, (_, i) => [0, 1, 0.5, Number.NaN][(s + i * (s % 3)) % 4]!);
    writeFileSync(join(dir, `${s}.jsonl`), verlDumpGenerations({ step: s, inputs, outputs, gts: null, scores }).text);
  }
}

/** A search through the endpoint, as the page does it. */
const viaServer = (run: string, query: RunQuery, limit = 50) => servedSearch(base, run, query, { limit });
/** The page's own search over the same files. */
async function inPage(run: string, query: RunQuery, limit = 50) {
  const r = (await catalog.named(run))!;
  return (await openRun(r.files(), r.found)).search(query, { limit });
}

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port: Number(new URL(base).port), path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', fail);
    req.end();
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-search-'));
  served = join(tmp, 'served');
  cpSync(join(import.meta.dirname, '..', 'runs', 'fixtures', 'trl-tiny'), join(served, 'trl-tiny'), {
    recursive: true,
  });
  writeVerl(join(served, 'verl'), 12, 6);
  writeVerl(join(served, 'big'), 600, 40, 3);
  // A step file outside the served folder, holding a secret, and a symlink to it inside the run.
  writeVerl(join(tmp, 'outside'), 3, 2);
  writeFileSync(
    join(tmp, 'outside', '3.jsonl'),
    verlDumpGenerations({ step: 3, inputs: [SECRET], outputs: [SECRET], gts: null, scores: [1] }).text,
  );
  symlinkSync(join(tmp, 'outside', '3.jsonl'), join(served, 'verl', '13.jsonl'));
  catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(join(tmp, 'outside')), loopbackOnly: true });
  await listenForView(server, '127.0.0.1', 0, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  endSearchThreads();
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

const queries: RunQuery[] = [
  {},
  { text: 'a' },
  { text: 'KEY', in: 'prompt' },
  { text: 'k', in: 'completion' },
  { text: '"q"' },
  { text: 'x/y' },
  { text: 'É' },
  { text: '^alpha', regex: true },
  { text: 'e[ty]', regex: true, in: 'completion' },
  { rewardMin: 0.5 },
  { rewardMax: 0.5, text: 'beta' },
  { advantageSign: 'positive' },
  { lengthMin: 3, lengthMax: 9 },
  { zeroVarianceGroups: true },
  { truncated: true },
  { truncated: false, text: 'a' },
];

describe('GET /search.json', () => {
  it('gives the page search hits, count and steps on the TRL fixture and a veRL dump', async () => {
    for (const run of ['trl-tiny', 'verl']) {
      for (const q of queries) expect([run, q, await viaServer(run, q)]).toEqual([run, q, await inPage(run, q)]);
      const { hits } = await inPage(run, {});
      expect(await viaServer(run, { prompt: hits[3]!.prompt })).toEqual(await inPage(run, { prompt: hits[3]!.prompt }));
    }
    for (const run of ['trl-tiny', 'verl']) {
      const some = (await inPage(run, {})).hits[1]!.completion.slice(2, 6);
      const found = await viaServer(run, { text: some });
      expect([some, found.count > 0]).toEqual([some, true]);
    }
  });

  it('gives the page search result on random veRL dumps and queries, every share put back in step order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: queries.length - 1 }),
        async (seed, k) => {
          const name = `r${seed}-${k}`;
          writeVerl(join(served, name), 3 + (seed % 20), 2 + (seed % 5), seed);
          await catalog.runs();
          const limit = 1 + (seed % 7);
          expect(await viaServer(name, queries[k]!, limit)).toEqual(await inPage(name, queries[k]!, limit));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('names the step files it could not read, as the page search does, and searches the rest', async () => {
    const trl = join(served, 'trl-broken');
    cpSync(join(import.meta.dirname, '..', 'runs', 'fixtures', 'trl-tiny'), trl, { recursive: true });
    const broken = join(trl, 'completions', 'completions_00002.parquet');
    writeFileSync(broken, readFileSync(broken).subarray(0, 300));
    writeVerl(join(served, 'verl-broken'), 4, 4);
    const line2 = join(served, 'verl-broken', '2.jsonl');
    writeFileSync(line2, readFileSync(line2, 'utf8').replace(/\n/, '\n{not json\n'));
    await catalog.runs();
    for (const [run, file] of [
      ['trl-broken', 'completions/completions_00002.parquet'],
      ['verl-broken', '2.jsonl'],
    ] as const) {
      const served = await viaServer(run, { text: 'a' });
      expect(served).toEqual(await inPage(run, { text: 'a' }));
      expect(served.problems?.map((p) => p.file)).toEqual([file]);
      expect(served.stepsSearched).toBe(catalog.steps((await catalog.named(run))!)!.length);
    }
  });

  it('answers a bad query with the reason (as the page would throw it), an unknown run with 404', async () => {
    await expect(viaServer('verl', { text: '(', regex: true })).rejects.toThrow(/not a valid regular expression/);
    for (const path of [
      '/search.json?run=nothing',
      '/search.json?run=..%2Foutside',
      '/search.json?run=../outside',
      `/search.json?run=${encodeURIComponent(join(tmp, 'outside'))}`,
    ])
      expect([path, (await get(path)).status]).toEqual([path, 404]);
    expect((await get('/search.json?run=verl&in=somewhere')).status).toBe(400);
    expect((await get('/search.json?run=verl&limit=-1')).status).toBe(400);
    expect((await get('/search.json?run=verl&text=alpha')).status).toBe(200);
  });

  it('never reads a file outside the served folder, even when its worker is told to', async () => {
    const run = (await catalog.named('verl'))!;
    expect(run.listing().map((f) => f.path)).not.toContain('13.jsonl');
    // A listing that names the symlink out of the folder, as a stale or forged one would.
    const forged = { ...run, listing: () => [...run.listing(), { path: '13.jsonl', size: 200 }] };
    const steps = Array.from({ length: 13 }, (_, i) => i + 1);
    const r = await searchServedRun(forged, steps, { text: SECRET }, { limit: 10 });
    expect(r.count).toBe(0);
    expect(r.stepsSearched).toBe(13);
    expect((await get(`/search.json?run=verl&text=${SECRET}`)).body).not.toContain(`"${SECRET}`);
  });

  it('stops when cancelled, and when the client goes away', async () => {
    const run = (await catalog.named('big'))!;
    const steps = catalog.steps(run)!;
    const abort = new AbortController();
    const query: RunQuery = { text: 'zz', regex: true };
    const r = await searchServedRun(run, steps, query, {
      limit: 10,
      signal: abort.signal,
      onProgress: () => abort.abort(),
    });
    expect(r.cancelled).toBe(true);
    expect(r.stepsSearched).toBeLessThan(steps.length);
    // the shares still running when the search returned end on the abort: waited for, not slept on
    await vi.waitFor(() => expect(searchSharesInFlight()).toBe(0), { timeout: 10_000, interval: 20 });

    await new Promise<void>((ok, fail) => {
      const req = request(`${base}search.json?run=big&text=zz&regex=1`, (res) => {
        res.once('data', () => {
          expect(searchSharesInFlight()).toBeGreaterThan(0);
          req.destroy();
          ok();
        });
      });
      req.on('error', () => undefined);
      req.on('close', ok);
      setTimeout(() => fail(new Error('no answer')), 10_000);
      req.end();
    });
    await vi.waitFor(() => expect(searchSharesInFlight()).toBe(0), { timeout: 10_000, interval: 20 });
  });
});
