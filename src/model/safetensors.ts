/**
 * The safetensors format (so checkpoints open in other tools): 8-byte little-endian header length,
 * a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then raw little-endian data.
 * We write F32; we read F32, and BF16 and F16 (how released models are saved) widened exactly to F32.
 * Anything else is rejected with a message naming the tensor.
 */
export class SafetensorsError extends Error {}

const MAX_HEADER = 16 * 1024 * 1024;

export function writeSafetensors(
  tensors: Map<string, { shape: number[]; data: Float32Array }>,
  metadata: Record<string, string> = {},
): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  const names = [...tensors.keys()].sort();
  for (const name of names) {
    const t = tensors.get(name)!;
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  while ((8 + new TextEncoder().encode(json).length) % 8 !== 0) json += ' ';
  const hbytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + hbytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(hbytes.length), true);
  out.set(hbytes, 8);
  let pos = 8 + hbytes.length;
  for (const name of names) {
    const d = tensors.get(name)!.data;
    out.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), pos);
    pos += d.byteLength;
  }
  return out;
}

export interface ParsedSafetensors {
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
  metadata: Record<string, string>;
}

export function readSafetensors(bytes: Uint8Array): ParsedSafetensors {
  if (bytes.length === 0) throw new SafetensorsError('the file is empty (0 bytes)');
  if (bytes.length < 8)
    throw new SafetensorsError(`the file is truncated: ${bytes.length} bytes, not even the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hlen = view.getBigUint64(0, true);
  if (hlen > BigInt(Math.min(MAX_HEADER, bytes.length - 8))) {
    throw new SafetensorsError(
      `not a safetensors file: header length ${hlen} does not fit in a file of ${bytes.length} bytes`,
    );
  }
  const n = Number(hlen);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch {
    throw new SafetensorsError('not a safetensors file: the header is not valid JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    throw new SafetensorsError('not a safetensors file: the header is not a JSON object');
  const dataStart = 8 + n;
  const dataLen = bytes.length - dataStart;
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  let metadata: Record<string, string> = {};
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = (v ?? {}) as Record<string, string>;
      continue;
    }
    const e = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const width = BYTES[e?.dtype as string];
    if (!width)
      throw new SafetensorsError(
        `tensor "${name}": dtype ${JSON.stringify(e?.dtype)} is not supported (expected F32, BF16 or F16)`,
      );
    if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isInteger(d) && d >= 0))
      throw new SafetensorsError(`tensor "${name}": invalid shape ${JSON.stringify(e.shape)}`);
    const offs = e.data_offsets;
    if (
      !Array.isArray(offs) ||
      offs.length !== 2 ||
      !offs.every((o) => Number.isInteger(o) && o >= 0) ||
      offs[0] > offs[1]
    ) {
      throw new SafetensorsError(`tensor "${name}": invalid data_offsets ${JSON.stringify(offs)}`);
    }
    const count = (e.shape as number[]).reduce((a, b) => a * b, 1);
    if (offs[1] - offs[0] !== count * width)
      throw new SafetensorsError(
        `tensor "${name}": shape [${e.shape}] needs ${count * width} bytes but data_offsets span ${offs[1] - offs[0]}`,
      );
    if (offs[1] > dataLen)
      throw new SafetensorsError(
        `the file is truncated: tensor "${name}" ends at byte ${offs[1]} of the data section, which has ` +
          `only ${dataLen}`,
      );
    const copy = bytes.slice(dataStart + offs[0], dataStart + offs[1]);
    tensors.set(name, { shape: e.shape as number[], data: toFloat32(e.dtype as string, copy, count) });
  }
  return { tensors, metadata };
}

const BYTES: Record<string, number> = { F32: 4, BF16: 2, F16: 2 };

/** The little-endian values as float32: BF16 is float32's upper half, F16 widens exactly. */
function toFloat32(dtype: string, raw: Uint8Array, count: number): Float32Array {
  if (dtype === 'F32') return new Float32Array(raw.buffer, 0, count);
  const half = new DataView(raw.buffer);
  const out = new Float32Array(count);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = half.getUint16(2 * i, true) << 16;
    return out;
  }
  for (let i = 0; i < count; i++) {
    const h = half.getUint16(2 * i, true);
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    out[i] =
      exp === 0
        ? sign * frac * 2 ** -24
        : exp === 31
          ? frac
            ? NaN
            : sign * Infinity
          : sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return out;
}
