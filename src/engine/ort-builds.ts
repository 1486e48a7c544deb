import type { WebBackendKind } from './webgpu-adapter.ts';

/**
 * ONNX Runtime Web's runtime files, one build per browser backend, served from the app's `ort/` folder
 * (vite.config.ts copies them there; backend-web.ts points ORT at it). Each build is an Emscripten glue
 * `.mjs` (also the script of every WASM pthread worker) and its `.wasm`.
 *
 * - `wasm`: what `onnxruntime-web/wasm` loads, the CPU EP alone (14.2 MB in ORT 1.30).
 * - `webgpu`: what `onnxruntime-web/webgpu` loads, the "asyncify" build holding the native WebGPU EP
 *   beside the CPU EP (26.8 MB).
 *
 * The WASM EP runs on the smaller build: a fresh page compiles half the code before its first step
 * (docs/measured.md, "Two ONNX Runtime builds"), and the first visit caches only it (scripts/vite-deploy.ts).
 */
export const ORT_BUILDS: Readonly<Record<WebBackendKind, readonly [glue: string, wasm: string]>> = {
  wasm: ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'],
  webgpu: ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'],
};

/** Every runtime file the app serves. */
export const ORT_FILES: readonly string[] = [...ORT_BUILDS.wasm, ...ORT_BUILDS.webgpu];

/** Folder (under the app's base URL) where the runtime files are served. */
export const ORT_DIR = 'ort';
