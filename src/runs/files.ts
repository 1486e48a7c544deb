/**
 * What every reader needs from a RunFiles: a sub-folder seen as its own root, reads that turn a thrown
 * error into a message naming the file, and text decoding that says where bytes are not UTF-8.
 */
import type { RunFileEntry, RunFiles } from './types.ts';

/** A folder (relative, '/'-separated, '' for the root itself) of `files` seen as its own RunFiles. */
export function subRunFiles(files: RunFiles, folder: string): RunFiles {
  const clean = folder.replace(/^\/+|\/+$/g, '');
  if (clean === '') return files;
  const prefix = `${clean}/`;
  return {
    name: clean.slice(clean.lastIndexOf('/') + 1),
    async list(): Promise<RunFileEntry[]> {
      return (await files.list())
        .filter((f) => f.path.startsWith(prefix))
        .map((f) => ({ path: f.path.slice(prefix.length), size: f.size }));
    },
    read: (path, start, end) => files.read(prefix + path, start, end),
    ...(files.readMany ? { readMany: (paths: string[]) => files.readMany!(paths.map((p) => prefix + p)) } : {}),
  };
}

/** An error whose message is already fit for a person (names the file and what was expected). */
export class RunReadError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

export const why = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** files.read with the file named in any failure. */
export async function readRange(files: RunFiles, path: string, start?: number, end?: number): Promise<Uint8Array> {
  try {
    return await files.read(path, start, end);
  } catch (e) {
    throw new RunReadError(path, `${path}: the file could not be read (${why(e)})`);
  }
}

const strict = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text, or null where the bytes are not UTF-8. */
export function utf8(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}

const nanMark = '\u0000rlvr-runs:';
const pythonNumbers: Record<string, number> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
};

/**
 * JSON as Python's json.dumps writes it: also bare NaN, Infinity and -Infinity, which strict JSON lacks
 * (veRL's rollout dump and TRL's trainer_state.json write them for a non-finite value). Strict JSON is
 * tried first; only on failure are those tokens, outside strings, swapped for marked strings that the
 * reviver turns back into numbers. Throws SyntaxError like JSON.parse.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    if (!/NaN|Infinity/.test(text)) throw e;
  }
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    for (const token of ['-Infinity', 'Infinity', 'NaN']) {
      if (text.startsWith(token, i)) {
        out += `${text.slice(last, i)}"\\u0000rlvr-runs:${token}"`;
        i += token.length - 1;
        last = i + 1;
        break;
      }
    }
  }
  out += text.slice(last);
  return JSON.parse(out, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(nanMark) ? pythonNumbers[value.slice(nanMark.length)] : value,
  );
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A number from a JSON or parquet value (bigint, number, a numeric string like "NaN"), else undefined. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/** Message lists (chat prompts) rendered as `role: content` lines; other values as text. */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v) && v.every((m) => isRecord(m) && 'content' in m)) {
    return v
      .map(
        (m) =>
          `${String((m as Record<string, unknown>).role ?? 'message')}: ` +
          `${asText((m as Record<string, unknown>).content)}`,
      )
      .join('\n');
  }
  if (Array.isArray(v) && v.every((p) => isRecord(p) && typeof p.text === 'string')) {
    return v.map((p) => (p as { text: string }).text).join('');
  }
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Path helpers on '/'-separated relative paths. */
export const dirOf = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
export const baseOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
export const joinPath = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);
