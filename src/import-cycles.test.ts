import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * No module imports itself through others: a circle makes load order matter (an import seen as
 * undefined while the circle is still loading) and hides which layer depends on which. Type-only
 * imports count too, since they tie the modules' meanings together just the same.
 */
describe('import graph', () => {
  it('has no circles in src/, workers/, bench/ and the e2e harness', async () => {
    const graph = await madge(['src', 'workers', 'bench', 'e2e/harness'], {
      baseDir: root,
      fileExtensions: ['ts', 'tsx'],
      tsConfig: resolve(root, 'tsconfig.base.json'),
      excludeRegExp: [/\.test\.tsx?$/],
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    const modules = graph.obj();
    // The check must see the real graph: a resolver that found nothing would report no circles too.
    expect(Object.keys(modules).length).toBeGreaterThan(100);
    expect(modules['src/cli/commands/bench.ts']).toContain('bench/session.ts');
    expect(modules['src/engine/select-backend.ts']).toContain('src/engine/webgpu-adapter.ts');
    expect(graph.circular().map((c) => c.join(' -> '))).toEqual([]);
  });
});
