/**
 * Reads the files of a ZIP archive in the page: stored and deflated entries (what the page's own
 * export, `zip`, Python's zipfile and the operating systems' "compress" write), inflated with the
 * platform's DecompressionStream; every entry's size and CRC-32 are checked. No ZIP64, no encryption:
 * such archives are refused with a message saying so. The writer is src/util/zip.ts.
 */
import { crc32 } from '../../util/zip.ts';

export class UnzipError extends Error {}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

async function inflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The archive's files by their path inside it (folders left out). `maxBytes` caps the unpacked total. */
export async function unzip(bytes: Uint8Array, maxBytes = Infinity): Promise<Map<string, Uint8Array>> {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let p = bytes.length - 22; p >= Math.max(0, bytes.length - 22 - 0xffff); p--) {
    if (v.getUint32(p, true) === EOCD) {
      end = p;
      break;
    }
  }
  if (end < 0) throw new UnzipError('not a zip archive (no end-of-central-directory record)');
  const count = v.getUint16(end + 10, true);
  let p = v.getUint32(end + 16, true);
  if (count === 0xffff || p === 0xffffffff) throw new UnzipError('the archive is ZIP64, which is not supported');
  const files = new Map<string, Uint8Array>();
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || v.getUint32(p, true) !== CENTRAL)
      throw new UnzipError(`the archive's central directory is damaged (entry ${i + 1} of ${count})`);
    const flags = v.getUint16(p + 8, true);
    const method = v.getUint16(p + 10, true);
    const crc = v.getUint32(p + 16, true);
    const packed = v.getUint32(p + 20, true);
    const size = v.getUint32(p + 24, true);
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    const local = v.getUint32(p + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    if (flags & 1) throw new UnzipError(`${name}: encrypted entries are not supported`);
    if (method !== 0 && method !== 8)
      throw new UnzipError(`${name}: compression method ${method} is not supported (only stored and deflate)`);
    total += size;
    if (total > maxBytes) throw new UnzipError(`the archive unpacks to more than ${maxBytes} bytes`);
    if (local + 30 > bytes.length || v.getUint32(local, true) !== LOCAL)
      throw new UnzipError(`${name}: its local header is missing or damaged`);
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    if (start + packed > bytes.length) throw new UnzipError(`${name}: the archive is truncated`);
    const raw = bytes.subarray(start, start + packed);
    let data: Uint8Array;
    try {
      data = method === 0 ? raw.slice() : await inflateRaw(raw);
    } catch {
      throw new UnzipError(`${name}: the compressed data is damaged`);
    }
    if (data.length !== size || crc32(data) !== crc)
      throw new UnzipError(`${name}: size or CRC-32 does not match the archive's record (damaged)`);
    files.set(name, data);
  }
  return files;
}
