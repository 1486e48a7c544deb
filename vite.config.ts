import { createReadStream, existsSync, mkdirSync, copyFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { basePath, offlineServiceWorker } from './scripts/vite-deploy.ts';
import { CSP } from './src/pwa/page-headers.ts';
import { ORT_DIR, ORT_FILES } from './src/engine/ort-builds.ts';

const root = dirname(fileURLToPath(import.meta.url));
const ortDist = resolve(root, 'node_modules/onnxruntime-web/dist');

/**
 * Cross-origin isolation: without it SharedArrayBuffer is unavailable and ONNX Runtime's WASM EP
 * silently runs on one thread. Sent by the dev server, the preview server and the ORT files below.
 */
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** The built app's Content-Security-Policy (src/pwa/page-headers.ts says what it allows and why). */
export { CSP };

/** Adds the CSP as a <meta> to the built HTML pages (build only). */
function cspMeta(): Plugin {
  return {
    name: 'rlvr:csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' },
    ],
  };
}

/**
 * Serves the ORT runtime files (both builds, src/engine/ort-builds.ts) in dev and copies them into the build
 * output: the app never needs a CDN.
 */
function ortRuntimeFiles(): Plugin {
  let base = '/';
  let outDir = 'dist';
  return {
    name: 'rlvr:ort-runtime-files',
    configResolved(config) {
      base = config.base;
      outDir = resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      // Registered before Vite's own middlewares so the glue .mjs is served verbatim, not transformed.
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!;
        const prefix = `${base}${ORT_DIR}/`;
        if (!path.startsWith(prefix)) return next();
        const name = path.slice(prefix.length);
        if (!ORT_FILES.includes(name)) return next();
        const file = join(ortDist, name);
        res.statusCode = 200;
        res.setHeader('Content-Type', name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript');
        res.setHeader('Content-Length', String(statSync(file).size));
        res.setHeader('Cache-Control', 'no-cache');
        for (const [k, v] of Object.entries(isolation)) res.setHeader(k, v);
        createReadStream(file).pipe(res);
      });
    },
    writeBundle() {
      const dest = join(outDir, ORT_DIR);
      mkdirSync(dest, { recursive: true });
      for (const name of ORT_FILES) copyFileSync(join(ortDist, name), join(dest, name));
    },
  };
}

const harness = resolve(root, 'e2e/harness/engine.html');

export default defineConfig({
  // './' by default (works at any sub-path); BASE_PATH=/REPO/ for an absolute one (scripts/vite-deploy.ts).
  base: basePath(),
  plugins: [react(), ortRuntimeFiles(), cspMeta(), offlineServiceWorker(CSP)],
  resolve: {
    alias: [
      // The package's default "import" condition picks ort.webgpu.bundle.min.mjs (ort.wasm.bundle.min.mjs),
      // which inlines the glue and makes the bundler copy the .wasm into assets/ a second time. The plain
      // builds load both files from `env.wasm.wasmPaths` instead (served above).
      { find: /^onnxruntime-web\/webgpu$/, replacement: join(ortDist, 'ort.webgpu.min.mjs') },
      { find: /^onnxruntime-web\/wasm$/, replacement: join(ortDist, 'ort.wasm.min.mjs') },
    ],
  },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  worker: { format: 'es' },
  server: {
    headers: isolation,
    // What the tests and tools write under the repo is not the app's source: the Python venv alone holds
    // about 36,000 files, and watching them kept the dev server's process busy on a 2-core machine.
    watch: {
      ignored: ['**/.venv-py/**', '**/test-results/**', '**/dist/**', '**/bench/.work/**', '**/runs/**', '**/docs/**'],
    },
  },
  preview: { headers: { ...isolation, 'Content-Security-Policy': CSP } },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      input: {
        main: resolve(root, 'index.html'),
        // The engine harness the e2e tests drive (also handy by hand: /e2e/harness/engine.html?backend=wasm).
        ...(existsSync(harness) ? { engine: harness } : {}),
      },
    },
  },
});
