import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README is the front door and docs/ the manual: every relative link in them must lead somewhere.
 * A link to a Markdown file's `#anchor` must name one of its headings (GitHub's slugs: lower case,
 * punctuation dropped, spaces to hyphens).
 */
const root = join(__dirname, '..');
const pages = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'docs', f)),
];

const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let inCode = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const m = !inCode && /^#{1,6} (.*)$/.exec(line);
    if (m) out.add(slug(m[1]!));
  }
  return out;
}

/** Links outside code: `[text](target)` and `![alt](target)`. */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the README and docs/ link only to what exists', () => {
  it('the README is an entry point: under 250 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250);
  });

  for (const page of pages) {
    it(`${relative(root, page)}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const target of links(page)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path ? resolve(dirname(page), decodeURIComponent(path)) : page;
        if (!existsSync(file)) broken.push(`${target} (no such file)`);
        else if (anchor && statSync(file).isFile() && file.endsWith('.md') && !anchors(file).has(anchor))
          broken.push(`${target} (no such heading)`);
      }
      expect(broken).toEqual([]);
    });
  }
});
