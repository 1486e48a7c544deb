/**
 * A small read-only reader of SQLite database files (https://www.sqlite.org/fileformat2.html), enough to
 * read Trackio's project database in the page, with no SQLite library: the header, table b-trees (interior
 * and leaf pages, overflow chains), records, and sqlite_master for each table's root page and columns.
 * Pages are read through RunFiles range reads as they are needed, so a large file is never held whole.
 *
 * Limits: the main file only. A database in WAL mode (Trackio's default, trackio/sqlite_storage.py
 * `_configure_sqlite_pragmas`) keeps its newest commits in `{name}-wal` until a checkpoint (at the latest
 * when the last connection closes); those are not seen (the caller says so). WITHOUT ROWID tables, index
 * b-trees and UTF-16 databases are not read.
 */
import { readRange, RunReadError } from './files.ts';
import type { RunFiles } from './types.ts';

const MAGIC = 'SQLite format 3\u0000';
const utf8 = new TextDecoder('utf-8');

/** One column value as SQLite stores it. */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface SqlTable {
  name: string;
  rootPage: number;
  columns: string[];
}

/** Where a row's cell is, to read it again. */
export interface CellAt {
  page: number;
  cell: number;
}

/** Whether the first bytes are SQLite's. */
export const isSqliteHeader = (head: Uint8Array): boolean =>
  head.length >= 16 && String.fromCharCode(...head.subarray(0, 16)) === MAGIC;

/** A varint at `at`: its value (as a number: rowids and sizes here fit) and the offset after it. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i] ?? 0;
    v = v * 128 + (byte & 0x7f);
    if (byte < 0x80) return [v, at + i + 1];
  }
  return [v * 256 + (b[at + 8] ?? 0), at + 9];
}

/** The column names of a CREATE TABLE statement (table constraints skipped). */
export function columnsOf(sql: string): string[] {
  const open = sql.indexOf('(');
  const close = sql.lastIndexOf(')');
  if (open < 0 || close < open) return [];
  const parts: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const c = sql[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(sql.slice(start, close));
  return parts
    .map((p) => p.trim())
    .filter((p) => p && !/^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT)\b/i.test(p))
    .map((p) => /^(["`[])(.*?)["`\]]/.exec(p)?.[2] ?? p.split(/\s+/)[0]!);
}

export class SqliteFile {
  private readonly pages = new Map<number, Promise<Uint8Array>>();
  private constructor(
    private readonly files: RunFiles,
    readonly path: string,
    readonly pageSize: number,
    private readonly usable: number,
    readonly walMode: boolean,
  ) {}

  /** Opens the file; throws RunReadError naming it when it is not a SQLite database this can read. */
  static async open(files: RunFiles, path: string): Promise<SqliteFile> {
    const head = await readRange(files, path, 0, 100);
    if (!isSqliteHeader(head))
      throw new RunReadError(path, `${path}: not a SQLite database (its first bytes are not "SQLite format 3")`);
    const raw = (head[16]! << 8) | head[17]!;
    const pageSize = raw === 1 ? 65536 : raw;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
      throw new RunReadError(path, `${path}: page size ${raw} in the header; expected a power of two from 512`);
    const encoding = (head[56]! << 24) | (head[57]! << 16) | (head[58]! << 8) | head[59]!;
    if (encoding > 1) throw new RunReadError(path, `${path}: a UTF-16 database; only UTF-8 ones are read`);
    return new SqliteFile(files, path, pageSize, pageSize - head[20]!, head[18] === 2 || head[19] === 2);
  }

  private page(n: number): Promise<Uint8Array> {
    let p = this.pages.get(n);
    if (!p) {
      p = readRange(this.files, this.path, (n - 1) * this.pageSize, n * this.pageSize).then((b) => {
        if (b.length < this.pageSize)
          throw new RunReadError(this.path, `${this.path}: page ${n} is past the file's end`);
        return b;
      });
      this.pages.set(n, p);
      if (this.pages.size > 4096) this.pages.delete(this.pages.keys().next().value!);
    }
    return p;
  }

  private bad(n: number, what: string): RunReadError {
    return new RunReadError(this.path, `${this.path}: page ${n} ${what}; the database is damaged or not SQLite's`);
  }

  /** Every row's cell of a table b-tree, in rowid order. */
  async cells(root: number): Promise<CellAt[]> {
    const out: CellAt[] = [];
    const seen = new Set<number>();
    const walk = async (n: number): Promise<void> => {
      if (seen.has(n)) throw this.bad(n, 'is reached twice');
      seen.add(n);
      const b = await this.page(n);
      const h = n === 1 ? 100 : 0;
      const count = (b[h + 3]! << 8) | b[h + 4]!;
      if (b[h] === 0x0d) {
        for (let i = 0; i < count; i++) out.push({ page: n, cell: i });
        return;
      }
      if (b[h] !== 0x05) throw this.bad(n, `has type ${b[h]}, not a table b-tree page`);
      for (let i = 0; i < count; i++) {
        const at = (b[h + 12 + 2 * i]! << 8) | b[h + 13 + 2 * i]!;
        await walk(((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!);
      }
      await walk(((b[h + 8]! << 24) >>> 0) + (b[h + 9]! << 16) + (b[h + 10]! << 8) + b[h + 11]!);
    };
    await walk(root);
    return out;
  }

  /** One row's values (the rowid first), from a cell cells() gave. */
  async row(at: CellAt): Promise<{ rowid: number; values: SqlValue[] }> {
    const b = await this.page(at.page);
    const h = at.page === 1 ? 100 : 0;
    const ptr = (b[h + 8 + 2 * at.cell]! << 8) | b[h + 9 + 2 * at.cell]!;
    const [size, p1] = varint(b, ptr);
    const [rowid, p2] = varint(b, p1);
    const u = this.usable;
    const x = u - 35;
    let local = size;
    if (size > x) {
      const m = Math.floor(((u - 12) * 32) / 255) - 23;
      const k = m + ((size - m) % (u - 4));
      local = k <= x ? k : m;
    }
    if (p2 + local > b.length) throw this.bad(at.page, 'has a cell past its end');
    const payload = new Uint8Array(size);
    payload.set(b.subarray(p2, p2 + local));
    let filled = local;
    let next = size > local ? new DataView(b.buffer, b.byteOffset + p2 + local, 4).getUint32(0) : 0;
    const seen = new Set<number>();
    while (filled < size) {
      if (next === 0 || seen.has(next)) throw this.bad(at.page, 'has a broken overflow chain');
      seen.add(next);
      const o = await this.page(next);
      const take = Math.min(size - filled, u - 4);
      payload.set(o.subarray(4, 4 + take), filled);
      filled += take;
      next = new DataView(o.buffer, o.byteOffset, 4).getUint32(0);
    }
    return { rowid, values: record(payload) };
  }

  /** The tables sqlite_master lists. */
  async tables(): Promise<SqlTable[]> {
    const out: SqlTable[] = [];
    for (const at of await this.cells(1)) {
      const [type, name, , root, sql] = (await this.row(at)).values;
      if (type === 'table' && typeof name === 'string' && typeof root === 'number' && typeof sql === 'string')
        out.push({ name, rootPage: root, columns: columnsOf(sql) });
    }
    return out;
  }
}

/** A record's values (https://www.sqlite.org/fileformat2.html#record_format). */
function record(p: Uint8Array): SqlValue[] {
  const [headerSize, start] = varint(p, 0);
  const types: number[] = [];
  for (let at = start; at < headerSize; ) {
    const [t, next] = varint(p, at);
    types.push(t);
    at = next;
  }
  const view = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const values: SqlValue[] = [];
  let at = headerSize;
  const intBytes = [0, 1, 2, 3, 4, 6, 8];
  for (const t of types) {
    if (t === 0) values.push(null);
    else if (t <= 6) {
      const n = intBytes[t]!;
      let v = 0n;
      for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(p[at + i] ?? 0);
      v = BigInt.asIntN(n * 8, v);
      values.push(Number.isSafeInteger(Number(v)) ? Number(v) : v);
      at += n;
    } else if (t === 7) {
      values.push(at + 8 <= p.length ? view.getFloat64(at) : Number.NaN);
      at += 8;
    } else if (t === 8 || t === 9) values.push(t - 8);
    else if (t >= 12) {
      const n = t % 2 === 0 ? (t - 12) / 2 : (t - 13) / 2;
      const bytes = p.subarray(at, at + n);
      values.push(t % 2 === 0 ? bytes : utf8.decode(bytes));
      at += n;
    } else values.push(null);
  }
  return values;
}
