// What the page measurement scripts (measure-start.mjs, measure-links.mjs, measure-estimates.mjs) share: their
// `--name value` arguments, and the busy processes their `--load N` starts to stand for a loaded machine.
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ROOT, startServer } from '../e2e/lib.mjs';

/** The value after `--name` on the command line, else `def`. */
export function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

/** `n` processes that each keep a core busy until `stop()`. */
export function startBusy(n) {
  const here = fileURLToPath(import.meta.url);
  const busy = Array.from({ length: n }, () => fork(here, ['--busy'], { stdio: 'ignore' }));
  return { stop: () => busy.forEach((b) => b.kill()) };
}

/** vite preview of `dir` (a build kept aside, to measure two builds in one run), or of dist/. */
export async function serveBuild(dir) {
  if (!dir) return startServer({ mode: 'preview' });
  const vite = await import('vite');
  const port = await freePort();
  const s = await vite.preview({
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: dir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((ok) => {
        s.httpServer.close(() => ok(undefined));
        s.httpServer.closeAllConnections();
      }),
  };
}

/** The 1-minute load average, to one decimal. */
export const load1 = () => Math.round(loadavg()[0] * 10) / 10;

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--busy') {
  for (;;) Math.sqrt(Math.random());
}
