/**
 * JSON lines read in chunks through RunFiles range reads, so a file of gigabytes is never held whole and
 * a line of 50 MB is never allocated: a line longer than the cap is skipped with a problem naming it.
 * An unterminated last line that is not yet valid JSON is left for later (a writer may be mid-line);
 * the scan reports where the complete lines end, and a later scan goes on from there.
 */
import { parsePythonJson, readRange, utf8, why } from './files.ts';
import type { RunProblem, RunFiles } from './types.ts';

/** Lines longer than this are skipped (a line is one completion; 16 MB is far beyond any real one). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1 << 20;

const oneCompletion = 'one completion per line';

export interface ScannedLine {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offsets [start, end) of the line, without its newline. */
  start: number;
  end: number;
  value: unknown;
}

export interface LineScanOptions {
  /** Where to start (a line start), and that line's number. */
  start?: number;
  firstLine?: number;
  /** Where to stop (exclusive; the file size, or the end of a remembered range). */
  end: number;
  maxLineBytes?: number;
}

export interface LineScanResult {
  /** Offset just past the last complete line read (where a later scan of a growing file goes on). */
  next: number;
  nextLine: number;
  /** The unterminated last line that was not (yet) valid JSON, if any. */
  pending?: { line: number; start: number; bytes: number };
}

/** Parses one line's bytes: the value, or a problem saying why not (not UTF-8, not JSON). */
export function parseLine(path: string, line: number, bytes: Uint8Array): { value: unknown } | { problem: RunProblem } {
  const text = utf8(bytes);
  if (text === null)
    return {
      problem: {
        file: path,
        line,
        message: `${path} line ${line}: not UTF-8 text; expected one JSON object per line in UTF-8`,
      },
    };
  try {
    return { value: parsePythonJson(text) };
  } catch (e) {
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return {
      problem: {
        file: path,
        line,
        message:
          `${path} line ${line}: not JSON (${why(e)}); expected one JSON object per line, got ` +
          `${JSON.stringify(shown)}`,
      },
    };
  }
}

/**
 * Calls onLine for each complete, parsed line in [start, end); blank lines are passed over. Problems
 * (not JSON, not UTF-8, too long) go to onProblem and the scan goes on. A read failure throws RunReadError.
 */
export async function scanJsonLines(
  files: RunFiles,
  path: string,
  options: LineScanOptions,
  onLine: (l: ScannedLine) => void,
  onProblem: (p: RunProblem) => void,
): Promise<LineScanResult> {
  const cap = options.maxLineBytes ?? MAX_LINE_BYTES;
  let offset = options.start ?? 0;
  let line = options.firstLine ?? 1;
  let lineStart = offset;
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  let tooLong = false;
  let next = offset;
  let nextLine = line;
  const finish = (end: number, last: Uint8Array) => {
    const length = partBytes + last.length;
    if (tooLong) {
      onProblem({
        file: path,
        line,
        message: `${path} line ${line}: longer than ${cap / (1024 * 1024)} MB, skipped; expected ${oneCompletion}`,
      });
    } else if (length > 0 && !(length === 1 && last[0] === 13)) {
      const bytes = parts.length === 0 ? last : concat([...parts, last], length);
      const r = parseLine(path, line, bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes);
      if ('problem' in r) onProblem(r.problem);
      else onLine({ line, start: lineStart, end, value: r.value });
    }
    parts = [];
    partBytes = 0;
    tooLong = false;
  };
  while (offset < options.end) {
    const chunk = await readRange(files, path, offset, Math.min(offset + CHUNK_BYTES, options.end));
    if (chunk.length === 0) break;
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      const stop = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(pos, stop);
      if (nl < 0) {
        if (!tooLong && partBytes + piece.length > cap) tooLong = true;
        if (!tooLong) {
          parts.push(piece.slice());
          partBytes += piece.length;
        } else {
          parts = [];
          partBytes = 0;
        }
        break;
      }
      if (!tooLong && partBytes + piece.length > cap) tooLong = true;
      finish(offset + stop, tooLong ? new Uint8Array(0) : piece);
      line++;
      lineStart = offset + nl + 1;
      next = lineStart;
      nextLine = line;
      pos = nl + 1;
    }
    offset += chunk.length;
  }
  // An unterminated last line: read it if it is whole JSON already, else leave it for a later scan.
  if (partBytes > 0 || tooLong) {
    if (tooLong) return { next, nextLine, pending: { line, start: lineStart, bytes: offset - lineStart } };
    const bytes = concat(parts, partBytes);
    const r = parseLine(path, line, bytes);
    if ('value' in r) {
      onLine({ line, start: lineStart, end: offset, value: r.value });
      return { next: offset, nextLine: line + 1 };
    }
    return { next, nextLine, pending: { line, start: lineStart, bytes: partBytes } };
  }
  return { next, nextLine };
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The first line of a file (up to 1 MiB read), parsed, for detection; null when it is not a JSON object line. */
export async function firstJsonLine(
  files: RunFiles,
  path: string,
  size: number,
): Promise<Record<string, unknown> | null> {
  const head = await readRange(files, path, 0, Math.min(size, 1 << 20));
  const nl = head.indexOf(10);
  const r = parseLine(path, 1, nl < 0 ? head : head.subarray(0, nl));
  return 'value' in r && typeof r.value === 'object' && r.value !== null && !Array.isArray(r.value)
    ? (r.value as Record<string, unknown>)
    : null;
}
