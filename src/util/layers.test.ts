import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(__dirname, '..');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !f.endsWith('.test.ts') ? [p] : [];
  });

/**
 * Which layer may import which, and that src/util, engine, tasks, model and rl see no DOM, is checked by
 * the compiler: each is its own TypeScript project (tsconfig.<layer>.json) without the DOM lib that
 * references only the layers below it (`npm run typecheck` = tsc -b). What the compiler cannot see is an
 * import of a UI package there (React's types compile without the DOM lib), so that is checked here.
 */
const layers = ['util', 'engine', 'tasks', 'model', 'rl', 'record', 'lessons', 'runs'];
const uiPackages = /^(react|react-dom|zustand|recharts)(\/|$)/;

describe('layers stay clean', () => {
  for (const layer of layers) {
    it(`${layer} imports no UI package (React, zustand, recharts)`, () => {
      const bad: string[] = [];
      for (const f of files(join(src, layer))) {
        for (const m of readFileSync(f, 'utf8').matchAll(/from '([^']+)'|import\('([^']+)'\)/g)) {
          const spec = (m[1] ?? m[2])!;
          if (uiPackages.test(spec)) bad.push(`${relative(src, f)} imports ${spec}`);
        }
      }
      expect(bad).toEqual([]);
    });
  }

  it('no eval or new Function anywhere in src or workers', () => {
    const all = [...files(src), ...files(join(src, '..', 'workers'))];
    const hits = all.filter((f) =>
      /\beval\s*\(|new\s+Function\s*\(/.test(
        readFileSync(f, 'utf8')
          .replace(/\/\/.*$/gm, '')
          .replace(/\/\*[\s\S]*?\*\//g, ''),
      ),
    );
    expect(hits.map((f) => relative(src, f))).toEqual([]);
  });
});
