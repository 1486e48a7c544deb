/**
 * The readers' RunFiles (src/runs/types.ts) in the browser: over the File objects of a folder the
 * person picked or dropped (read a slice at a time, never whole), and over a run `rlvr view` serves
 * (src/node/view-server.ts: `files.json` lists it, `file/<path>` answers Range requests).
 */
import type { RunFileEntry, RunFiles } from '../src/runs/types.ts';
import type { GivenFile, RunFilesSpec } from './run-reader-protocol.ts';

export function givenRunFiles(name: string, given: GivenFile[]): RunFiles {
  const byPath = new Map(given.map((g) => [g.path, g.file]));
  return {
    name,
    list: async () => given.map((g) => ({ path: g.path, size: g.file.size })),
    async read(path, start, end) {
      const file = byPath.get(path);
      if (!file) throw new Error(`${path} is not in the folder ${name}`);
      return new Uint8Array(await file.slice(start ?? 0, end ?? file.size).arrayBuffer());
    },
  };
}

const segments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export function httpRunFiles(name: string, base: string): RunFiles {
  return {
    name,
    async list(): Promise<RunFileEntry[]> {
      const res = await fetch(new URL('files.json', base), { cache: 'no-store' });
      if (!res.ok) throw new Error(`rlvr view answered ${res.status} for the files of ${name}`);
      const body: unknown = await res.json();
      if (!Array.isArray(body)) throw new Error(`rlvr view's files.json for ${name} is not a list`);
      return body as RunFileEntry[];
    },
    async read(path, start, end) {
      const headers: Record<string, string> = {};
      if (start !== undefined || end !== undefined) {
        if (end !== undefined && end <= (start ?? 0)) return new Uint8Array(0);
        headers.Range = `bytes=${start ?? 0}-${end === undefined ? '' : end - 1}`;
      }
      const res = await fetch(new URL(`file/${segments(path)}`, base), { headers, cache: 'no-store' });
      if (!res.ok) throw new Error(`rlvr view answered ${res.status} for ${path}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      // A server that ignored the range sent the whole file: keep the part asked for.
      if (res.status === 200 && headers.Range) return bytes.slice(start ?? 0, end ?? bytes.length);
      return bytes;
    },
    // One request for many whole files (src/node/view-server.ts, `files?path=…`): the body is the files
    // one after another, their sizes in X-Part-Sizes.
    async readMany(paths: string[]): Promise<Uint8Array[]> {
      const query = paths.map((p) => `path=${encodeURIComponent(p)}`).join('&');
      const res = await fetch(new URL(`files?${query}`, base), { cache: 'no-store' });
      if (!res.ok) throw new Error(`rlvr view answered ${res.status} for ${paths.length} files of ${name}`);
      const sizes = (res.headers.get('X-Part-Sizes') ?? '').split(',').map(Number);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const total = sizes.reduce((a, b) => a + b, 0);
      if (sizes.length !== paths.length || sizes.some((n) => !Number.isInteger(n) || n < 0) || total !== bytes.length)
        throw new Error(`rlvr view's answer for ${paths.length} files of ${name} does not add up`);
      let at = 0;
      return sizes.map((n) => bytes.subarray(at, (at += n)));
    },
  };
}

export const runFilesOf = (spec: RunFilesSpec): RunFiles =>
  spec.kind === 'files' ? givenRunFiles(spec.name, spec.files) : httpRunFiles(spec.name, spec.base);
