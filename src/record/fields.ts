// The reader's field checks: each names the path of the field and what it holds (reader.ts).
import { RunRecordError } from './format.ts';

export type Obj = Record<string, unknown>;
export const show = (v: unknown) =>
  typeof v === 'string'
    ? JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)
    : Array.isArray(v)
      ? 'a list'
      : v === null
        ? 'null'
        : typeof v === 'object'
          ? 'an object'
          : String(v);
export const bad = (path: string, want: string, v: unknown): never => {
  throw new RunRecordError(`${path} must be ${want}, got ${show(v)}`);
};
export const obj = (v: unknown, path: string): Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : bad(path, 'an object', v);
export const list = (v: unknown, path: string): unknown[] => (Array.isArray(v) ? v : bad(path, 'a list', v));
export const str = (v: unknown, path: string): string => (typeof v === 'string' ? v : bad(path, 'a string', v));
export const bool = (v: unknown, path: string): boolean => (typeof v === 'boolean' ? v : bad(path, 'true or false', v));
export const finite = (v: unknown, path: string): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : bad(path, 'a finite number', v);
export const count = (v: unknown, path: string): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : bad(path, 'a whole number >= 0', v);
/** A number that may be non-finite (written as "NaN", "Infinity", "-Infinity"). */
export const anyNumber = (v: unknown, path: string): number => {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return bad(path, 'a number (or "NaN", "Infinity", "-Infinity")', v);
};
export const numberMap = (
  v: unknown,
  path: string,
  each: (x: unknown, p: string) => number,
): Record<string, number> => {
  const o = obj(v, path);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, each(x, `${path}[${JSON.stringify(k)}]`)]));
};
