import type { WebBackend, WebBackendOptions } from './backend-web.ts';

/**
 * Picks the browser backend: WebGPU on a hardware adapter, else WASM, with the reason recorded.
 * A software adapter (SwiftShader, what headless Chromium offers on a machine without a GPU) is about
 * 100x slower than the WASM EP here, so it is used only when forced (`?backend=webgpu`).
 * Works in a page and in a Web Worker (only `navigator.gpu`, no DOM). This module does not load
 * ONNX Runtime until `chooseBackend` runs, so the UI can import `backendFromUrl` cheaply.
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

type AdapterInfoLike = Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & { isFallbackAdapter?: boolean };

/** Describes a GPUAdapterInfo (from `adapter.info` or `device.adapterInfo`). */
export function summariseAdapterInfo(info: AdapterInfoLike, legacyFallback = false): AdapterSummary {
  const vendor = info.vendor ?? '';
  const architecture = info.architecture ?? '';
  const description = info.description ?? '';
  const software = info.isFallbackAdapter === true || legacyFallback || /swiftshader/i.test(architecture) || /swiftshader/i.test(description);
  return { vendor, architecture, device: info.device ?? '', description, software };
}

export type ForcedBackend = WebBackendKind | null | undefined;

/** Reads `?backend=webgpu|wasm` from a query string (`location.search`); anything else means "choose". */
export function backendFromUrl(search: string): WebBackendKind | null {
  const v = new URLSearchParams(search).get('backend')?.trim().toLowerCase();
  return v === 'webgpu' || v === 'wasm' ? v : null;
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
    return { adapter: null, error: `requesting a WebGPU adapter failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export interface BackendDecision {
  kind: WebBackendKind;
  reason: string;
  adapter: AdapterSummary | null;
}

const SOFTWARE_NOTE = 'software adapters (SwiftShader) run about 100x slower than the WASM EP';

/** The decision alone (pure given the probe), so it can be unit-tested. */
export function decideBackend(forced: ForcedBackend, probe: AdapterProbe): BackendDecision {
  const a = probe.adapter;
  const name = a ? [a.vendor, a.architecture || a.description].filter(Boolean).join(' ') || 'unnamed adapter' : '';
  if (forced === 'wasm') return { kind: 'wasm', reason: 'forced with ?backend=wasm', adapter: a };
  if (forced === 'webgpu') {
    if (!a) throw new Error(`?backend=webgpu was forced but ${probe.error ?? 'no WebGPU adapter is available'}`);
    return { kind: 'webgpu', reason: `forced with ?backend=webgpu (adapter: ${name}${a.software ? `, software; ${SOFTWARE_NOTE}` : ''})`, adapter: a };
  }
  if (!a) return { kind: 'wasm', reason: `WASM: ${probe.error ?? 'no WebGPU adapter'}`, adapter: null };
  if (a.software) return { kind: 'wasm', reason: `WASM: the only WebGPU adapter is a software one (${name}); ${SOFTWARE_NOTE}. Force it with ?backend=webgpu`, adapter: a };
  return { kind: 'webgpu', reason: `WebGPU: hardware adapter ${name}`, adapter: a };
}

/** Chooses and creates the backend. `forced` comes from `backendFromUrl(location.search)` or a setting. */
export async function chooseBackend(forced?: ForcedBackend, opts: Omit<WebBackendOptions, 'reason' | 'adapter'> = {}): Promise<WebBackend> {
  const probe = forced === 'wasm' ? { adapter: null } : await probeWebGpu();
  const d = decideBackend(forced, probe);
  const { createWebBackend } = await import('./backend-web.ts');
  return createWebBackend(d.kind, { ...opts, reason: d.reason, adapter: d.adapter });
}
