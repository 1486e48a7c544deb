#!/usr/bin/env node
// Draws the app's PNG icons (public/icons/) for the web manifest: the favicon's rising line on the
// accent blue. `node scripts/make-icons.mjs` rewrites them; no image library, just zlib.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'public', 'icons');
const BLUE = [0x2f, 0x5f, 0xd0];
/** The favicon's polyline (index.html), in its 16-unit box. */
const LINE = [
  [3, 11],
  [6, 7],
  [9, 9],
  [13, 3],
];

const CRC = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
/** RGBA pixels (Uint8Array, size*size*4) to a PNG file. */
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) Buffer.from(rgba.buffer, y * size * 4, size * 4).copy(raw, y * (size * 4 + 1) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function distToSegment(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

/**
 * One icon. `corner`: rounded-corner radius (fraction of the size; 0 = full square, as maskable icons
 * need); `inset`: margin around the line's 16-unit box (maskable icons keep content in the middle 80%).
 */
function draw(size, { corner, inset }) {
  const rgba = new Uint8Array(size * size * 4);
  const S = 4; // supersampling per axis
  const scale = (size * (1 - 2 * inset)) / 16;
  const off = size * inset;
  const half = (1.8 / 2) * scale;
  const r = corner * size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let bg = 0,
        fg = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const px = x + (sx + 0.5) / S,
            py = y + (sy + 0.5) / S;
          const cx = Math.min(Math.max(px, r), size - r),
            cy = Math.min(Math.max(py, r), size - r);
          if (Math.hypot(px - cx, py - cy) > r) continue;
          bg++;
          const ux = (px - off) / scale,
            uy = (py - off) / scale;
          let d = Infinity;
          for (let i = 0; i + 1 < LINE.length; i++) d = Math.min(d, distToSegment(ux, uy, LINE[i], LINE[i + 1]));
          if (d * scale <= half) fg++;
        }
      }
      const a = bg / (S * S),
        f = bg ? fg / bg : 0;
      const o = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[o + c] = Math.round(BLUE[c] * (1 - f) + 255 * f);
      rgba[o + 3] = Math.round(255 * a);
    }
  }
  return png(size, rgba);
}

mkdirSync(OUT, { recursive: true });
const icons = {
  'icon-192.png': draw(192, { corner: 3 / 16, inset: 0 }),
  'icon-512.png': draw(512, { corner: 3 / 16, inset: 0 }),
  'icon-maskable-512.png': draw(512, { corner: 0, inset: 0.2 }),
  'apple-touch-icon.png': draw(180, { corner: 0, inset: 0.12 }),
};
for (const [name, data] of Object.entries(icons)) {
  writeFileSync(join(OUT, name), data);
  console.log(`public/icons/${name}: ${data.length} bytes`);
}
