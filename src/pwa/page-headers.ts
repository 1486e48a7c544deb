/**
 * The app's Content-Security-Policy, in one place for `vite preview` and the built index.html's
 * <meta> (vite.config.ts) and for `rlvr view` (src/node/view-server.ts), so the page runs under the
 * same policy behind either.
 */

/**
 * Content-Security-Policy of the built app: nothing but the app's own origin, no inline or
 * string-evaluated script. ONNX Runtime compiles WebAssembly, which needs 'wasm-unsafe-eval' (never
 * 'unsafe-eval'); its WASM threads are module workers from the same origin ('self'). Sent as a header
 * on every file (page, trainer worker, ORT's pthread workers, whose CSP comes from their own
 * response), and as a <meta> in the built index.html for static hosts that cannot set headers (a meta
 * covers the page only). Not in dev: Vite's dev client injects inline scripts.
 * e2e/reliability.spec.mjs checks that the app trains under it with no violation.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');
