/**
 * `rlvr view`'s server (src/node/view-server.ts) on a real port, over real files and symlinks in a
 * temp dir: the HTTP contract the page's run reader relies on, and that nothing outside the served
 * folders is ever sent, whatever the path looks like on the wire (requests go out raw, unnormalized).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSP } from '../pwa/page-headers.ts';
import { detectRuns, openRun } from '../runs/index.ts';
import { RunCatalog, uniqueNames } from './run-catalog.ts';
import { ServedFolder } from './served-folder.ts';
import { createViewServer, listenForView } from './view-server.ts';

const SECRET = 'the secret outside the served folder';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with `path` sent exactly as given (Node's http client does not normalize it). */
function get(port: number, path: string, opts: { method?: string; headers?: Record<string, string> } = {}) {
  return new Promise<Answer>((ok, fail) => {
    const options = { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers };
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', fail);
    req.end();
  });
}

/** A veRL step file, lines as `_dump_generations` writes them (verl/trainer/ppo/ray_trainer.py). */
const verlStep = (step: number) =>
  [0, 1].map((i) => JSON.stringify({ input: 'q', output: `a${i}`, gts: '1', score: i, step })).join('\n') + '\n';

let tmp: string;
let served: string;
let server: Server;
let port: number;
let catalog: RunCatalog;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-'));
  served = join(tmp, 'served');
  const rollouts = join(served, 'exp', 'rollouts');
  mkdirSync(rollouts, { recursive: true });
  writeFileSync(join(rollouts, '1.jsonl'), verlStep(1));
  writeFileSync(join(rollouts, '2.jsonl'), verlStep(2));
  writeFileSync(join(rollouts, 'notes.html'), '<script>alert(1)</script>');
  writeFileSync(join(tmp, 'secret.txt'), SECRET);
  writeFileSync(join(tmp, '7.jsonl'), SECRET);
  // Symlinks that point out of the served folder, as a file and as a folder, and one that stays inside.
  symlinkSync(join(tmp, 'secret.txt'), join(rollouts, 'leak.jsonl'));
  symlinkSync(join(tmp, '7.jsonl'), join(rollouts, '7.jsonl'));
  symlinkSync(tmp, join(served, 'outside'));
  symlinkSync(join(rollouts, '1.jsonl'), join(rollouts, 'alias.txt'));
  const dist = join(tmp, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>page</title>');
  writeFileSync(join(dist, 'assets', 'app.js'), 'export {};');
  symlinkSync(tmp, join(dist, 'outside'));

  catalog = new RunCatalog([await ServedFolder.open(served)], { detectRuns, openRun });
  server = createViewServer({ catalog, dist: await ServedFolder.open(dist), loopbackOnly: true });
  port = await listenForView(server, '127.0.0.1', 0, 0);
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  rmSync(tmp, { recursive: true, force: true });
});

describe('rlvr view: what it serves', () => {
  it('lists the runs in /runs.json', async () => {
    const r = await get(port, '/runs.json');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toEqual([{ name: 'rollouts', format: 'verl', steps: 2, errors: [] }]);
  });

  it("lists a run's files (relative to its folder), leaving out symlinks that leave the served folder", async () => {
    const r = await get(port, '/runs/rollouts/files.json');
    expect(r.status).toBe(200);
    const files = JSON.parse(r.body) as { path: string; size: number }[];
    expect(files.map((f) => f.path).sort()).toEqual(['1.jsonl', '2.jsonl', 'alias.txt', 'notes.html']);
    expect(files.find((f) => f.path === '1.jsonl')!.size).toBe(Buffer.byteLength(verlStep(1)));
  });

  it("a run's files.json asked for beside runs.json shares its walk of the served folder", async () => {
    const folder = catalog.folders[0]!;
    const list = folder.list.bind(folder);
    let walks = 0;
    folder.list = (segments) => {
      walks++;
      return list(segments);
    };
    try {
      const [runs, files] = await Promise.all([get(port, '/runs.json'), get(port, '/runs/rollouts/files.json')]);
      expect(JSON.parse(runs.body)).toEqual([{ name: 'rollouts', format: 'verl', steps: 2, errors: [] }]);
      expect((JSON.parse(files.body) as { path: string }[]).map((f) => f.path).sort()).toEqual([
        '1.jsonl',
        '2.jsonl',
        'alias.txt',
        'notes.html',
      ]);
      expect(walks).toBe(1);
    } finally {
      folder.list = list;
    }
  });

  it('serves a file whole, and a Range as 206 with Content-Range', async () => {
    const whole = await get(port, '/runs/rollouts/file/1.jsonl');
    expect(whole.status).toBe(200);
    expect(whole.body).toBe(verlStep(1));
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const size = Buffer.byteLength(verlStep(1));
    const part = await get(port, '/runs/rollouts/file/1.jsonl', { headers: { Range: 'bytes=2-6' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 2-6/${size}`);
    expect(part.body).toBe(verlStep(1).slice(2, 7));
    const open = await get(port, '/runs/rollouts/file/1.jsonl', { headers: { Range: `bytes=${size - 3}-` } });
    expect([open.status, open.body]).toEqual([206, verlStep(1).slice(-3)]);
    const suffix = await get(port, '/runs/rollouts/file/1.jsonl', { headers: { Range: 'bytes=-4' } });
    expect([suffix.status, suffix.headers['content-range'], suffix.body]).toEqual([
      206,
      `bytes ${size - 4}-${size - 1}/${size}`,
      verlStep(1).slice(-4),
    ]);
    const beyond = await get(port, '/runs/rollouts/file/1.jsonl', { headers: { Range: `bytes=${size}-` } });
    expect([beyond.status, beyond.headers['content-range']]).toEqual([416, `bytes */${size}`]);
  });

  it("serves a run's files as bytes, never as a page of this origin", async () => {
    const r = await get(port, '/runs/rollouts/file/notes.html');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/octet-stream');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves the page with the headers vite preview sends, and index.html for a view link', async () => {
    for (const path of ['/', '/?view=rollouts&step=2', '/index.html', '/some/view']) {
      const r = await get(port, path);
      expect([path, r.status, r.body]).toEqual([path, 200, '<!doctype html><title>page</title>']);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(r.headers['cross-origin-embedder-policy']).toBe('require-corp');
      expect(r.headers['content-security-policy']).toBe(CSP);
    }
    const js = await get(port, '/assets/app.js');
    expect([js.status, js.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await get(port, '/assets/missing.js')).status).toBe(404);
    for (const path of ['/runs.json', '/runs/rollouts/file/1.jsonl', '/assets/missing.js']) {
      expect((await get(port, path)).headers['content-security-policy']).toBe(CSP);
    }
  });

  it('answers HEAD without a body and refuses every other method', async () => {
    const head = await get(port, '/runs/rollouts/file/2.jsonl', { method: 'HEAD' });
    const length = String(Buffer.byteLength(verlStep(2)));
    expect([head.status, head.headers['content-length'], head.body]).toEqual([200, length, '']);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await get(port, '/runs/rollouts/file/1.jsonl', { method });
      expect([method, r.status, r.headers.allow]).toEqual([method, 405, 'GET, HEAD']);
    }
  });

  it('finds a run written while it serves, and new steps of a growing run', async () => {
    writeFileSync(join(served, 'exp', 'rollouts', '3.jsonl'), verlStep(3));
    mkdirSync(join(served, 'late', 'dump'), { recursive: true });
    writeFileSync(join(served, 'late', 'dump', '5.jsonl'), verlStep(5));
    const runs = JSON.parse((await get(port, '/runs.json')).body) as unknown[];
    expect(runs).toEqual([
      { name: 'rollouts', format: 'verl', steps: 3, errors: [] },
      { name: 'dump', format: 'verl', steps: 1, errors: [] },
    ]);
  });
});

describe('rlvr view: nothing outside the served folders', () => {
  // Each is sent raw; all must be refused (403 or 404) with a short body, no stack and no secret.
  const refused = [
    '/runs/rollouts/file/../../../secret.txt',
    '/runs/rollouts/file/..%2f..%2f..%2fsecret.txt',
    '/runs/rollouts/file/%2e%2e/%2e%2e/%2e%2e/secret.txt',
    '/runs/rollouts/file/%2E%2E%2F%2E%2E%2F%2E%2E%2Fsecret.txt',
    '/runs/rollouts/file/..\\..\\..\\secret.txt',
    '/runs/rollouts/file/..%5c..%5c..%5csecret.txt',
    '/runs/rollouts/file/leak.jsonl',
    '/runs/rollouts/file/7.jsonl',
    '/runs/rollouts/file//etc/passwd',
    '/runs/rollouts/file/%2Fetc%2Fpasswd',
    '/runs/rollouts/file/./1.jsonl',
    '/runs/rollouts/file/1.jsonl%00',
    '/runs/rollouts/file/%zz',
    '/runs/..%2f..%2fsecret.txt/file/x',
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/..%5csecret.txt',
    '/outside/secret.txt',
    '/outside/served/exp/rollouts/1.jsonl',
    '//etc/passwd',
    '/runs/nope/files.json',
  ];
  for (const path of refused) {
    it(`refuses ${path}`, async () => {
      const r = await get(port, path);
      expect([403, 404]).toContain(r.status);
      expect(r.body).not.toContain(SECRET);
      expect(r.body).not.toMatch(/Error|\bat \S+:\d+/);
      expect(r.body.length).toBeLessThan(40);
    });
  }

  it('refuses a request line whose path is not absolute (Node answers 400 before the handler)', async () => {
    const r = await get(port, 'secret.txt');
    expect(r.status).toBe(400);
    expect(r.body).not.toContain(SECRET);
  });

  it('refuses a Host that is not loopback (a rebound DNS name) when bound to loopback', async () => {
    expect((await get(port, '/runs.json', { headers: { Host: 'attacker.example' } })).status).toBe(403);
    expect((await get(port, '/runs.json', { headers: { Host: `localhost:${port}` } })).status).toBe(200);
  });

  it('follows a symlink that stays inside the served folder', async () => {
    expect((await get(port, '/runs/rollouts/file/alias.txt')).body).toBe(verlStep(1));
  });
});

describe('rlvr view: names and ports', () => {
  it('names clashing runs after their parent folders, then by number, all URL-safe', () => {
    const names = uniqueNames(['rollouts', 'rollouts', 'a b', 'x'], ['exp1', 'exp 2', 'p', 'q']);
    expect(names).toEqual(['exp1-rollouts', 'exp_2-rollouts', 'a_b', 'x']);
    expect(uniqueNames(['r', 'r'], ['p', 'p'])).toEqual(['p-r', 'p-r-2']);
    expect(uniqueNames(['..', '.hidden'], ['p', 'p'])).toEqual(['_', '_hidden']);
  });

  it("an idle kept-alive connection outlives Node's 5 s default: a polling client never meets its close", async () => {
    // Node's fetch keeps a connection for the server's hint less 1 s: with the default 5 s on both sides, a request
    // sent on a busy machine as the server closes fails with "other side closed" (seen in e2e/view.spec.mjs).
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (c: Buffer) => (received += c.toString('utf8')));
    socket.on('close', () => (closed = true));
    const answers = () => received.split('HTTP/1.1 200 OK').length - 1;
    const ask = () => socket.write('GET /runs.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const until = async (done: () => boolean) => {
      while (!done() && !closed) await new Promise((ok) => setTimeout(ok, 20));
    };
    try {
      ask();
      await until(() => answers() === 1);
      expect(received).toMatch(/Keep-Alive: timeout=65/i);
      // The idle time under test, not a wait for an absence: the proof is the second answer on this socket.
      await new Promise((ok) => setTimeout(ok, 6_000));
      ask();
      await until(() => answers() === 2);
      expect(answers()).toBe(2);
    } finally {
      socket.destroy();
    }
  }, 20_000);

  it('moves to the next port when the default is taken, and names a taken --port', async () => {
    const blocker = createNetServer();
    await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', ok));
    const taken = (blocker.address() as AddressInfo).port;
    const catalog = new RunCatalog([], { detectRuns, openRun });
    const s = createViewServer({ catalog, dist: await ServedFolder.open(tmp) });
    try {
      await expect(listenForView(s, '127.0.0.1', taken, 0)).rejects.toThrow(
        `port ${taken} is in use on 127.0.0.1; choose another with --port`,
      );
      const got = await listenForView(s, '127.0.0.1', taken, 20);
      expect(got).toBeGreaterThan(taken);
    } finally {
      s.close();
      blocker.close();
    }
  });
});
