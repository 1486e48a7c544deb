// Builds bench/browser/device.html (the device bench page) with the app's vite.config.ts into
// bench/.work/device-bench/: the page, its workers and the ONNX Runtime files, and nothing of the app's
// own pages or public/ (a copy small enough to carry to a machine that has a GPU but no Node).
// Usage: node scripts/build-device-bench.mjs [OUTDIR]
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const outDir = resolve(process.argv[2] ?? resolve(root, 'bench/.work/device-bench'));

await build({
  root,
  configFile: resolve(root, 'vite.config.ts'),
  publicDir: false,
  logLevel: 'warn',
  build: { outDir, emptyOutDir: true },
  plugins: [
    {
      name: 'rlvr:device-bench-only',
      // The app's config lists its own pages as inputs and makes their service worker; this build has
      // one page and no service worker.
      configResolved(config) {
        const opts = config.build.rolldownOptions ?? config.build.rollupOptions;
        opts.input = { device: resolve(root, 'bench/browser/device.html') };
        const sw = config.plugins.findIndex((p) => p.name === 'rlvr:offline-service-worker');
        if (sw >= 0) config.plugins.splice(sw, 1);
      },
    },
  ],
});
console.log(`device bench page built into ${outDir}`);
