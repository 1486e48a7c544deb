#!/usr/bin/env node
// Writes the README's parity table against TRL (between <!-- trl-loss-parity:start --> and
// <!-- trl-loss-parity:end -->) from docs/trl-loss-parity.json, which the test
// src/export/trl/loss-parity.test.ts writes each time it runs against TRL 1.13.
//   node scripts/parity-table.mjs          rewrite README.md
//   node scripts/parity-table.mjs --check  exit 1 if README.md is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { docBlockPath, withDocBlock } = await import(new URL('../src/cli/doc-blocks.ts', import.meta.url).href);
const readmePath = docBlockPath('trl-loss-parity');
const data = JSON.parse(readFileSync(new URL('../docs/trl-loss-parity.json', import.meta.url), 'utf8'));

const fmt = (x) => (x === 0 ? '0' : x.toExponential(1));
const worst = (o) => Math.max(o.loss, o.per_token, o.grad);
const lines = [
  `Parity with TRL ${data.trl} (torch ${data.torch}): max relative difference, ours vs ` +
    `\`GRPOTrainer._compute_loss\`, tolerance ${data.tolerance}.`,
  '',
  '| loss_type | importance_sampling_level | variant | loss (f32) | per-token terms (f32) | d loss / d ' +
    'logp (f32) | all three (f64) |',
  '|---|---|---|---|---|---|---|',
  ...data.rows.map(
    (r) =>
      `| \`${r.loss_type}\` | \`${r.importance_sampling_level}\` | ${r.label || '—'} | ${fmt(r.float32.loss)} ` +
      `| ${fmt(r.float32.per_token)} | ${fmt(r.float32.grad)} | ${fmt(worst(r.float64))} |`,
  ),
];
const body = lines.join('\n');
const readme = readFileSync(readmePath, 'utf8');
let next;
try {
  next = withDocBlock(readme, 'trl-loss-parity', body);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('docs/parity.md parity table is out of date: run node scripts/parity-table.mjs');
    process.exit(1);
  }
  console.log('docs/parity.md parity table is up to date');
} else {
  writeFileSync(readmePath, next);
  console.log(`docs/parity.md: parity table written (${data.rows.length} rows)`);
}
