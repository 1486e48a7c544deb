#!/usr/bin/env node
// Writes python/rlvr_playground/record_settings.py (the run-record format's constants, channel list,
// metric keys and the TRL-shared config fields) from the TypeScript that defines them
// (src/export/trl/record-file.ts), so the Python package installs without Node.
//   node scripts/python-record-settings.mjs          rewrite the file
//   node scripts/python-record-settings.mjs --check  exit 1 if it is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const recordFile = new URL('../src/export/trl/record-file.ts', import.meta.url).href;
const { packageSettingsSource } = await import(recordFile);
const { pythonPackageDir } = await import(new URL('../src/export/trl/python-sources.ts', import.meta.url).href);
const path = new URL('rlvr_playground/record_settings.py', pythonPackageDir);
const want = packageSettingsSource();
let have = '';
try {
  have = readFileSync(path, 'utf8');
} catch {
  // missing: written below, or reported by --check
}
if (process.argv.includes('--check')) {
  if (have !== want) {
    console.error('python/rlvr_playground/record_settings.py is out of date: node scripts/python-record-settings.mjs');
    process.exit(1);
  }
  console.log('python/rlvr_playground/record_settings.py is up to date');
} else {
  writeFileSync(path, want);
  console.log('python/rlvr_playground/record_settings.py written');
}
