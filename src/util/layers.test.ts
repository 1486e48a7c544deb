import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(__dirname, '..');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !f.endsWith('.test.ts') ? [p] : [];
  });

/** Each layer may import only from itself and the layers below it (docs/architecture.md). */
const allowed: Record<string, string[]> = {
  util: ['util'],
  engine: ['engine', 'util'],
  tasks: ['tasks', 'util'],
  model: ['model', 'engine', 'tasks', 'util'],
  rl: ['rl', 'model', 'engine', 'tasks', 'util'],
};

describe('layers stay clean', () => {
  for (const [layer, ok] of Object.entries(allowed)) {
    it(`${layer} imports only ${ok.join(', ')} and nothing from the DOM or React`, () => {
      const bad: string[] = [];
      for (const f of files(join(src, layer))) {
        const text = readFileSync(f, 'utf8');
        for (const m of text.matchAll(/from '([^']+)'/g)) {
          const spec = m[1]!;
          if (spec === 'react' || spec.startsWith('react-') || spec === 'zustand' || spec === 'recharts') bad.push(`${relative(src, f)} imports ${spec}`);
          if (spec.startsWith('.')) {
            const target = relative(src, resolve(dirname(f), spec)).split(/[\\/]/)[0]!;
            if (!ok.includes(target)) bad.push(`${relative(src, f)} imports ${spec}`);
          }
        }
        if (/(?<![.\w])(document|window)\./.test(text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, ''))) bad.push(`${relative(src, f)} touches document/window`);
      }
      expect(bad).toEqual([]);
    });
  }

  it('no eval or new Function anywhere in src or workers', () => {
    const all = [...files(src), ...files(join(src, '..', 'workers'))];
    const hits = all.filter((f) => /\beval\s*\(|new\s+Function\s*\(/.test(readFileSync(f, 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '')));
    expect(hits.map((f) => relative(src, f))).toEqual([]);
  });
});
