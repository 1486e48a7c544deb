/**
 * The HTTP server behind `rlvr view` (src/cli/commands/view.ts): the built page, and read-only the runs
 * found in the served folders.
 *
 *   GET /runs.json                      [{"name", "format", "steps", "errors"}], found again on each request;
 *                                       `errors`: what the run's readers could not read (run-catalog.ts)
 *   GET /runs/<name>/files.json         [{"path", "size"}]: the run's files, relative to its folder
 *   GET /runs/<name>/file/<path>        the bytes; `Range: bytes=a-b` answers 206 with Content-Range
 *   GET /runs/<name>/files?path=A&path=B…  several whole files, one after another; sizes in X-Part-Sizes
 *   GET /search.json?run=<name>&text=…   a search over every step, near the files: NDJSON (view-search.ts)
 *   GET /runs/<name>/findings.json      the run's findings (docs/findings.md), near the files (view-findings.ts)
 *   GET anything else                   the page from dist/, index.html for paths that name no file
 *
 * The middle three are the readers' RunFiles (src/runs/types.ts) over HTTP, which the page's run reader
 * worker uses (workers/browser-run-files.ts). Only GET and HEAD; every answer carries the headers
 * `vite preview` sends (COOP/COEP and the CSP, src/pwa/page-headers.ts) and the CORP the app's service
 * worker adds (src/pwa/sw-core.ts). Paths are checked by ServedFolder (src/node/served-folder.ts):
 * nothing outside the served folders or dist/ is ever read. A run's files are sent as octet-stream
 * with nosniff, so an HTML file in a served folder can never run as a page of this origin.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CSP } from '../pwa/page-headers.ts';
import { SEARCH_RUN_PARAM } from '../runs/search-wire.ts';
import { ISOLATION_HEADERS } from '../pwa/sw-core.ts';
import type { CatalogRun, RunCatalog } from './run-catalog.ts';
import { safeSegments, type ServedFolder } from './served-folder.ts';
import { servedFindings } from './view-findings.ts';
import { sendSearch } from './view-search-route.ts';

const TEXT = 'text/plain; charset=utf-8';

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
  wasm: 'application/wasm',
  png: 'image/png',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  txt: 'text/plain; charset=utf-8',
  map: 'application/json; charset=utf-8',
  woff2: 'font/woff2',
};

const extension = (name: string) => /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();

export interface ViewServerOptions {
  catalog: RunCatalog;
  /** The built page (dist/). */
  dist: ServedFolder;
  /**
   * When bound to loopback: the only Host header names accepted, so a page of another site that
   * rebinds its own DNS name to 127.0.0.1 cannot read the runs. Absent: any Host.
   */
  loopbackOnly?: boolean;
}

/** One `bytes=` range of a file of `size` bytes: [start, end] inclusive, 'unsatisfiable', or null (send it all). */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

const LOOPBACK_HOSTS = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d+)?$/i;

export function createViewServer(options: ViewServerOptions): Server {
  const server = createServer((req, res) => {
    handle(options, req, res).catch(() => {
      // Never a stack trace to the client: the error is the server's, and says nothing about the request.
      if (!res.headersSent) send(res, req, 500, TEXT, 'internal error\n');
      else res.destroy();
    });
  });
  // Node closes an idle kept-alive connection after 5 s, and Node's fetch keeps one for that hint less 1 s: a client
  // that polls every few seconds on a busy machine then sends on a socket the server is closing ("other side
  // closed", seen in e2e/view.spec.mjs at load average 15). A minute apart, the two timers no longer meet.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

function baseHeaders(res: ServerResponse) {
  for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Uint8Array) {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.statusCode = status;
  baseHeaders(res);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', String(bytes.length));
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

const sendJson = (res: ServerResponse, req: IncomingMessage, value: unknown) => {
  res.setHeader('Cache-Control', 'no-store');
  send(res, req, 200, 'application/json; charset=utf-8', JSON.stringify(value));
};
const notFound = (res: ServerResponse, req: IncomingMessage) => send(res, req, 404, TEXT, 'not found\n');
const forbidden = (res: ServerResponse, req: IncomingMessage) => send(res, req, 403, TEXT, 'forbidden\n');

async function handle(options: ViewServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, req, 405, TEXT, 'only GET and HEAD\n');
  }
  if (options.loopbackOnly && !LOOPBACK_HOSTS.test(req.headers.host ?? '')) return forbidden(res, req);
  // The raw path, not a parsed URL: WHATWG URL parsing would resolve `..` and `%2e%2e` before the check.
  const rawPath = (req.url ?? '').split('?')[0]!.split('#')[0]!;
  if (!rawPath.startsWith('/')) return forbidden(res, req);
  const segments = safeSegments(rawPath.slice(1).replace(/\/$/, ''));
  if (segments === null) return forbidden(res, req);

  if (segments[0] === 'runs.json' && segments.length === 1) {
    const runs = await options.catalog.runs();
    return sendJson(
      res,
      req,
      runs.map((r) => ({ name: r.name, format: r.format, steps: r.steps, errors: r.errors })),
    );
  }
  if (segments[0] === 'search.json' && segments.length === 1) {
    const params = new URLSearchParams((req.url ?? '').split('?')[1]?.split('#')[0] ?? '');
    const run = await options.catalog.named(params.get(SEARCH_RUN_PARAM) ?? '');
    if (!run) return notFound(res, req);
    baseHeaders(res);
    const index = options.catalog.index(run);
    const findings = index ? () => servedFindings(run, index) : undefined;
    return sendSearch(req, res, run, options.catalog.steps(run), params, findings);
  }
  if (segments[0] === 'runs') {
    const run = await options.catalog.named(segments[1] ?? '');
    if (!run) return notFound(res, req);
    if (segments.length === 3 && segments[2] === 'files.json') {
      // The run's files as a look at the served folders lists them, shared with a runs.json asked for at the
      // same time (a link's first view asks for both at once): one walk of the folder, not two (at 14,913
      // step files, a walk took 0.3-1 s of the server's CPU, docs/viewer.md "Measured").
      const looked = (await options.catalog.runs()).find((r) => r.name === run.name);
      const files = looked ? looked.listing() : await run.files().list();
      return sendJson(
        res,
        req,
        files.map((f) => ({ path: f.path, size: f.size })),
      );
    }
    if (segments.length === 3 && segments[2] === 'files') return sendMany(req, res, run);
    if (segments.length === 3 && segments[2] === 'findings.json') {
      const index = options.catalog.index(run);
      if (!index) return send(res, req, 404, TEXT, `${run.name} could not be opened\n`);
      return sendJson(res, req, await servedFindings(run, index));
    }
    if (segments[2] === 'file' && segments.length > 3) {
      const rel = segments.slice(3);
      if (run.only !== undefined && (rel.length !== 1 || rel[0] !== run.only)) return notFound(res, req);
      const real = await run.folder.resolve([...run.segments, ...rel]);
      if (real === null) return notFound(res, req);
      return sendFile(req, res, real, 'application/octet-stream', 'no-cache');
    }
    return notFound(res, req);
  }

  const page = segments.length === 0 || (segments.length === 1 && segments[0] === 'index.html');
  const real = await options.dist.resolve(segments.length ? segments : ['index.html']);
  if (real !== null && page) return sendPage(req, res, real);
  if (real !== null) {
    return sendFile(req, res, real, CONTENT_TYPES[extension(real) ?? ''] ?? 'application/octet-stream', 'no-cache');
  }
  // A path that names a file (an extension) and is missing is a 404; any other is a view of the page.
  const last = segments[segments.length - 1] ?? '';
  if (extension(last) !== undefined) return notFound(res, req);
  const index = await options.dist.resolve(['index.html']);
  if (index === null) return notFound(res, req);
  return sendPage(req, res, index);
}

/**
 * Marks the page as served by `rlvr view`: only a page with it asks for runs.json (src/ui/state/
 * run-sources.ts), so the page on a static host never requests a file that is not there.
 */
export const VIEW_MARK = '<meta name="rlvr-view" content="runs.json">';

/** dist/index.html with VIEW_MARK at the start of its <head> (a page without one is sent as it is). */
async function sendPage(req: IncomingMessage, res: ServerResponse, real: string): Promise<void> {
  const html = (await readFile(real, 'utf8')).replace(/<head>/i, (head) => `${head}${VIEW_MARK}`);
  baseHeaders(res);
  res.setHeader('Cache-Control', 'no-cache');
  res.statusCode = 200;
  res.setHeader('Content-Type', CONTENT_TYPES.html!);
  res.setHeader('Content-Length', String(Buffer.byteLength(html)));
  res.end(req.method === 'HEAD' ? undefined : html);
}

/** At most this many files, and this many bytes, in one `files?path=…` answer. */
const MANY_FILES = 64;
const MANY_BYTES = 32 << 20;

/**
 * `GET /runs/<name>/files?path=A&path=B…`: several whole files of a run in one answer (a search reads
 * thousands of small step files; one request each is what bounds it in a browser). The body is the
 * files one after another, their sizes in `X-Part-Sizes`. Every path is checked as `file/<path>` is.
 */
async function sendMany(req: IncomingMessage, res: ServerResponse, run: CatalogRun): Promise<void> {
  const paths = new URLSearchParams((req.url ?? '').split('?')[1]?.split('#')[0] ?? '').getAll('path');
  if (paths.length === 0 || paths.length > MANY_FILES)
    return send(res, req, 400, TEXT, `ask for 1 to ${MANY_FILES} files with path=…\n`);
  const reals: string[] = [];
  for (const path of paths) {
    const rel = safeSegments(path.split('/').map(encodeURIComponent).join('/'));
    if (rel === null || rel.length === 0) return forbidden(res, req);
    if (run.only !== undefined && (rel.length !== 1 || rel[0] !== run.only)) return notFound(res, req);
    const real = await run.folder.resolve([...run.segments, ...rel]);
    if (real === null) return notFound(res, req);
    reals.push(real);
  }
  let total = 0;
  for (const real of reals) total += (await stat(real)).size;
  if (total > MANY_BYTES) return send(res, req, 413, TEXT, `more than ${MANY_BYTES} bytes asked at once\n`);
  const parts = await Promise.all(reals.map((real) => readFile(real)));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Part-Sizes', parts.map((p) => p.length).join(','));
  send(res, req, 200, 'application/octet-stream', Buffer.concat(parts));
}

async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  real: string,
  type: string,
  cache: string,
): Promise<void> {
  const { size } = await stat(real);
  const range = parseRange(req.headers.range, size);
  baseHeaders(res);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', cache);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${size}`);
    return send(res, req, 416, TEXT, 'range not satisfiable\n');
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  res.statusCode = range ? 206 : 200;
  if (range) res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', String(Math.max(0, end - start + 1)));
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  await new Promise<void>((ok, fail) => {
    const stream = createReadStream(real, { start, end });
    stream.on('error', fail);
    res.on('close', () => {
      stream.destroy();
      ok();
    });
    stream.pipe(res);
  });
}

/** Listens on host:port; false when the port is taken; any other failure in a person's words. */
function listenOnce(server: Server, host: string, port: number): Promise<boolean> {
  return new Promise((ok, fail) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE') ok(false);
      else if (err.code === 'EACCES') {
        fail(new Error(`port ${port} on ${host} needs more privileges; choose one above 1023 with --port`));
      } else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
        fail(new Error(`cannot listen on --host ${host}: it is not an address of this machine`));
      } else fail(new Error(`cannot listen on ${host}:${port} (${err.code ?? err.message})`));
    };
    const onListening = () => {
      server.off('error', onError);
      ok(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Listens on `port`, or when it is taken on the first free one of the `tryNext` after it; returns the
 * port. Throws a message naming the ports when none is free.
 */
export async function listenForView(server: Server, host: string, port: number, tryNext: number): Promise<number> {
  for (let p = port; p <= Math.min(port + tryNext, 65535); p++) {
    if (await listenOnce(server, host, p)) return p;
  }
  const what = tryNext === 0 ? `port ${port} is in use` : `ports ${port}-${port + tryNext} are all in use`;
  throw new Error(`${what} on ${host}; choose another with --port`);
}
