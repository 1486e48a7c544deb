import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md names every zustand store in src/ui (it said "one zustand store" while
 * there were six): each file that creates one is named there, and the count it gives is the count.
 */
const ui = __dirname;
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\./.test(f) ? [p] : [];
  });
const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('docs/architecture.md tells the stores as they are', () => {
  const doc = readFileSync(join(ui, '..', '..', 'docs', 'architecture.md'), 'utf8');
  const stores = files(ui).filter((p) => /=\s*create<[^>]+>\(\)/.test(readFileSync(p, 'utf8')));

  it('names each file that creates a zustand store, and their number', () => {
    expect(stores.length).toBeGreaterThan(0);
    const name = (p: string) => relative(join(ui, 'state'), p);
    expect(stores.map(name).filter((f) => !doc.includes(`\`${f}\``))).toEqual([]);
    expect(doc).toContain(`${words[stores.length]} zustand stores`);
  });
});
