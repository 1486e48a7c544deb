/**
 * The two browser backends and what we know about a WebGPU adapter. Its own module so that
 * backend-web.ts (which creates a backend) and select-backend.ts (which picks one and then imports
 * backend-web.ts) both depend on it instead of on each other. Only `navigator.gpu`, no DOM.
 */

export type WebBackendKind = 'webgpu' | 'wasm';

/** What we know about a WebGPU adapter (GPUAdapterInfo plus the fallback flag). */
export interface AdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A software adapter: `info.isFallbackAdapter`, the older `adapter.isFallbackAdapter`, or SwiftShader. */
  software: boolean;
}

type AdapterInfoLike = Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & {
  isFallbackAdapter?: boolean;
};

/** Describes a GPUAdapterInfo (from `adapter.info` or `device.adapterInfo`). */
export function summariseAdapterInfo(info: AdapterInfoLike, legacyFallback = false): AdapterSummary {
  const vendor = info.vendor ?? '';
  const architecture = info.architecture ?? '';
  const description = info.description ?? '';
  const software =
    info.isFallbackAdapter === true ||
    legacyFallback ||
    /swiftshader/i.test(architecture) ||
    /swiftshader/i.test(description);
  return { vendor, architecture, device: info.device ?? '', description, software };
}

export interface AdapterProbe {
  /** The adapter navigator.gpu offered, or null with `error` saying why there is none. */
  adapter: AdapterSummary | null;
  error?: string;
}

interface GpuAdapterLike {
  info?: AdapterInfoLike;
  isFallbackAdapter?: boolean;
  requestAdapterInfo?: () => Promise<AdapterInfoLike>;
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'low-power' | 'high-performance' }): Promise<GpuAdapterLike | null>;
}

/** Asks navigator.gpu for an adapter and describes it; never throws. */
export async function probeWebGpu(): Promise<AdapterProbe> {
  const gpu = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator?.gpu;
  if (!gpu) return { adapter: null, error: 'this browser has no WebGPU (navigator.gpu is missing)' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { adapter: null, error: 'WebGPU offers no adapter (requestAdapter returned null)' };
    const info = adapter.info ?? (adapter.requestAdapterInfo ? await adapter.requestAdapterInfo() : {});
    return { adapter: summariseAdapterInfo(info, adapter.isFallbackAdapter === true) };
  } catch (e) {
    return {
      adapter: null,
      error: `requesting a WebGPU adapter failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}
