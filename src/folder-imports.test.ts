import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The folder a module belongs to: src/X for the layers under src/, else the top folder (bench, workers, e2e/harness).
 */
export const folderOf = (file: string): string => {
  const parts = file.split('/');
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : 'src';
  if (parts[0] === 'e2e') return 'e2e/harness';
  return parts[0]!;
};

/** Every loop in a folder graph: its strongly connected components of more than one folder. */
export function folderLoops(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  let next = 0;
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) loops.push(scc.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return loops;
}

/**
 * Folders import one way: a folder that imports another is never imported by it, directly or round a
 * longer loop (src/cli runs bench/, so bench/ reads checkpoints through src/node/, not through the
 * CLI). Module circles are src/import-cycles.test.ts's; this is the same graph one level up.
 */
describe('folder imports', () => {
  it('the loop finder finds a two-folder and a three-folder loop, and none in a chain', () => {
    const g = (pairs: [string, string][]) =>
      pairs.reduce((m, [a, b]) => m.set(a, (m.get(a) ?? new Set()).add(b)), new Map<string, Set<string>>());
    expect(
      folderLoops(
        g([
          ['bench', 'src/cli'],
          ['src/cli', 'bench'],
        ]),
      ),
    ).toEqual([['bench', 'src/cli']]);
    expect(
      folderLoops(
        g([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
          ['c', 'd'],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      folderLoops(
        g([
          ['a', 'b'],
          ['b', 'c'],
        ]),
      ),
    ).toEqual([]);
  });

  it('no folder of src/, workers/, bench/ and the e2e harness imports one that imports it back', async () => {
    const graph = await madge(['src', 'workers', 'bench', 'e2e/harness'], {
      baseDir: root,
      fileExtensions: ['ts', 'tsx'],
      tsConfig: resolve(root, 'tsconfig.base.json'),
      excludeRegExp: [/\.test\.tsx?$/],
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    const edges = new Map<string, Set<string>>();
    for (const [file, deps] of Object.entries(graph.obj())) {
      for (const dep of deps) {
        const [a, b] = [folderOf(file), folderOf(dep)];
        if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
      }
    }
    // The check must see the real graph: the CLI runs the benchmark and every layer sits under it.
    expect(edges.get('src/cli')).toContain('bench');
    expect(edges.get('bench')).toContain('src/node');
    expect(folderLoops(edges)).toEqual([]);
  });
});
