// scripts/setup-python.sh keeps its import check: a dozen test files ask it for the venv's python, and each
// check starts an interpreter that imports torch (5-20 s). Run against a copy of the script beside a fake
// venv whose python counts its starts, so the real .venv-py is never touched.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = resolve(__dirname, '../../../scripts/setup-python.sh');

/** A checkout holding only the script and a venv whose python appends a line to `starts` per start. */
function fakeCheckout() {
  const root = mkdtempSync(join(tmpdir(), 'rlvr-setup-python-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(script, join(root, 'scripts', 'setup-python.sh'));
  const site = join(root, '.venv-py', 'lib', 'python3.11', 'site-packages');
  mkdirSync(site, { recursive: true });
  mkdirSync(join(root, '.venv-py', 'bin'));
  const python = join(root, '.venv-py', 'bin', 'python');
  const starts = join(root, 'starts');
  // It imports everything until a file named `broken` appears beside it.
  const broken = join(root, 'broken');
  const answer = `[ -f "${broken}" ] && exit 1\necho "trl 1.13.0, torch 2.13.0+cpu, transformers 5.18.0"`;
  writeFileSync(python, `#!/bin/sh\necho start >> "${starts}"\n${answer}\n`);
  chmodSync(python, 0o755);
  // Older than anything the script writes, as a venv made before the check is.
  const past = new Date(Date.now() - 60_000);
  utimesSync(python, past, past);
  utimesSync(site, past, past);
  // No pip config: a venv found broken is not rebuilt from wheels here (the script exits 3 instead).
  const env = { ...process.env, PIP_CONFIG_FILE: '/dev/null' };
  const run = () => spawnSync('bash', [join(root, 'scripts', 'setup-python.sh')], { encoding: 'utf8', env });
  const startCount = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').length - 1 : 0);
  const breakIt = () => writeFileSync(broken, '');
  return { root, site, run, startCount, breakIt };
}

describe('scripts/setup-python.sh', () => {
  it('checks the imports once, answers from its stamp after, and checks again when site-packages changes', () => {
    const c = fakeCheckout();
    const first = c.run();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n').pop()).toBe('.venv-py/bin/python');
    expect(c.startCount()).toBe(1);

    const second = c.run();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout.trim().split('\n').pop()).toBe('.venv-py/bin/python');
    expect(second.stderr).toMatch(/ready \(trl 1\.13\.0, torch 2\.13\.0\+cpu, transformers 5\.18\.0; imports checked /);
    expect(c.startCount(), 'the second answer came from the stamp').toBe(1);

    // Something installed: site-packages is newer than the stamp.
    const later = new Date(Date.now() + 60_000);
    utimesSync(c.site, later, later);
    expect(c.run().status).toBe(0);
    expect(c.startCount(), 'a changed site-packages is checked again').toBe(2);
  });

  it('drops its stamp when a changed venv no longer imports, and says so', () => {
    const c = fakeCheckout();
    expect(c.run().status).toBe(0);
    const stamp = join(c.root, '.venv-py', '.imports-checked');
    expect(existsSync(stamp)).toBe(true);
    c.breakIt();
    const later = new Date(Date.now() + 60_000);
    utimesSync(c.site, later, later);
    const r = c.run();
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/NO local wheel index/);
    expect(c.startCount()).toBe(2);
    expect(existsSync(stamp)).toBe(false);
  });
});
