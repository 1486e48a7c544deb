/**
 * A store-only (uncompressed) ZIP writer, enough to hand several files to a browser download as one.
 * Model weights barely compress, so deflate would buy little. No ZIP64: archives over 4 GiB or with
 * more than 65,535 entries are refused.
 */
export interface ZipEntry {
  /** Path inside the archive, with forward slashes. */
  name: string;
  data: Uint8Array;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** MS-DOS date and time fields (local time, 2-second resolution, years 1980..2107). */
function dosDateTime(d: Date): { date: number; time: number } {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
  };
}

const LIMIT = 0xffffffff;

export function zipStore(entries: ZipEntry[], modified: Date = new Date(1980, 0, 1)): Uint8Array {
  if (entries.length > 0xffff)
    throw new Error(`zip: ${entries.length} entries is more than a ZIP without ZIP64 holds (65,535)`);
  const enc = new TextEncoder();
  const { date, time } = dosDateTime(modified);
  const names = entries.map((e) => {
    if (!e.name || e.name.startsWith('/') || e.name.split('/').includes('..'))
      throw new Error(`zip: entry name ${JSON.stringify(e.name)} must be a relative path without ".."`);
    return enc.encode(e.name);
  });
  const crcs = entries.map((e) => crc32(e.data));
  const localSize = entries.reduce((n, e, i) => n + 30 + names[i]!.length + e.data.length, 0);
  const centralSize = names.reduce((n, nm) => n + 46 + nm.length, 0);
  if (localSize + centralSize + 22 > LIMIT) throw new Error('zip: the archive would exceed 4 GiB, which needs ZIP64');
  const out = new Uint8Array(localSize + centralSize + 22);
  const v = new DataView(out.buffer);
  // Bit 11: names are UTF-8.
  const FLAGS = 0x0800;
  let p = 0;
  const offsets: number[] = [];
  entries.forEach((e, i) => {
    offsets.push(p);
    v.setUint32(p, 0x04034b50, true);
    v.setUint16(p + 4, 10, true);
    v.setUint16(p + 6, FLAGS, true);
    v.setUint16(p + 8, 0, true);
    v.setUint16(p + 10, time, true);
    v.setUint16(p + 12, date, true);
    v.setUint32(p + 14, crcs[i]!, true);
    v.setUint32(p + 18, e.data.length, true);
    v.setUint32(p + 22, e.data.length, true);
    v.setUint16(p + 26, names[i]!.length, true);
    v.setUint16(p + 28, 0, true);
    out.set(names[i]!, p + 30);
    out.set(e.data, p + 30 + names[i]!.length);
    p += 30 + names[i]!.length + e.data.length;
  });
  const central = p;
  entries.forEach((e, i) => {
    v.setUint32(p, 0x02014b50, true);
    v.setUint16(p + 4, 20, true);
    v.setUint16(p + 6, 10, true);
    v.setUint16(p + 8, FLAGS, true);
    v.setUint16(p + 10, 0, true);
    v.setUint16(p + 12, time, true);
    v.setUint16(p + 14, date, true);
    v.setUint32(p + 16, crcs[i]!, true);
    v.setUint32(p + 20, e.data.length, true);
    v.setUint32(p + 24, e.data.length, true);
    v.setUint16(p + 28, names[i]!.length, true);
    // extra length, comment length, disk number, internal and external attributes: all 0
    v.setUint32(p + 42, offsets[i]!, true);
    out.set(names[i]!, p + 46);
    p += 46 + names[i]!.length;
  });
  v.setUint32(p, 0x06054b50, true);
  v.setUint16(p + 8, entries.length, true);
  v.setUint16(p + 10, entries.length, true);
  v.setUint32(p + 12, p - central, true);
  v.setUint32(p + 16, central, true);
  return out;
}
