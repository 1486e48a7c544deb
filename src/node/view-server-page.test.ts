/**
 * `rlvr view` marks the page it serves (VIEW_MARK in src/node/view-server.ts): the page asks for
 * runs.json only when it is marked, so on a static host it never requests a file that is not there.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectRuns, openRun } from '../runs/index.ts';
import { RunCatalog } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { createViewServer, listenForView, VIEW_MARK } from './view-server.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-page-'));
const PAGE = '<!doctype html>\n<html>\n  <head>\n    <title>page</title>\n  </head>\n</html>\n';
let server: ReturnType<typeof createViewServer>;
let base = '';

beforeAll(async () => {
  const served = join(tmp, 'served');
  const dist = join(tmp, 'dist');
  mkdirSync(served, { recursive: true });
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, 'index.html'), PAGE);
  writeFileSync(join(dist, 'about.html'), PAGE);
  const catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(dist), loopbackOnly: true });
  await listenForView(server, '127.0.0.1', 0, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

describe('rlvr view marks the page it serves', () => {
  it('at the start of <head>, for the page and every view link; other files as they are', async () => {
    const marked = PAGE.replace('<head>', `<head>${VIEW_MARK}`);
    for (const path of ['/', '/index.html', '/?view=run&step=3', '/some/view']) {
      const res = await fetch(base + path);
      const body = await res.text();
      expect([path, res.status, body]).toEqual([path, 200, marked]);
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(marked)));
    }
    expect(await (await fetch(`${base}/about.html`)).text()).toBe(PAGE);
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });
});
