/**
 * The two RunFiles (src/runs/types.ts) the run reader's worker reads through: a folder the person gave
 * the page (its File objects; File.slice reads a range without loading the file), and a run `rlvr view`
 * serves over HTTP (`GET {base}files.json` lists `[{path, size}]`; `GET {base}file/<path>` answers a
 * `Range: bytes=a-b` request with those bytes).
 */
import type { RunFileEntry, RunFiles } from '../src/runs/types.ts';

/** A file of a picked or dropped folder, with its '/'-separated path under the folder. */
export interface PickedFile {
  path: string;
  file: File;
}

/** Where a run's files are; what the page sends the worker. */
export type RunFilesSpec =
  | { kind: 'files'; name: string; files: PickedFile[] }
  | { kind: 'http'; name: string; base: string };

/** RunFiles over a picked folder's File objects. */
export function pickedRunFiles(name: string, files: PickedFile[]): RunFiles {
  const byPath = new Map(files.map((f) => [f.path, f.file]));
  return {
    name,
    list: async (): Promise<RunFileEntry[]> => files.map((f) => ({ path: f.path, size: f.file.size })),
    async read(path, start, end) {
      const file = byPath.get(path);
      if (!file) throw new Error('no such file in the folder');
      const blob = start === undefined && end === undefined ? file : file.slice(start ?? 0, end ?? file.size);
      return new Uint8Array(await blob.arrayBuffer());
    },
  };
}

/** RunFiles over a run served by `rlvr view` at `base` (an absolute URL; a '/' is added when it lacks one). */
export function httpRunFiles(name: string, base: string, fetchImpl: typeof fetch = fetch): RunFiles {
  const root = base.endsWith('/') ? base : `${base}/`;
  const fileUrl = (path: string) => new URL(`file/${path.split('/').map(encodeURIComponent).join('/')}`, root).href;
  return {
    name,
    async list(): Promise<RunFileEntry[]> {
      // no-store: a live run's files grow between listings.
      const res = await fetchImpl(new URL('files.json', root).href, { cache: 'no-store' });
      if (!res.ok) throw new Error(`files.json answered HTTP ${res.status}`);
      const body: unknown = await res.json();
      if (!Array.isArray(body)) throw new Error('files.json is not a list');
      return body.filter(
        (e): e is RunFileEntry =>
          !!e && typeof e === 'object' && typeof e.path === 'string' && typeof e.size === 'number',
      );
    },
    async read(path, start, end) {
      if (start !== undefined && end !== undefined && end <= start) return new Uint8Array(0);
      const ranged = start !== undefined || end !== undefined;
      const headers: Record<string, string> = ranged
        ? { Range: `bytes=${start ?? 0}-${end === undefined ? '' : end - 1}` }
        : {};
      const res = await fetchImpl(fileUrl(path), { headers, cache: 'no-store' });
      if (res.status === 416) return new Uint8Array(0);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      // A server that ignores Range sends the whole file (200): take the range from it.
      return ranged && res.status === 200 ? bytes.slice(start ?? 0, end ?? bytes.length) : bytes;
    },
  };
}

export function runFilesFrom(spec: RunFilesSpec): RunFiles {
  return spec.kind === 'files' ? pickedRunFiles(spec.name, spec.files) : httpRunFiles(spec.name, spec.base);
}
