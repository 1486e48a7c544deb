/**
 * Node side of the browser engines: Vite's dev server (the app's vite.config.ts, so COOP/COEP headers
 * and the ORT runtime files are exactly the app's; its own cache folder so it does not disturb other
 * dev servers), headless Debian Chromium through e2e/lib.mjs, and bench/browser/bench.html, whose
 * workers run bench/core.ts on the WASM and WebGPU EPs.
 */
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import type { BenchReply, BenchRequest } from './protocol.ts';

interface E2eLib {
  ROOT: string;
  freePort(): Promise<number>;
  launchBrowser(extraArgs?: string[]): Promise<import('playwright-core').Browser>;
}

/** What bench/browser/bench.ts puts on the page's window; the callbacks passed to page.evaluate run there. */
interface BenchPage {
  __bench?: {
    ready: boolean;
    crossOriginIsolated: boolean;
    call(kind: 'wasm' | 'webgpu', req: BenchRequest): Promise<BenchReply>;
  };
}

/** Serves the bench's weight files (the shipped checkpoint, bench/.work/*.safetensors) under /__bench/. */
function benchFiles(files: Map<string, string>): Plugin {
  return {
    name: 'rlvr:bench-files',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!;
        if (!path.startsWith('/__bench/')) return next();
        const file = files.get(path.slice('/__bench/'.length));
        if (!file) {
          res.statusCode = 404;
          res.end('not a bench file');
          return;
        }
        res.statusCode = 200;
        res.setHeader('Content-Type', 'application/octet-stream');
        res.setHeader('Content-Length', String(statSync(file).size));
        res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
        createReadStream(file).pipe(res);
      });
    },
  };
}

export class BrowserBench {
  private constructor(
    private readonly close_: () => Promise<void>,
    private readonly page: import('playwright-core').Page,
    readonly url: string,
    readonly chromium: string,
    readonly crossOriginIsolated: boolean,
    private readonly files: Map<string, string>,
    /** Console errors and ONNX Runtime warnings seen in the page and its workers. */
    readonly consoleErrors: string[],
  ) {}

  static async start(log: (s: string) => void): Promise<BrowserBench> {
    const lib = (await import('../../e2e/lib.mjs' as string)) as E2eLib;
    const vite = await import('vite');
    const files = new Map<string, string>();
    const port = await lib.freePort();
    const server = await vite.createServer({
      root: lib.ROOT,
      configFile: join(lib.ROOT, 'vite.config.ts'),
      cacheDir: join(lib.ROOT, 'bench/.work/vite-cache'),
      logLevel: 'warn',
      plugins: [benchFiles(files)],
      optimizeDeps: { entries: ['bench/browser/bench.html'] },
      server: { host: '127.0.0.1', port, strictPort: true, hmr: false },
    });
    await server.listen();
    const url = `http://127.0.0.1:${port}`;
    const browser = await lib.launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    const keep = (where: string, type: string, text: string) => {
      if (type === 'error' || /\[W:onnxruntime|\[E:onnxruntime/.test(text))
        errors.push(`${where}: ${text.slice(0, 300)}`);
    };
    page.on('console', (m) => keep('page', m.type(), m.text()));
    page.on('pageerror', (e) => errors.push(`page error: ${String(e)}`));
    page.on('worker', (w) => w.on('console', (m) => keep(`worker ${w.url().split('/').pop()}`, m.type(), m.text())));
    await page.goto(`${url}/bench/browser/bench.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => (globalThis as unknown as BenchPage).__bench?.ready === true, undefined, {
      timeout: 60_000,
    });
    const isolated = await page.evaluate(() => (globalThis as unknown as BenchPage).__bench!.crossOriginIsolated);
    log(
      `browser: Chromium ${browser.version()} headless, bench page ${url}/bench/browser/bench.html, ` +
        `crossOriginIsolated=${isolated}`,
    );
    const b = new BrowserBench(
      async () => {
        await browser.close();
        await server.close();
      },
      page,
      url,
      browser.version(),
      isolated,
      files,
      errors,
    );
    return b;
  }

  /** Makes a local file fetchable by the workers; returns its URL. */
  serve(name: string, path: string): string {
    this.files.set(name, path);
    return `${this.url}/__bench/${name}`;
  }

  async call(kind: 'wasm' | 'webgpu', req: BenchRequest): Promise<Record<string, unknown>> {
    const reply = (await this.page.evaluate(([k, r]) => (globalThis as unknown as BenchPage).__bench!.call(k, r), [
      kind,
      req,
    ] as const)) as BenchReply;
    if (!reply.ok) throw new Error(`browser ${kind}, ${req.cmd}: ${reply.error}`);
    return reply;
  }

  async close(): Promise<void> {
    await this.close_();
  }
}
