/**
 * RunFiles over bytes in memory: for tests, fuzzing, and a page that already holds a file's bytes.
 * `unreadable` names files whose read throws (as a permission error or a vanished file would).
 */
import type { RunFiles } from './types.ts';

export function memoryRunFiles(
  name: string,
  contents: Record<string, Uint8Array | string>,
  unreadable: string[] = [],
): RunFiles & {
  /** Replaces or adds a file (a run still being written). */
  put(path: string, data: Uint8Array | string): void;
} {
  const enc = new TextEncoder();
  const bytes = new Map(Object.entries(contents).map(([p, d]) => [p, typeof d === 'string' ? enc.encode(d) : d]));
  return {
    name,
    list: async () =>
      [...bytes.entries()].map(([path, b]) => ({ path, size: b.length })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    async read(path, start, end) {
      if (unreadable.includes(path)) throw new Error('permission denied');
      const b = bytes.get(path);
      if (!b) throw new Error('no such file');
      return b.slice(start ?? 0, end ?? b.length);
    },
    put(path, data) {
      bytes.set(path, typeof data === 'string' ? enc.encode(data) : data);
    },
  };
}
