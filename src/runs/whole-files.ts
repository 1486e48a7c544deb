/**
 * Small step files read many to a request ahead of a search (RunFiles.readMany), shared by the readers
 * whose steps are one file each: TRL's `completions_*.parquet` and veRL's `{step}.jsonl`. Over HTTP (a run
 * `rlvr view` serves) a request costs about as much as tens of kB of file, so one request for 32 steps
 * instead of 32 is most of a search's time saved (docs/viewer.md, "How it reads").
 */
import { readRange } from './files.ts';
import type { RunFileEntry, RunFiles } from './types.ts';

/** Step files up to this size are read in one request, whole (TRL's and veRL's are tens to hundreds of kB). */
export const WHOLE_FILE_BYTES = 4 << 20;
/** A prefetch reads at most this many files, and this many bytes, in one request. */
export const PREFETCH_FILES = 32;
export const PREFETCH_BYTES = 8 << 20;

export interface WholeFiles {
  /** Starts reading these files together, in batches; files already asked for, or too large, are left out. */
  prefetch(entries: RunFileEntry[]): void;
  /** A whole file: its prefetched bytes (taken once), else a read of its own. */
  read(path: string): Promise<Uint8Array>;
  /** RunFiles whose whole-file and range reads of a prefetched file are served from its bytes. */
  files(path: string): Promise<RunFiles>;
}

export function wholeFiles(files: RunFiles): WholeFiles {
  const pending = new Map<string, Promise<Uint8Array>>();

  function prefetch(entries: RunFileEntry[]): void {
    if (!files.readMany) return;
    const small = entries.filter((e) => e.size <= WHOLE_FILE_BYTES && !pending.has(e.path));
    for (let i = 0; i < small.length; ) {
      const batch: RunFileEntry[] = [];
      let bytes = 0;
      while (
        i < small.length &&
        batch.length < PREFETCH_FILES &&
        (bytes === 0 || bytes + small[i]!.size <= PREFETCH_BYTES)
      )
        (bytes += small[i]!.size), batch.push(small[i++]!);
      const all = files.readMany(batch.map((e) => e.path));
      batch.forEach((e, k) => {
        const one = all.then((b) => b[k] ?? Promise.reject(new Error(`${e.path}: not in the batch read`)));
        one.catch(() => undefined); // its step's read falls back to a read of its own
        pending.set(e.path, one);
      });
    }
  }

  const take = async (path: string): Promise<Uint8Array | null> => {
    const pre = pending.get(path);
    pending.delete(path);
    return (pre && (await pre.catch(() => null))) || null;
  };

  return {
    prefetch,
    read: async (path) => (await take(path)) ?? readRange(files, path),
    async files(path) {
      const bytes = await take(path);
      if (!bytes) return files;
      return {
        name: files.name,
        list: () => files.list(),
        read: async (p, start, end) =>
          p === path ? bytes.subarray(start ?? 0, end ?? bytes.length) : files.read(p, start, end),
      };
    },
  };
}
