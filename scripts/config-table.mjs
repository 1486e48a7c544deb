#!/usr/bin/env node
// Writes the manual's config field table (docs/config.md) (between <!-- config-fields:start --> and
// <!-- config-fields:end -->) from the one declaration of the fields, src/rl/config-fields.ts.
//   node scripts/config-table.mjs          rewrite docs/config.md
//   node scripts/config-table.mjs --check  exit 1 if docs/config.md is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { configTableMarkdown } = await import(new URL('../src/rl/config-doc.ts', import.meta.url).href);
const { docBlockPath, withDocBlock } = await import(new URL('../src/cli/doc-blocks.ts', import.meta.url).href);
const path = docBlockPath('config-fields');
const readme = readFileSync(path, 'utf8');
let next;
try {
  next = withDocBlock(readme, 'config-fields', configTableMarkdown());
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('docs/config.md config field table is out of date: run node scripts/config-table.mjs');
    process.exit(1);
  }
  console.log('docs/config.md config field table is up to date');
} else {
  writeFileSync(path, next);
  console.log(`docs/config.md: config field table written (${configTableMarkdown().split('\n').length - 2} rows)`);
}
