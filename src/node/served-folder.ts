/**
 * A folder `rlvr view` serves, read-only, and the one place that decides whether a requested path is
 * inside it. A path is taken as URL segments and refused (null) when any segment, once decoded, is
 * empty, `.` or `..`, or holds `/`, `\` or NUL; a path that passes is joined to the folder and its
 * realpath must still lie inside the folder's own realpath, so a symlink that points out of the folder
 * is never followed. Listing skips such symlinks the same way.
 */
import { closeSync, type Dirent, fstatSync, openSync, readSync, realpathSync, type Stats, statSync } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import type { RunFileEntry, RunFiles } from '../runs/types.ts';

/** How many entries of a folder a listing looks at (realpath, stat) before it lets other requests in. */
const STAT_BATCH = 256;

/** A file under a served folder, with what the catalog needs to notice a change. */
export interface ServedFileEntry extends RunFileEntry {
  mtimeMs: number;
}

/** A PATH given to `rlvr view` that cannot be served, in words a person can act on. */
export class ServedFolderError extends Error {}

/**
 * The segments of a '/'-separated, URL-encoded path, decoded, or null when one of them could name
 * something outside the folder (or is not valid percent-encoding).
 */
export function safeSegments(encodedPath: string): string[] | null {
  if (encodedPath === '') return [];
  const out: string[] = [];
  for (const raw of encodedPath.split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (seg === '' || seg === '.' || seg === '..' || /[/\\\0]/.test(seg)) return null;
    out.push(seg);
  }
  return out;
}

const isInside = (root: string, real: string) =>
  real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);

export class ServedFolder {
  private constructor(
    /** The folder as the user named it (for messages). */
    readonly given: string,
    /** Its realpath: everything served must resolve inside it. */
    readonly root: string,
  ) {}

  /** The folder's own name (the root's, when the folder is `/`). */
  get name(): string {
    return basename(this.root) || this.root;
  }

  static async open(given: string): Promise<ServedFolder> {
    let root: string;
    try {
      root = await realpath(given);
    } catch {
      throw new ServedFolderError(`${given}: no such folder`);
    }
    const s = await stat(root).catch(() => null);
    if (!s?.isDirectory()) throw new ServedFolderError(`${given}: not a folder (give the folder that holds the runs)`);
    try {
      await readdir(root);
    } catch {
      throw new ServedFolderError(`${given}: the folder cannot be read (permission denied?)`);
    }
    return new ServedFolder(given, root);
  }

  /**
   * The realpath of the file (or, with `kind: 'dir'`, the folder) at `segments` under the folder, or
   * null when there is none or it resolves outside the folder.
   */
  async resolve(segments: readonly string[], kind: 'file' | 'dir' = 'file'): Promise<string | null> {
    if (segments.some((s) => s === '' || s === '.' || s === '..' || /[/\\\0]/.test(s))) return null;
    let real: string;
    try {
      real = await realpath(join(this.root, ...segments));
    } catch {
      return null;
    }
    if (!isInside(this.root, real)) return null;
    const s = await stat(real).catch(() => null);
    if (!s) return null;
    return (kind === 'file' ? s.isFile() : s.isDirectory()) ? real : null;
  }

  /** An entry of a folder being walked: its real path (a symlink only where it stays inside) and its stat. */
  private look(dir: string, e: Dirent): { name: string; real: string; s: Stats } | null {
    const path = join(dir, e.name);
    let real = path;
    try {
      if (e.isSymbolicLink()) {
        real = realpathSync(path);
        if (!isInside(this.root, real)) return null;
      } else if (!e.isFile() && !e.isDirectory()) return null;
      return { name: e.name, real, s: statSync(real) };
    } catch {
      return null;
    }
  }

  /**
   * Every file under `segments` (the folder itself by default), with '/'-separated paths relative to
   * that folder. Symlinks are followed only where they resolve inside the served folder, and each real
   * folder is walked once (a symlink loop ends). Unreadable entries are left out.
   */
  async list(segments: readonly string[] = []): Promise<ServedFileEntry[]> {
    const start = await this.resolve(segments, 'dir');
    if (start === null) return [];
    const out: ServedFileEntry[] = [];
    const seen = new Set<string>([start]);
    const walk = async (dir: string, prefix: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // Each entry's realpath and stat, with blocking calls STAT_BATCH at a time, the server answering other
      // requests between batches. One after another with promises, a run of 15,000 step files took 0.6 s a
      // listing here (bench:viewer's 1 GB TRL dump); STAT_BATCH promises at once, 0.35-0.6 s of CPU (each a
      // trip through libuv's threads); blocking calls, 0.1-0.15 s (docs/viewer.md, "Measured").
      const looked: ({ name: string; real: string; s: Stats } | null)[] = [];
      for (let i = 0; i < entries.length; i += STAT_BATCH) {
        if (i > 0) await new Promise((ok) => setImmediate(ok));
        for (const e of entries.slice(i, i + STAT_BATCH)) looked.push(this.look(dir, e));
      }
      for (const l of looked) {
        if (!l) continue;
        if (l.s.isDirectory()) {
          if (seen.has(l.real)) continue;
          seen.add(l.real);
          await walk(l.real, `${prefix}${l.name}/`);
        } else if (l.s.isFile()) out.push({ path: `${prefix}${l.name}`, size: l.s.size, mtimeMs: l.s.mtimeMs });
      }
    };
    await walk(start, '');
    return out;
  }

  /** Bytes [start, end) of a file under the folder (clamped to its size), or null when it cannot be served. */
  async read(segments: readonly string[], start = 0, end?: number): Promise<Uint8Array | null> {
    const real = await this.resolve(segments);
    if (real === null) return null;
    const handle = await open(real, 'r');
    try {
      const size = (await handle.stat()).size;
      const to = Math.min(end ?? size, size);
      const from = Math.min(Math.max(0, start), to);
      const buf = new Uint8Array(to - from);
      let done = 0;
      while (done < buf.length) {
        const { bytesRead } = await handle.read(buf, done, buf.length - done, from + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buf.subarray(0, done);
    } finally {
      await handle.close();
    }
  }

  /**
   * `read`, made with blocking calls: for a thread that does nothing else (a search's worker,
   * src/node/search-worker.ts), where a step file's five asynchronous calls cost about three times the CPU
   * of these (docs/viewer.md). The same checks: the realpath inside the folder, a regular file.
   */
  readSync(segments: readonly string[], start = 0, end?: number): Uint8Array | null {
    if (segments.some((s) => s === '' || s === '.' || s === '..' || /[/\\\0]/.test(s))) return null;
    let real: string;
    try {
      real = realpathSync.native(join(this.root, ...segments));
    } catch {
      return null;
    }
    if (!isInside(this.root, real)) return null;
    let fd: number;
    try {
      fd = openSync(real, 'r');
    } catch {
      return null;
    }
    try {
      const s = fstatSync(fd);
      if (!s.isFile()) return null;
      const to = Math.min(end ?? s.size, s.size);
      const from = Math.min(Math.max(0, start), to);
      const buf = new Uint8Array(to - from);
      let done = 0;
      while (done < buf.length) {
        const bytesRead = readSync(fd, buf, done, buf.length - done, from + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buf.subarray(0, done);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The files under `segments` as the readers' RunFiles (src/runs/types.ts), limited to `only` (a
   * path relative to that folder) when given, as a run that is one file is served. With `blocking`, its
   * reads are `readSync`'s (a search's worker thread).
   */
  runFiles(segments: readonly string[], name: string, only?: string, blocking = false): RunFiles {
    return {
      name,
      list: async () => (await this.list(segments)).filter((f) => only === undefined || f.path === only),
      read: async (path, start, end) => {
        const rel = safeSegments(path.split('/').map(encodeURIComponent).join('/'));
        if (rel === null || (only !== undefined && path !== only)) {
          throw new Error(`${name}: ${path} is not in this run`);
        }
        const at = [...segments, ...rel];
        const bytes = blocking ? this.readSync(at, start, end) : await this.read(at, start, end);
        if (bytes === null) throw new Error(`${name}: ${path} cannot be read`);
        return bytes;
      },
    };
  }
}
