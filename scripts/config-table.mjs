#!/usr/bin/env node
// Writes the README's config field table (between <!-- config-fields:start --> and
// <!-- config-fields:end -->) from the one declaration of the fields, src/rl/config-fields.ts.
//   node scripts/config-table.mjs          rewrite README.md
//   node scripts/config-table.mjs --check  exit 1 if README.md is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { configTableMarkdown } = await import(new URL('../src/rl/config-doc.ts', import.meta.url).href);
const file = new URL('../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const START = '<!-- config-fields:start -->';
const END = '<!-- config-fields:end -->';
const a = readme.indexOf(START);
const b = readme.indexOf(END);
if (a < 0 || b < a) {
  console.error(`README.md has no ${START} … ${END} markers`);
  process.exit(1);
}
const next = `${readme.slice(0, a + START.length)}\n${configTableMarkdown()}\n${readme.slice(b)}`;
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('README.md config field table is out of date: run node scripts/config-table.mjs');
    process.exit(1);
  }
  console.log('README.md config field table is up to date');
} else {
  writeFileSync(file, next);
  console.log(`README.md: config field table written (${configTableMarkdown().split('\n').length - 2} rows)`);
}
