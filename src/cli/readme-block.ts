import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's README, whose generated parts sit between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
export const readmePath = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The README text with block NAME's body replaced (throws, naming the markers, if they are missing). */
export function withReadmeBlock(readme: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const a = readme.indexOf(start);
  const b = readme.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README.md has no ${start} … ${end} markers`);
  return `${readme.slice(0, a + start.length)}\n${body.trim()}\n${readme.slice(b)}`;
}

/** Rewrites block NAME of the README; returns whether anything changed. */
export function writeReadmeBlock(name: string, body: string, path = readmePath): boolean {
  const before = readFileSync(path, 'utf8');
  const after = withReadmeBlock(before, name, body);
  if (after !== before) writeFileSync(path, after);
  return after !== before;
}
