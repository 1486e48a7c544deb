import type { WebBackend, WebBackendOptions } from './backend-web.ts';
import { ORT_BUILDS } from './ort-builds.ts';
import { probeWebGpu, type AdapterProbe, type AdapterSummary, type WebBackendKind } from './webgpu-adapter.ts';

// Re-exported: the worker, its protocol and the harnesses import these from here.
export {
  probeWebGpu,
  summariseAdapterInfo,
  type AdapterProbe,
  type AdapterSummary,
  type WebBackendKind,
} from './webgpu-adapter.ts';

/**
 * Picks the browser backend: WebGPU on a hardware adapter, else WASM, with the reason recorded.
 * A software adapter (SwiftShader, what headless Chromium offers on a machine without a GPU) is about
 * 100x slower than the WASM EP here, so it is used only when forced (`?backend=webgpu`).
 * Works in a page and in a Web Worker (only `navigator.gpu`, no DOM). This module does not load
 * ONNX Runtime until `chooseBackend` runs, so the UI can import it cheaply. (The page reads
 * `?backend=` with every other URL key, in src/ui/derive/url-state.ts.)
 */

export type ForcedBackend = WebBackendKind | null | undefined;

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
    return {
      kind: 'webgpu',
      reason: `forced with ?backend=webgpu (adapter: ${name}${a.software ? `, software; ${SOFTWARE_NOTE}` : ''})`,
      adapter: a,
    };
  }
  if (!a) return { kind: 'wasm', reason: `WASM: ${probe.error ?? 'no WebGPU adapter'}`, adapter: null };
  if (a.software)
    return {
      kind: 'wasm',
      reason:
        `WASM: the only WebGPU adapter is a software one (${name}); ${SOFTWARE_NOTE}. Force it with ` +
        '?backend=webgpu',
      adapter: a,
    };
  return { kind: 'webgpu', reason: `WebGPU: hardware adapter ${name}`, adapter: a };
}

/**
 * A WebGPU choice the browser made itself falls back to WASM when ONNX Runtime's WebGPU build cannot be
 * fetched: offline, before its first use cached it (the first visit caches the WASM build only,
 * scripts/vite-deploy.ts). A forced WebGPU stays WebGPU, and its failure is reported.
 */
export function withWebGpuBuild(d: BackendDecision, forced: ForcedBackend, buildError: string | null): BackendDecision {
  if (d.kind !== 'webgpu' || forced === 'webgpu' || buildError === null) return d;
  return {
    kind: 'wasm',
    reason: `WASM: ONNX Runtime's WebGPU build could not be fetched (${buildError}); it is cached on first use online`,
    adapter: d.adapter,
  };
}

/** Why the WebGPU build's glue file cannot be fetched, or null when it can (a service worker may answer). */
async function webGpuBuildError(wasmPaths: string): Promise<string | null> {
  const url = new URL(ORT_BUILDS.webgpu[0], wasmPaths).href;
  try {
    const res = await fetch(url);
    await res.body?.cancel();
    return res.ok ? null : `HTTP ${res.status} ${res.statusText}`.trim();
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Chooses and creates the backend. `forced` comes from the page's `?backend=` (src/ui/derive/url-state.ts) or a
 * setting.
 */
export async function chooseBackend(
  forced?: ForcedBackend,
  opts: Omit<WebBackendOptions, 'reason' | 'adapter'> = {},
): Promise<WebBackend> {
  const probe = forced === 'wasm' ? { adapter: null } : await probeWebGpu();
  const { createWebBackend, defaultWasmPaths } = await import('./backend-web.ts');
  let d = decideBackend(forced, probe);
  if (d.kind === 'webgpu' && forced !== 'webgpu')
    d = withWebGpuBuild(d, forced, await webGpuBuildError(opts.wasmPaths ?? defaultWasmPaths()));
  return createWebBackend(d.kind, { ...opts, reason: d.reason, adapter: d.adapter });
}
