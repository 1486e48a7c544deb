#!/usr/bin/env node
// The e2e runner (`npm run test:e2e` = `vite build && node e2e/run.mjs`).
//
// Starts the app's server (the production build through `vite preview`, or the dev server with
// E2E_SERVER=dev) on 127.0.0.1 and a free port, then runs every e2e/*.e2e.mjs with node's test runner,
// one file at a time (Chromium + SwiftShader saturate this machine's 2 cores). The tests read the
// server's address from E2E_BASE_URL and use e2e/lib.mjs to drive Debian Chromium.
//
//   node e2e/run.mjs                      all e2e files
//   node e2e/run.mjs e2e/engine.e2e.mjs   only these
//   node e2e/run.mjs --test-name-pattern=placement e2e/engine.e2e.mjs   only matching tests
//   E2E_SERVER=dev node e2e/run.mjs       against the dev server (no build needed)
//
// Output: node:test's spec report, then its TAP summary lines (`# pass N`, `# fail N`) and one line
// `e2e: N passed, N failed, N skipped`. Screenshots and result files go to test-results/.
// Exits non-zero if anything failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CHROMIUM_PATH, RESULTS_DIR, ROOT, startServer } from './lib.mjs';

const argv = process.argv.slice(2);
// Options (e.g. --test-name-pattern=soak) go to node's test runner; the rest are files.
const testFlags = argv.filter((a) => a.startsWith('--'));
const args = argv.filter((a) => !a.startsWith('--'));
const files = (args.length ? args : readdirSync(join(ROOT, 'e2e')).filter((f) => f.endsWith('.e2e.mjs')).sort().map((f) => join('e2e', f))).map((f) =>
  relative(ROOT, join(ROOT, f)),
);
if (!files.length) {
  console.error('e2e: no e2e/*.e2e.mjs files found');
  process.exit(1);
}
if (!existsSync(CHROMIUM_PATH)) {
  console.error(`e2e: Chromium not found at ${CHROMIUM_PATH}. Run: node scripts/ensure-chromium.mjs`);
  process.exit(1);
}
mkdirSync(RESULTS_DIR, { recursive: true });

const t0 = performance.now();
const server = await startServer();
console.log(`# e2e: ${server.mode} server at ${server.url}; ${files.length} file(s): ${files.join(', ')}`);

const tapFile = join(RESULTS_DIR, 'e2e.tap');
const child = spawn(
  process.execPath,
  [
    '--test',
    '--test-concurrency=1',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tapFile}`,
    ...testFlags,
    ...files,
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, E2E_BASE_URL: server.url } },
);
let stopping = false;
const stop = (sig) => {
  if (stopping) return;
  stopping = true;
  child.kill(sig);
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
const code = await new Promise((ok) => child.on('exit', (c, s) => ok(c ?? (s ? 1 : 0))));
await server.close();

// The TAP stream's closing comments carry the totals; repeat them so CI logs end with a summary.
const tap = existsSync(tapFile) ? readFileSync(tapFile, 'utf8') : '';
const count = (k) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(tap)?.[1] ?? NaN);
const [pass, fail, skipped, cancelled] = [count('pass'), count('fail'), count('skipped'), count('cancelled')];
console.log(`# pass ${pass}\n# fail ${fail}`);
const failed = Number.isNaN(fail) ? '?' : fail + (cancelled || 0);
console.log(`e2e: ${Number.isNaN(pass) ? '?' : pass} passed, ${failed} failed, ${skipped || 0} skipped in ${((performance.now() - t0) / 1000).toFixed(0)} s (screenshots in ${relative(ROOT, RESULTS_DIR)}/)`);
process.exit(code === 0 && fail === 0 ? 0 : code || 1);
