import { OrtBackend, type OrtModule } from './backend.ts';
import { ORT_DIR } from './ort-builds.ts';
import { threadsGiven, wasmThreads } from './wasm-threads.ts';

export { wasmThreads } from './wasm-threads.ts';
import { summariseAdapterInfo, type AdapterSummary, type WebBackendKind } from './webgpu-adapter.ts';
export type { AdapterSummary, WebBackendKind } from './webgpu-adapter.ts';

/**
 * onnxruntime-web backends (browser tab or Web Worker; no DOM needed). Each backend loads its own ORT
 * build (src/engine/ort-builds.ts): the WASM EP `onnxruntime-web/wasm`, the WebGPU EP
 * `onnxruntime-web/webgpu` (which holds a CPU EP too, for the ops WebGPU leaves to it). Their runtime
 * files are served by the app itself (see vite.config.ts), never by a CDN. A module is loaded on first use
 * only, so a WASM run never downloads or compiles the WebGPU build.
 */

/** The part of an onnxruntime-web module this file configures, beside what OrtBackend runs. */
type WebOrtModule = OrtModule & {
  env: {
    wasm: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean };
    logLevel?: string;
    webgpu: { device?: unknown };
  };
};

/** The ORT module for a backend (each import is its own module instance, with its own `env`). */
async function loadOrt(kind: WebBackendKind): Promise<WebOrtModule> {
  const ort = kind === 'webgpu' ? await import('onnxruntime-web/webgpu') : await import('onnxruntime-web/wasm');
  return ort as unknown as WebOrtModule;
}

export interface WebBackendOptions {
  /** Why this backend was chosen (select-backend.ts fills this in). */
  reason?: string;
  /** The adapter select-backend.ts probed, if any (ORT requests its own; see `WebBackend.adapterInUse`). */
  adapter?: AdapterSummary | null;
  /** WASM threads; default min(4, hardwareConcurrency) when cross-origin isolated, else 1. */
  numThreads?: number;
  /** URL of the folder holding ORT's .mjs/.wasm; default `${import.meta.env.BASE_URL}ort/`. */
  wasmPaths?: string;
  /** ORT's global log level (takes effect on first use of ORT only). */
  logLevel?: 'verbose' | 'info' | 'warning' | 'error' | 'fatal';
  /** Per-session log severity, 0 = verbose ... 4 = fatal (0 prints node placements). */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
}

/** The ORT folder under the app's base URL, absolute (works in the page and in a worker under assets/). */
export function defaultWasmPaths(): string {
  const base = import.meta.env.BASE_URL || '/';
  const here = (globalThis as { location?: { href: string } }).location?.href ?? 'http://localhost/';
  // An absolute base ('/', '/rlvr/') is resolved against the origin; a relative one ('./') against the
  // document, which for a worker chunk in assets/ is one level up.
  if (base.startsWith('/') || /^[a-z]+:/i.test(base)) return new URL(`${base}${ORT_DIR}/`, here).href;
  const inWorker = typeof (globalThis as { document?: unknown }).document === 'undefined';
  return new URL(`${inWorker ? '../' : ''}${base}${ORT_DIR}/`, here).href;
}

const configured = new Map<WebOrtModule, { threads: number; wasmPaths: string }>();

/** An ORT module's `env` is global to it and read once, when its first session is created: set it once. */
function configureOrt(ort: WebOrtModule, opts: WebBackendOptions): { threads: number; note: string } {
  const t = wasmThreads();
  let done = configured.get(ort);
  if (!done) {
    // A page that is not cross-origin isolated has no SharedArrayBuffer: one thread, whatever was asked.
    done = { threads: threadsGiven(opts.numThreads), wasmPaths: opts.wasmPaths ?? defaultWasmPaths() };
    ort.env.wasm.wasmPaths = done.wasmPaths;
    ort.env.wasm.numThreads = done.threads;
    ort.env.wasm.proxy = false;
    if (opts.logLevel) ort.env.logLevel = opts.logLevel;
    configured.set(ort, done);
  }
  return { threads: done.threads, note: t.note };
}

/** A web backend: OrtBackend plus what the UI shows about it. */
export class WebBackend extends OrtBackend {
  constructor(
    private readonly webOrt: WebOrtModule,
    kind: WebBackendKind,
    description: string,
    reason: string,
    options: ConstructorParameters<typeof OrtBackend>[4],
    /** WASM threads ORT was configured with (the WASM EP's intra-op pool; also used around WebGPU). */
    readonly threads: number,
    readonly crossOriginIsolated: boolean,
    /** Adapter probed by select-backend, if any. */
    readonly adapter: AdapterSummary | null,
  ) {
    super(webOrt, kind, description, reason, options);
  }

  /** The adapter of the GPUDevice ORT actually uses (known after the first WebGPU session). */
  async adapterInUse(): Promise<AdapterSummary | null> {
    if (this.kind !== 'webgpu') return null;
    const device = (await this.webOrt.env.webgpu.device) as unknown as
      | { adapterInfo?: Parameters<typeof summariseAdapterInfo>[0] }
      | undefined;
    return device?.adapterInfo ? summariseAdapterInfo(device.adapterInfo) : null;
  }
}

function adapterLabel(a: AdapterSummary | null | undefined): string {
  if (!a) return 'default adapter';
  const name = [a.vendor, a.architecture || a.description].filter(Boolean).join(' ');
  return name || 'unnamed adapter';
}

/** Creates an onnxruntime-web backend on the WebGPU EP or the WASM EP, loading its ORT build. */
export async function createWebBackend(choice: WebBackendKind, opts: WebBackendOptions = {}): Promise<WebBackend> {
  const ort = await loadOrt(choice);
  const { threads, note } = configureOrt(ort, opts);
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  const isolationText = !isolated && threads === 1 ? ' (not cross-origin isolated)' : '';
  const threadText = `${threads} thread${threads === 1 ? '' : 's'}${isolationText}`;
  const base = {
    graphOptimizationLevel: 'all' as const,
    ...(opts.logSeverityLevel !== undefined ? { logSeverityLevel: opts.logSeverityLevel, logVerbosityLevel: 0 } : {}),
  };
  let reason = opts.reason ?? (choice === 'webgpu' ? 'WebGPU requested' : 'WASM requested');
  if (!isolated) reason += `; ${note}`;
  if (choice === 'webgpu') {
    return new WebBackend(
      ort,
      'webgpu',
      `WebGPU (${adapterLabel(opts.adapter)})`,
      reason,
      { ...base, executionProviders: ['webgpu'] },
      threads,
      isolated,
      opts.adapter ?? null,
    );
  }
  return new WebBackend(
    ort,
    'wasm',
    `WASM, ${threadText}`,
    reason,
    { ...base, executionProviders: ['wasm'] },
    threads,
    isolated,
    null,
  );
}
