/**
 * Static deploy: the app's base path, and the build step that writes the service worker
 * (src/pwa/service-worker.ts) with the list of files to cache for offline use. Used by vite.config.ts.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Plugin } from 'vite';
import { ORT_BUILDS, ORT_DIR } from '../src/engine/ort-builds.ts';
import type { Precache } from '../src/pwa/sw-core.ts';

/** Where the built service worker goes, at the root of the build (its scope is the whole app). */
export const SW_FILE = 'sw.js';

/**
 * The base the app is built for. Default './': every URL is relative, so the same dist/ works at a
 * host's root and under any sub-path (GitHub Pages serves a project at /REPO/). BASE_PATH=/REPO/
 * pins an absolute one instead.
 */
export function basePath(value: string | undefined = process.env.BASE_PATH): string {
  if (value === undefined || value === '' || value === './') return './';
  if (!/^\/(?:[\w.~-]+\/)*$/.test(value) || /(^|\/)\.\.?\//.test(value)) {
    throw new Error(
      'BASE_PATH must be a URL path that starts and ends ' +
        `with "/" (for example /rlvr/), or "./"; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Files of the build that the app itself never loads: the e2e engine harness page, and the worker itself. */
const NOT_CACHED = [/^e2e\//, new RegExp(`^${SW_FILE.replace('.', '\\.')}$`)];

function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory()) out.push(...walk(join(dir, e.name), `${rel}/`));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/**
 * The task of the run the page starts with (the `task` field's default in src/rl/config-fields.ts; a
 * unit test keeps the two equal): its checkpoint is cached on the first visit, so Start works offline.
 */
export const FIRST_RUN_TASK = 'sat';

/**
 * What the first visit caches: everything but the recordings, ONNX Runtime's WebGPU build and the
 * checkpoints other than the first run's (its manifest and weights: the first shipped checkpoint that
 * lists FIRST_RUN_TASK, as the page picks it). Every checkpoint's manifest and the index stay: the setup
 * lists them all. The WASM build runs in every browser; a browser that picks WebGPU caches that build on
 * first use, and offline before then trains on WASM (src/engine/select-backend.ts, `withWebGpuBuild`).
 */
export function inShell(rel: string, firstCheckpoint: string | null): boolean {
  if (rel.startsWith('records/')) return false;
  if (ORT_BUILDS.webgpu.some((f) => rel === `${ORT_DIR}/${f}`)) return false;
  const m = /^checkpoints\/([^/]+)\/(.+)$/.exec(rel);
  if (!m) return true;
  return m[2] === 'manifest.json' || m[1] === firstCheckpoint;
}

/** The first shipped checkpoint (in the build's checkpoints/index.json) that lists `task`, or null. */
export function firstCheckpointFor(outDir: string, task: string): string | null {
  try {
    const index = JSON.parse(readFileSync(join(outDir, 'checkpoints/index.json'), 'utf8')) as {
      id: string;
      tasks?: string[];
    }[];
    return index.find((c) => c.tasks?.includes(task))?.id ?? null;
  } catch {
    return null;
  }
}

/**
 * Every file of the build the app may load (paths relative to the build folder, sorted), split into the
 * shell cached on install and the rest cached on first use, and a version: a hash over each path and its
 * content, so any change to any file makes a new cache on the next deploy.
 */
export function listPrecache(outDir: string): Precache {
  const all = walk(outDir)
    .filter((f) => !NOT_CACHED.some((re) => re.test(f)))
    .sort();
  if (!all.includes('index.html'))
    throw new Error(`${outDir} has no index.html: build the app before listing its files`);
  const hash = createHash('sha256');
  for (const f of all) {
    hash.update(f).update('\0');
    hash.update(
      createHash('sha256')
        .update(readFileSync(join(outDir, f)))
        .digest(),
    );
  }
  const first = firstCheckpointFor(outDir, FIRST_RUN_TASK);
  return {
    version: hash.digest('hex').slice(0, 16),
    files: all.filter((f) => inShell(f, first)),
    later: all.filter((f) => !inShell(f, first)).map((path) => ({ path, bytes: statSync(join(outDir, path)).size })),
  };
}

/** Bytes of the given build files. */
export function bytesOf(outDir: string, files: readonly string[]): number {
  return files.reduce((a, f) => a + statSync(join(outDir, f)).size, 0);
}

/** Builds src/pwa/service-worker.ts into one classic script with the precache list and the CSP inlined. */
export async function buildServiceWorker(root: string, precache: Precache, csp: string): Promise<string> {
  const result = await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    define: { __RLVR_PRECACHE__: JSON.stringify(precache), __RLVR_CSP__: JSON.stringify(csp) },
    build: {
      write: false,
      target: 'es2022',
      minify: true,
      lib: {
        entry: resolve(root, 'src/pwa/service-worker.ts'),
        formats: ['iife'],
        name: 'rlvrServiceWorker',
        fileName: () => SW_FILE,
      },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as { output?: { type: string; code?: string }[] }[];
  const chunk = outputs.flatMap((r) => r.output ?? []).find((o) => o.type === 'chunk');
  if (!chunk?.code) throw new Error('building the service worker produced no code');
  return chunk.code;
}

/**
 * After the build has written everything (ORT's runtime files included), lists dist/ and writes
 * dist/sw.js. Build only: in dev the server sends COOP/COEP itself and the page registers no worker.
 */
export function offlineServiceWorker(csp: string): Plugin {
  let root = '';
  let outDir = '';
  return {
    name: 'rlvr:offline-service-worker',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle(error?: Error) {
      if (error) return;
      const precache = listPrecache(outDir);
      writeFileSync(join(outDir, SW_FILE), await buildServiceWorker(root, precache, csp));
      const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
      const later = precache.later.reduce((a, f) => a + f.bytes, 0);
      this.info?.(
        `${SW_FILE}: the first visit caches ${precache.files.length} files (${mb(bytesOf(outDir, precache.files))}); ` +
          `${precache.later.length} more (${mb(later)}) on first use or "Keep everything for offline ` +
          `use"; version ${precache.version}`,
      );
    },
  };
}
