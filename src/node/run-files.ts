/**
 * RunFiles (src/runs/types.ts) over a folder on disk, for `rlvr view` and the tests: list() walks the
 * folder (symlinks are not followed, so nothing outside it is reached), read() reads a byte range with
 * one positioned read, never the whole file.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { RunFileEntry, RunFiles } from '../runs/types.ts';

/** Rejects paths that would leave the root ('..', absolute, empty parts). */
function inside(root: string, path: string): string {
  const parts = path.split('/');
  if (
    path === '' ||
    parts.some((p) => p === '' || p === '.' || p === '..') ||
    path.includes('\\') ||
    path.includes('\0')
  ) {
    throw new Error(`${path}: not a path inside ${root}`);
  }
  return join(root, ...parts);
}

export function nodeRunFiles(folder: string): RunFiles {
  const root = resolve(folder);
  return {
    name: basename(root),
    async list(): Promise<RunFileEntry[]> {
      const out: RunFileEntry[] = [];
      const walk = async (dir: string, rel: string): Promise<void> => {
        for (const d of await readdir(dir, { withFileTypes: true })) {
          const path = rel === '' ? d.name : `${rel}/${d.name}`;
          if (d.isDirectory()) await walk(join(dir, d.name), path);
          else if (d.isFile()) out.push({ path, size: (await stat(join(dir, d.name))).size });
        }
      };
      await walk(root, '');
      return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
    async read(path: string, start?: number, end?: number): Promise<Uint8Array> {
      const handle = await open(inside(root, path), 'r');
      try {
        const size = (await handle.stat()).size;
        const from = Math.max(0, Math.min(start ?? 0, size));
        const to = Math.max(from, Math.min(end ?? size, size));
        const out = new Uint8Array(to - from);
        let done = 0;
        while (done < out.length) {
          const { bytesRead } = await handle.read(out, done, out.length - done, from + done);
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        return done === out.length ? out : out.subarray(0, done);
      } finally {
        await handle.close();
      }
    },
  };
}
