#!/usr/bin/env node
// Makes sure the e2e tests have a Chromium: Debian's package at /usr/bin/chromium (Playwright's own
// browser downloads cannot work here). As root it installs it with apt-get; otherwise it stops with
// the exact command to run. RLVR_CHROMIUM_PATH overrides the path (also read by e2e/lib.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.RLVR_CHROMIUM_PATH || '/usr/bin/chromium';

function version(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

if (existsSync(path)) {
  console.log(`chromium: ${version(path) ?? 'present'} (${path})`);
  process.exit(0);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const defaultPath = path === '/usr/bin/chromium';
if (!isRoot || !defaultPath) {
  const lines = [
    `chromium: not found at ${path}.`,
    '',
    "The e2e tests (playwright test) drive Debian's Chromium. Install it with:",
    '',
    '    sudo apt-get update && sudo apt-get install -y chromium',
    '',
  ];
  if (!defaultPath)
    lines.push(
      `(RLVR_CHROMIUM_PATH is set to ${path}; unset it to use /usr/bin/chromium, or point it at an ` +
        'existing Chromium binary.)',
      '',
    );
  else lines.push('then run the tests again. (Not running as root, so this script cannot install it itself.)', '');
  console.error(lines.join('\n'));
  process.exit(1);
}

console.log("chromium: not found; installing Debian's chromium package (apt-get, as root)...");
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [['update'], ['install', '-y', 'chromium']]) {
  console.log(`$ apt-get ${args.join(' ')}`);
  const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(
      `chromium: \`apt-get ${args.join(' ')}\` failed (exit ${r.status ?? r.signal}). Install it by hand: ` +
        'apt-get install -y chromium',
    );
    process.exit(1);
  }
}
if (!existsSync(path)) {
  console.error(`chromium: the package installed but ${path} is still missing.`);
  process.exit(1);
}
console.log(`chromium: installed ${version(path) ?? ''} (${path})`);
