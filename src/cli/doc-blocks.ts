import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Generated parts of the manual sit between `<!-- NAME:start -->` and `<!-- NAME:end -->` in one file of
 * docs/ (or the README); the scripts that write them (scripts/config-table.mjs, parity-table.mjs,
 * rl-gains-table.mjs, lessons-list.mjs, measure-demo.mjs, `rlvr bench --readme`) find the file by its marker.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The file that holds block NAME (throws, naming the marker, if none does). */
export function docBlockPath(name: string): string {
  const start = `<!-- ${name}:start -->`;
  const docs = join(root, 'docs');
  const candidates = [
    join(root, 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(docs, f)),
  ];
  const hit = candidates.find((p) => readFileSync(p, 'utf8').includes(start));
  if (!hit) throw new Error(`no file in README.md or docs/ has the marker ${start}`);
  return hit;
}

/** The text with block NAME's body replaced (throws, naming the markers, if they are missing). */
export function withDocBlock(text: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`no ${start} … ${end} markers`);
  return `${text.slice(0, a + start.length)}\n${body.trim()}\n${text.slice(b)}`;
}

/** Rewrites block NAME wherever it is; returns whether anything changed. */
export function writeDocBlock(name: string, body: string, path = docBlockPath(name)): boolean {
  const before = readFileSync(path, 'utf8');
  const after = withDocBlock(before, name, body);
  if (after !== before) writeFileSync(path, after);
  return after !== before;
}
