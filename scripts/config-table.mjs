#!/usr/bin/env node
// Writes the README's config field table (between <!-- config-fields:start --> and
// <!-- config-fields:end -->) from the one declaration of the fields, src/rl/config-fields.ts.
//   node scripts/config-table.mjs          rewrite README.md
//   node scripts/config-table.mjs --check  exit 1 if README.md is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { configTableMarkdown } = await import(new URL('../src/rl/config-doc.ts', import.meta.url).href);
const { readmePath, withReadmeBlock } = await import(new URL('../src/cli/readme-block.ts', import.meta.url).href);
const readme = readFileSync(readmePath, 'utf8');
let next;
try {
  next = withReadmeBlock(readme, 'config-fields', configTableMarkdown());
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('README.md config field table is out of date: run node scripts/config-table.mjs');
    process.exit(1);
  }
  console.log('README.md config field table is up to date');
} else {
  writeFileSync(readmePath, next);
  console.log(`README.md: config field table written (${configTableMarkdown().split('\n').length - 2} rows)`);
}
