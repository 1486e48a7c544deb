import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A fresh `npm install` (npm 11) prints no warning a newcomer has to wonder about (docs/tests.md,
 * "Install: no warnings, no install scripts"): npm lists every dependency install script that
 * package.json's `allowScripts` does not decide, and warns about every .npmrc key it does not know.
 */
const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

describe('npm install prints nothing to wonder about', () => {
  it('every dependency with an install script is decided in allowScripts, and the CUDA download is denied', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    const decided = pkg.allowScripts ?? {};
    expect(withScripts.filter((name) => !(name in decided))).toEqual([]);
    // onnxruntime-node's postinstall only fetches CUDA binaries from NuGet: offline it fails.
    expect(decided['onnxruntime-node']).toBe(false);
  });
  it('.npmrc sets only keys npm knows', () => {
    const keys = readFileSync(join(root, '.npmrc'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#') && !l.startsWith(';'))
      .map((l) => l.split('=')[0]!.trim());
    expect(keys.filter((k) => !['fund', 'audit', 'engine-strict', 'save-exact'].includes(k))).toEqual([]);
  });
});
