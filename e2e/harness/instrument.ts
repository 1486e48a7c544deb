/**
 * Imported first by the harness worker, before ONNX Runtime loads: forwards console output to the
 * page (ORT prints its C++ log lines through the Emscripten glue's console.* calls), counts Worker
 * spawns (WASM pthreads) and counts live GPUBuffers (created minus destroyed) for leak checks.
 */
import type { WorkerMessage } from './protocol.ts';

const post = (m: WorkerMessage) => (self as unknown as { postMessage(m: WorkerMessage): void }).postMessage(m);

/** Every console line printed in this worker since start (also forwarded to the page). */
export const consoleLines: string[] = [];

for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : safeJson(a))).join(' ');
    consoleLines.push(text);
    post({ type: 'log', level, text });
    original(...args);
  };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export const counters = {
  workersSpawned: 0,
  gpuBuffersCreated: 0,
  gpuBuffersDestroyed: 0,
  gpuBytesCreated: 0,
  gpuBytesDestroyed: 0,
};

const NativeWorker = (globalThis as { Worker?: typeof Worker }).Worker;
if (NativeWorker) {
  (globalThis as { Worker?: unknown }).Worker = class extends NativeWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      counters.workersSpawned++;
    }
  };
}

interface GpuBufferLike {
  size: number;
  destroy(): void;
}
const g = globalThis as unknown as {
  GPUDevice?: { prototype: { createBuffer(this: unknown, d: unknown): GpuBufferLike } };
  GPUBuffer?: { prototype: { destroy(this: GpuBufferLike): void } };
};
const destroyed = new WeakSet<object>();
if (g.GPUDevice && g.GPUBuffer) {
  const create = g.GPUDevice.prototype.createBuffer;
  g.GPUDevice.prototype.createBuffer = function (this: unknown, d: unknown) {
    const b = create.call(this, d);
    counters.gpuBuffersCreated++;
    counters.gpuBytesCreated += b.size;
    return b;
  };
  const destroy = g.GPUBuffer.prototype.destroy;
  g.GPUBuffer.prototype.destroy = function (this: GpuBufferLike) {
    if (!destroyed.has(this)) {
      destroyed.add(this);
      counters.gpuBuffersDestroyed++;
      counters.gpuBytesDestroyed += this.size;
    }
    destroy.call(this);
  };
}

export function liveGpuBuffers(): { count: number; bytes: number } {
  return {
    count: counters.gpuBuffersCreated - counters.gpuBuffersDestroyed,
    bytes: counters.gpuBytesCreated - counters.gpuBytesDestroyed,
  };
}
