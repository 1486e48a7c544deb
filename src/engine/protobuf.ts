/**
 * The few protobuf wire-format primitives the ONNX encoder needs. Written by hand rather than taken
 * from protobufjs: ONNX export needs ~60 lines of encoding, and protobufjs generates code at run time
 * with `new Function`, which our Content-Security-Policy forbids.
 */
export class ProtoWriter {
  private chunks: number[] = [];
  private bufs: Uint8Array[] = [];
  private length = 0;

  private flush(): void {
    if (this.chunks.length) {
      this.bufs.push(Uint8Array.from(this.chunks));
      this.length += this.chunks.length;
      this.chunks = [];
    }
  }

  private varint(v: bigint): void {
    let x = BigInt.asUintN(64, v);
    while (x >= 0x80n) {
      this.chunks.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.chunks.push(Number(x));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, v: number | bigint): this {
    this.tag(field, 0);
    this.varint(BigInt(v));
    return this;
  }

  float(field: number, v: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.chunks.push(...b);
    return this;
  }

  bytes(field: number, data: Uint8Array): this {
    this.tag(field, 2);
    this.varint(BigInt(data.length));
    this.flush();
    this.bufs.push(data);
    this.length += data.length;
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  /**
   * A nested message. Its parts are appended as they are, not joined first: a model with baked weights
   * (compile.ts initializers) would otherwise copy every weight once per nesting level.
   */
  message(field: number, build: (w: ProtoWriter) => void): this {
    const w = new ProtoWriter();
    build(w);
    w.flush();
    this.tag(field, 2);
    this.varint(BigInt(w.length));
    this.flush();
    for (const b of w.bufs) this.bufs.push(b);
    this.length += w.length;
    return this;
  }

  packedInts(field: number, values: readonly (number | bigint)[]): this {
    const w = new ProtoWriter();
    for (const v of values) w.varint(BigInt(v));
    return this.bytes(field, w.finish());
  }

  finish(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.length);
    let off = 0;
    for (const b of this.bufs) {
      out.set(b, off);
      off += b.length;
    }
    return out;
  }
}
