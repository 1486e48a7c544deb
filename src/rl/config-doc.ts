/**
 * The config field table in words, generated from src/rl/config-fields.ts: the `--set` section of
 * `rlvr train --help`, and docs/config.md's field table (scripts/config-table.mjs writes it).
 */
import { configFields, crossFieldRules, fieldTable, type FieldDecl } from './config-fields.ts';

const num = (n: number) =>
  n >= 1e5 && /^1e\+\d+$/.test(n.toExponential()) ? n.toExponential().replace('e+', 'e') : String(n);

/** Type and range or choices, as one short string (`int 2..64`, `grpo | dr_grpo`, `null or ≥ 1`). */
export function rangeText(d: FieldDecl): string {
  switch (d.kind) {
    case 'int':
    case 'num':
      return `${d.kind === 'int' ? 'int' : 'number'} ${d.exclusiveMin ? '>' : ''}${num(d.min)}..${num(d.max)}`;
    case 'nullable-num':
      return `null or number ≥ ${num(d.min)}`;
    case 'enum':
      return d.values.join(' | ');
    case 'bool':
      return 'true | false';
    case 'str':
      return 'string';
    case 'record':
      return 'object of knobs';
    case 'weights':
      return `{ ${Object.keys(d.parts).join(', ')} }, each ${num(d.min)}..${num(d.max)}`;
  }
}

const defaultText = (d: FieldDecl) => JSON.stringify(d.default);

function rulesOf(k: string): string {
  return crossFieldRules
    .filter((r) => r.field === k)
    .map((r) => `; ${r.rule}`)
    .join('');
}

/** The `--set` section of `rlvr train --help`: one line per field (and per nested part). */
export function setFlagHelp(): string {
  const rows: [string, string][] = [];
  for (const k of configFields) {
    const d: FieldDecl = fieldTable[k];
    if (k === 'version') continue;
    rows.push([k, `${rangeText(d)}${rulesOf(k)}, default ${defaultText(d)}${d.restart ? ', new run' : ''}: ${d.help}`]);
    if (d.kind === 'weights')
      for (const [part, p] of Object.entries(d.parts))
        rows.push([`${k}.${part}`, `default ${d.default[part]}: ${p.help}`]);
  }
  const w = Math.max(...rows.map(([a]) => a.length)) + 2;
  return [
    'config fields for --set key=value ("new run": cannot change while training; a preset and the ' +
      "checkpoint's recipe set some):",
    ...rows.map(([a, b]) => `  ${a.padEnd(w)}${b}`),
  ].join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** docs/config.md's field table (Markdown). */
export function configTableMarkdown(): string {
  const lines = [
    '| field | group | type and range | default | new run | TRL | what it does | paper |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const k of configFields) {
    const d: FieldDecl = fieldTable[k];
    lines.push(
      `| \`${k}\` | ${d.group} | ${cell(rangeText(d) + rulesOf(k))} | \`${cell(defaultText(d))}\` | ` +
        `${d.restart ? 'yes' : ''} ` +
        `| ${d.trl ? 'yes' : ''} | ${cell(d.help)} | ${cell(d.paper ?? '')} |`,
    );
    if (d.kind === 'weights') {
      for (const [part, p] of Object.entries(d.parts))
        lines.push(
          `| \`${k}.${part}\` | ${d.group} | number ${num(d.min)}..${num(d.max)} | \`${d.default[part]}\` ` +
            `|  | ${p.trl ? 'yes' : ''} | ${cell(p.help)} | ${cell(p.paper ?? '')} |`,
        );
    }
  }
  return lines.join('\n');
}
