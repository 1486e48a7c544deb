/**
 * `GET /search.json`'s filters by reward function, advantage and finding, its sort and its histogram
 * (src/node/view-search-route.ts, view-search.ts), read as the page reads them (src/ui/state/served-search.ts):
 * the same hits, count and histogram as the page's own search (src/runs/opened-run.ts) over the same
 * files, on the TRL fixture and on a veRL dump of many shares (written as veRL writes it: verl-fixture.ts
 * follows verl/trainer/ppo/ray_trainer.py `_dump_generations`).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRunFindings } from '../runs/findings/index.ts';
import { detectRuns, openRun } from '../runs/index.ts';
import { findingRowsOf } from '../runs/search-query.ts';
import type { RunQuery, RunSearchOptions } from '../runs/types.ts';
import { verlDumpGenerations } from '../runs/verl-fixture.ts';
import { servedSearch } from '../ui/state/served-search.ts';
import { endFindingsThreads } from './view-findings.ts';
import { RunCatalog } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { createViewServer, listenForView } from './view-server.ts';
import { endSearchThreads } from './view-search.ts';

let tmp: string;
let server: Server;
let base: string;
let catalog: RunCatalog;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-search-filters-'));
  const served = join(tmp, 'served');
  cpSync(join(import.meta.dirname, '..', 'runs', 'fixtures', 'trl-tiny'), join(served, 'trl-tiny'), {
    recursive: true,
  });
  mkdirSync(join(served, 'verl'), { recursive: true });
  for (let s = 1; s <= 40; s++) {
    const n = 8;
    const d = verlDumpGenerations({
      step: s,
      inputs: Array.from({ length: n }, (_, i) => `question ${(s * 5 + (i >> 1)) % 11}`),
      outputs: Array.from({ length: n }, (_, i) => `answer ${'x'.repeat((s * 3 + i * 7) % 23)} ${i % 3 ? 'ok' : 'no'}`),
      gts: null,
      scores: Array.from({ length: n }, (_, i) => (s % 4 === 0 ? 1 : ((s * 13 + i * 7) % 9) / 8)),
      rewardExtraInfos: { acc: Array.from({ length: n }, (_, i) => ((s + i) % 3 === 0 ? 1 : 0)) },
    });
    writeFileSync(join(served, 'verl', d.name), d.text);
  }
  catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(join(tmp, 'served')), loopbackOnly: true });
  await listenForView(server, '127.0.0.1', 0, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  endSearchThreads();
  endFindingsThreads();
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

async function inPage(name: string, query: RunQuery, options: RunSearchOptions) {
  const r = (await catalog.named(name))!;
  const run = await openRun(r.files(), r.found);
  if (query.finding === undefined) return run.search(query, options);
  const findingRows = findingRowsOf((await findRunFindings(run)).findings, query.finding);
  return run.search(query, { ...options, findingRows });
}

describe('GET /search.json, filtered, sorted and counted', () => {
  it('gives the page search hits, count and histogram', async () => {
    const queries: [string, RunQuery][] = [
      ['verl', { rewardRanges: { acc: { min: 1 } } }],
      ['verl', { rewardRanges: { acc: { max: 0 } }, rewardMin: 0.25, text: 'ok' }],
      ['verl', { sort: 'reward', order: 'desc' }],
      ['verl', { sort: 'length', text: 'no' }],
      ['verl', { sort: 'reward.acc', order: 'desc', rewardMax: 0.9 }],
      ['verl', { finding: 'zero_variance_group' }],
      ['trl-tiny', { advantageMin: 0, sort: 'advantage', order: 'desc' }],
      ['trl-tiny', { advantageMax: 0, sort: 'length' }],
    ];
    for (const [name, q] of queries) {
      for (const limit of [3, 1000]) {
        const options = { limit, histogram: true };
        const served = await servedSearch(base, name, q, options);
        const page = await inPage(name, q, options);
        expect([name, q, limit, served]).toEqual([name, q, limit, page]);
        expect(page.count).toBeGreaterThan(0);
        expect(page.histogram!.bins.reduce((a, b) => a + b[1], 0) + page.histogram!.nonFinite).toBe(page.count);
      }
    }
  });

  it('refuses a sort, order or finding it does not know, naming the parameter', async () => {
    for (const [param, want] of [
      ['sort=size', 'sort: reward, advantage, length or reward.NAME'],
      ['sort=reward&order=up', 'order: asc or desc'],
      ['finding=bad_luck', 'finding: one of zero_variance_group'],
      ['rewardMin.acc=high', 'rewardMin.acc: a number'],
    ] as const) {
      const res = await fetch(`${base}search.json?run=verl&${param}`);
      expect([param, res.status]).toEqual([param, 400]);
      expect(await res.text()).toContain(want);
    }
  });
});
