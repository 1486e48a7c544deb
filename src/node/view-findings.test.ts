/**
 * `GET /runs/NAME/findings.json` on `rlvr view` (src/node/view-findings.ts), on a real port: the run with
 * every finding planted (src/runs/fixtures/planted-findings.jsonl) and a shipped recording whose verifier
 * leaks (its reward hacking is the lesson's point) answer, measured in worker threads, exactly the findings
 * the engine gives in-process, as `rlvr findings --json`'s objects; a run that is not served is a 404.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingToJson, findRunFindings } from '../runs/findings/find.ts';
import { detectRuns, openRun } from '../runs/index.ts';
import { nodeRunFiles } from './run-files.ts';
import { RunCatalog } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { endFindingsThreads } from './view-findings.ts';
import { createViewServer, listenForView } from './view-server.ts';

const repo = join(__dirname, '..', '..');
const PLANTED = join(repo, 'src/runs/fixtures/planted-findings.jsonl');
const LEAKY = join(repo, 'public/records/lessons/reward-hacking/seed-1/leaky_verifier.rlvr.gz');

let tmp: string;
let served: string;
let server: Server;
let origin: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-findings-'));
  served = join(tmp, 'served');
  mkdirSync(served);
  copyFileSync(PLANTED, join(served, 'planted.jsonl'));
  copyFileSync(LEAKY, join(served, 'leaky.rlvr.gz'));
  const dist = join(tmp, 'dist');
  mkdirSync(dist);
  writeFileSync(join(dist, 'index.html'), '<!doctype html>');
  const catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(dist), loopbackOnly: true });
  await listenForView(server, '127.0.0.1', 0, 0);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  endFindingsThreads();
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

async function inProcess(file: string, name: string) {
  const [found] = (await detectRuns(nodeRunFiles(served))).runs.filter((r) => r.path === file);
  const run = await openRun(nodeRunFiles(served), found!);
  run.index.name = name;
  return (await findRunFindings(run)).findings.map(findingToJson);
}

describe('GET /runs/NAME/findings.json', () => {
  it('answers the findings the engine gives in-process, as rlvr findings --json objects', async () => {
    await fetch(new URL('runs.json', origin));
    for (const [file, name, kinds] of [
      ['planted.jsonl', 'planted.jsonl', 8],
      ['leaky.rlvr.gz', 'leaky.rlvr.gz', 2],
    ] as const) {
      const res = await fetch(new URL(`runs/${name}/findings.json`, origin));
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const got = (await res.json()) as ReturnType<typeof findingToJson>[];
      expect(got, name).toEqual(await inProcess(file, name));
      expect(new Set(got.map((f) => f.kind)).size, name).toBe(kinds);
      for (const f of got) expect(Object.keys(f)).toEqual(['run', 'kind', 'step', 'group', 'rows', 'score', 'text']);
    }
    const leaky = (await (await fetch(new URL('runs/leaky.rlvr.gz/findings.json', origin))).json()) as {
      kind: string;
    }[];
    expect(leaky.some((f) => f.kind === 'reward_hacking')).toBe(true);
  });

  it('a run that is not served: 404', async () => {
    expect((await fetch(new URL('runs/nope.jsonl/findings.json', origin))).status).toBe(404);
  });
});
