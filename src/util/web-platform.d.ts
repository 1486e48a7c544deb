/**
 * The few web-platform globals that Node and browsers both provide and that the DOM-free layers
 * (src/util, engine, tasks, model, rl, bench/core.ts, bench/batches.ts) use. Their tsconfigs leave out the
 * DOM lib, so a DOM name (document, window, HTMLElement...) there is a compile error; these are declared here,
 * with only the members those layers use, instead.
 */

declare class URL {
  constructor(url: string, base?: string | URL);
  readonly href: string;
}

declare class URLSearchParams {
  constructor(init?: string);
  get(name: string): string | null;
}

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer): string;
}

declare function structuredClone<T>(value: T): T;

declare const performance: { now(): number };

/**
 * The byte-stream halves of CompressionStream / DecompressionStream (src/record/run-record.ts gzips run
 * records with them).
 */
interface ByteStreamReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}
interface ByteStreamWriter {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
  abort(reason?: unknown): Promise<void>;
}
interface ByteTransformStream {
  readonly readable: { getReader(): ByteStreamReader };
  readonly writable: { getWriter(): ByteStreamWriter };
}

declare class CompressionStream implements ByteTransformStream {
  constructor(format: 'gzip' | 'deflate' | 'deflate-raw');
  readonly readable: { getReader(): ByteStreamReader };
  readonly writable: { getWriter(): ByteStreamWriter };
}

declare class DecompressionStream implements ByteTransformStream {
  constructor(format: 'gzip' | 'deflate' | 'deflate-raw');
  readonly readable: { getReader(): ByteStreamReader };
  readonly writable: { getWriter(): ByteStreamWriter };
}

/** Cancellation of long reads (src/runs): only what the readers use. */
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/** fetch, with the members src/engine/select-backend.ts uses (it checks that an ORT build can be fetched). */
declare function fetch(url: string): Promise<{
  ok: boolean;
  status: number;
  statusText: string;
  body: { cancel(): Promise<void> } | null;
}>;
