import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { basePath, buildServiceWorker, FIRST_RUN_TASK, listPrecache } from '../../scripts/vite-deploy.ts';
import { fieldTable } from '../rl/config-fields.ts';

describe('basePath (BASE_PATH)', () => {
  it('is relative by default and takes an absolute sub-path', () => {
    expect(basePath(undefined)).toBe('./');
    expect(basePath('')).toBe('./');
    expect(basePath('./')).toBe('./');
    expect(basePath('/')).toBe('/');
    expect(basePath('/rlvr/')).toBe('/rlvr/');
    expect(basePath('/a/b.c-d_e/')).toBe('/a/b.c-d_e/');
  });
  it('names BASE_PATH and what is wrong', () => {
    for (const bad of ['rlvr', '/rlvr', 'rlvr/', '/a/../', 'https://x/', '/a b/']) {
      expect(() => basePath(bad)).toThrow(/BASE_PATH must be a URL path that starts and ends with "\/"/);
    }
  });
});

describe('listPrecache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlvr-precache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };

  it('lists every file but the worker and the e2e harness, sorted, under a content version', () => {
    put('index.html', '<html>');
    put('assets/b.js', 'b');
    put('assets/a.js', 'a');
    put('ort/x.wasm', 'wasm');
    put('checkpoints/sat-tiny/model.safetensors', 'w');
    put('e2e/harness/engine.html', 'harness');
    put('sw.js', 'old worker');
    const first = listPrecache(dir);
    expect([...first.files, ...first.later.map((f) => f.path)].sort()).toEqual([
      'assets/a.js',
      'assets/b.js',
      'checkpoints/sat-tiny/model.safetensors',
      'index.html',
      'ort/x.wasm',
    ]);
    expect(first.version).toMatch(/^[0-9a-f]{16}$/);
    // Same files: same version; any content change: a new one; the excluded files do not count.
    expect(listPrecache(dir).version).toBe(first.version);
    put('sw.js', 'another worker');
    expect(listPrecache(dir).version).toBe(first.version);
    put('checkpoints/sat-tiny/model.safetensors', 'w2');
    expect(listPrecache(dir).version).not.toBe(first.version);
  });

  it(
    "caches on the first visit the shell, ONNX Runtime's WASM build and the first run's checkpoint; the rest " +
      '(the WebGPU build too) later, with sizes',
    () => {
      put('ort/ort-wasm-simd-threaded.mjs', 'glue');
      put('ort/ort-wasm-simd-threaded.wasm', 'cpu');
      put('ort/ort-wasm-simd-threaded.asyncify.mjs', 'glue');
      put('ort/ort-wasm-simd-threaded.asyncify.wasm', 'webgpu');
      put(
        'checkpoints/index.json',
        JSON.stringify([
          { id: 'arithmetic-tiny', tasks: ['arithmetic'] },
          { id: 'sat-tiny', tasks: ['sat'] },
        ]),
      );
      put('checkpoints/arithmetic-tiny/manifest.json', '{}');
      put('checkpoints/arithmetic-tiny/model.safetensors', 'weights!');
      put('checkpoints/sat-tiny/manifest.json', '{}');
      put('records/lessons/why-groups/seed-1/GRPO.rlvr.gz', 'record');
      const p = listPrecache(dir);
      expect(p.files).toEqual([
        'assets/a.js',
        'assets/b.js',
        'checkpoints/arithmetic-tiny/manifest.json',
        'checkpoints/index.json',
        'checkpoints/sat-tiny/manifest.json',
        'checkpoints/sat-tiny/model.safetensors',
        'index.html',
        'ort/ort-wasm-simd-threaded.mjs',
        'ort/ort-wasm-simd-threaded.wasm',
        'ort/x.wasm',
      ]);
      expect(p.later).toEqual([
        { path: 'checkpoints/arithmetic-tiny/model.safetensors', bytes: 8 },
        { path: 'ort/ort-wasm-simd-threaded.asyncify.mjs', bytes: 4 },
        { path: 'ort/ort-wasm-simd-threaded.asyncify.wasm', bytes: 6 },
        { path: 'records/lessons/why-groups/seed-1/GRPO.rlvr.gz', bytes: 6 },
      ]);
    },
  );

  it("the first run's task is the config's default task", () => {
    expect(FIRST_RUN_TASK).toBe(fieldTable.task.default);
  });

  it('refuses a folder without index.html', () => {
    const empty = mkdtempSync(join(tmpdir(), 'rlvr-precache-empty-'));
    try {
      expect(() => listPrecache(empty)).toThrow(/has no index.html: build the app/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('buildServiceWorker', () => {
  it('bundles one classic script with the list and the CSP inlined', async () => {
    const root = resolve(__dirname, '../..');
    const code = await buildServiceWorker(
      root,
      { version: 'feedfacecafebeef', files: ['index.html', 'ort/x.wasm'], later: [] },
      "default-src 'self'",
    );
    expect(code).toContain('feedfacecafebeef');
    expect(code).toContain('ort/x.wasm');
    expect(code).toContain("default-src 'self'");
    expect(code).toContain('Cross-Origin-Embedder-Policy');
    // A classic script: no module syntax, nothing left to import.
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    expect(code).not.toContain('__RLVR_PRECACHE__');
  }, 60_000);
});
