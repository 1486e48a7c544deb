/**
 * `rlvr view`'s runs.json over the five framework dumps (scripts/framework_dumps.py writes each as its
 * framework's writer does) and over files that are not what their names say: each run is listed with its
 * format, and with `errors` naming what could not be read, never as a healthy run of 0 steps.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectRuns, openRun } from '../runs/index.ts';
import { MAX_ERRORS, RunCatalog } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { createViewServer, listenForView } from './view-server.ts';

const repo = join(__dirname, '..', '..');
const TRL = join(repo, 'src/runs/fixtures/trl-tiny/completions/completions_00001.parquet');
let tmp: string;
let served: string;
let server: Server;
let origin: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-errors-'));
  served = join(tmp, 'served');
  execFileSync('/usr/bin/python3', [join(repo, 'scripts', 'framework_dumps.py'), 'write', served]);
  mkdirSync(join(served, 'junk'));
  // Bytes that are not gzip, under a run record's name.
  writeFileSync(
    join(served, 'junk', 'run.rlvr.gz'),
    Uint8Array.from({ length: 300 }, (_, i) => (i * 97 + 13) % 251),
  );
  mkdirSync(join(served, 'cut', 'completions'), { recursive: true });
  const parquet = readFileSync(TRL);
  copyFileSync(TRL, join(served, 'cut', 'completions', 'completions_00001.parquet'));
  writeFileSync(join(served, 'cut', 'completions', 'completions_00002.parquet'), parquet.subarray(0, 400));
  mkdirSync(join(served, 'many'));
  const lines = Array.from({ length: 60 }, (_, i) =>
    i % 2 ? 'not json' : JSON.stringify({ step: 1, prompt: 'p', completion: 'c', rewards: { r: 1 } }),
  );
  writeFileSync(join(served, 'many', 'run.jsonl'), lines.join('\n') + '\n');
  const dist = join(tmp, 'dist');
  mkdirSync(dist);
  writeFileSync(join(dist, 'index.html'), '<!doctype html>');
  const catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(dist), loopbackOnly: true });
  await listenForView(server, '127.0.0.1', 0, 0);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

type Listed = { name: string; format: string; steps: number; errors: string[] };
const runsJson = async () => (await (await fetch(new URL('runs.json', origin))).json()) as Listed[];

describe('runs.json: formats and errors', () => {
  it('lists the five framework dumps by their format names, with their steps and no errors', async () => {
    const runs = await runsJson();
    const byFormat = (f: string) => runs.filter((r) => r.format === f).map(({ steps, errors }) => ({ steps, errors }));
    for (const f of ['nemo-rl', 'prime-rl', 'roll', 'areal', 'trackio'])
      expect(byFormat(f)).toEqual([{ steps: 2, errors: [] }]);
  });

  it('random bytes named run.rlvr.gz are a record with an error saying what is wrong, not a healthy run', async () => {
    const junk = (await runsJson()).find((r) => r.name === 'run.rlvr.gz')!;
    expect(junk).toEqual({
      name: 'run.rlvr.gz',
      format: 'record',
      steps: 0,
      errors: [expect.stringMatching(/^run\.rlvr\.gz: not a readable run record: it is not gzip-compressed/)],
    });
  });

  it('a truncated parquet is an error naming the file; the whole step is still counted', async () => {
    const cut = (await runsJson()).find((r) => r.name === 'cut')!;
    expect(cut.format).toBe('trl');
    expect(cut.steps).toBe(1);
    expect(cut.errors).toEqual([
      expect.stringMatching(/^completions\/completions_00002\.parquet: not a readable parquet file/),
    ]);
  });

  it(`many problems: the first ${MAX_ERRORS} by name, then how many more`, async () => {
    const many = (await runsJson()).find((r) => r.name === 'run.jsonl')!;
    expect(many.errors).toHaveLength(MAX_ERRORS + 1);
    expect(many.errors[0]).toMatch(/^run\.jsonl line 2: not JSON/);
    expect(many.errors[MAX_ERRORS]).toBe(`and ${30 - MAX_ERRORS} more problems`);
  });
});
